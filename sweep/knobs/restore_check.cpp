#include <climits>
#include <cstdlib>
#include <filesystem>

#include "sweep/knobs/knob_backend.h"
#include "sweep/knobs/restore.h"

namespace hpcsens::sweep {
namespace {

std::string resolved(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool below(const std::string& path, const std::string& root) {
  const std::string r = root == "/" ? "/" : root + "/";
  return path.size() > r.size() && path.compare(0, r.size(), r) == 0;
}

}  // namespace

std::string restore_target_problem(const FileWrite& f, const std::string& root) {
  namespace fs = std::filesystem;
  if (root.empty() || root[0] != '/') return "the journal records no absolute sysfs root";
  const std::string& p = f.path;
  if (p.empty() || p[0] != '/' || fs::path(p).lexically_normal().string() != p)
    return "is not a plain absolute path";
  if (!below(p, fs::path(root).lexically_normal().string()))
    return "does not lie under the recorded sysfs root " + root;
  const std::string name = p.substr(p.rfind('/') + 1);
  if (!restorable_file_name(name)) return "is not a file any knob backend writes";
  const std::string dir = resolved(p.substr(0, p.rfind('/'))), real_root = resolved(root);
  if (dir.empty() || real_root.empty() || !below(dir, real_root) )
    return "its directory does not resolve to a place under " + root;
  // An empty value (older journals: an offline policy read as '') is skipped, never written.
  if (f.value.size() > 64 ||
      f.value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.<> ") != std::string::npos)
    return "has a saved value that is not a plain sysfs value";
  return "";
}

}  // namespace hpcsens::sweep
