#include "common/private_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/checked_path.h"

namespace hpcsens::safe_file {
namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// Without a private runtime directory the fresh directory is made straight in /tmp under an
// unpredictable name: a fixed per-user base there (/tmp/hpcsens-<uid>) could be taken first by
// any other user, and every later job of ours refused.
constexpr const char* kSharedTmp = "/tmp";

std::string shared_name_start(std::string_view prefix) {
  return "hpcsens-" + std::to_string(::geteuid()) + "." + std::string(prefix) + ".";
}

// A runtime directory from the environment is used only when it is really ours and private
// (the environment of a root process may come from another user, e.g. through sudo -E).
bool usable_runtime_dir(const char* dir) {
  if (dir == nullptr || dir[0] != '/') return false;
  struct stat st {};
  return ::lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && private_dir_problem(st.st_uid, st.st_mode, ::geteuid()).empty();
}

// Opens (creating 0700 when missing) the private base: its parent by the checked walk, the base
// itself below that descriptor, then owner and mode checked on the descriptor.
std::string open_base(Dir* out) {
  const std::string base = private_base_path();
  Dir parent;
  if (auto err = open_dir(parent_of(base), /*create=*/true, &parent); !err.empty()) return err;
  const std::string name = name_of(base);
  if (::mkdirat(parent.fd(), name.c_str(), 0700) != 0 && errno != EEXIST)
    return base + ": cannot create: " + std::strerror(errno);
  const int fd = ::openat(parent.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return base + ": cannot open (" + std::strerror(errno) + "); it must be a directory, not a symlink";
  struct stat st {};
  std::string problem = ::fstat(fd, &st) != 0 ? std::strerror(errno) : private_dir_problem(st.st_uid, st.st_mode, ::geteuid());
  if (!problem.empty()) {
    ::close(fd);
    return base + ": " + problem;
  }
  *out = Dir(fd, base);
  return "";
}

}  // namespace

std::string private_dir_problem(uid_t owner, mode_t mode, uid_t euid) {
  if (owner != euid) return "is owned by uid " + std::to_string(owner) + ", not by you (uid " + std::to_string(euid) + ")";
  if (mode & (S_IRWXG | S_IRWXO)) return "is open to group or others; it must be private (mode 0700)";
  return "";
}

std::string private_base_path() {
  const uid_t uid = ::geteuid();
  if (uid == 0) return "/run/hpcsens/0";
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); usable_runtime_dir(xdg))
    return std::string(xdg) + (std::string(xdg).back() == '/' ? "" : "/") + "hpcsens";
  return "";
}

std::string private_dir_pattern(std::string_view prefix) {
  const std::string base = private_base_path();
  if (base.empty()) return std::string(kSharedTmp) + "/" + shared_name_start(prefix) + "RANDOM";
  return base + "/" + std::string(prefix) + ".RANDOM";
}

std::string make_private_dir(std::string_view prefix, Dir* out) {
  const bool shared = private_base_path().empty();
  Dir base;
  if (auto err = shared ? open_dir(kSharedTmp, false, &base) : open_base(&base); !err.empty())
    return "private directory: " + err;
  const std::string start = shared ? shared_name_start(prefix) : std::string(prefix) + ".";
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::string name = start + random_hex(8);
    if (::mkdirat(base.fd(), name.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      return "private directory: cannot create " + base.child(name) + ": " + std::strerror(errno);
    }
    // mkdir made it ours; in a sticky shared directory nobody else can rename or replace it, and
    // the descriptor is checked all the same.
    const int fd = ::openat(base.fd(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return "private directory: cannot open " + base.child(name) + ": " + std::strerror(errno);
    struct stat st {};
    const std::string problem = ::fstat(fd, &st) != 0 ? std::strerror(errno) : private_dir_problem(st.st_uid, st.st_mode, ::geteuid());
    if (!problem.empty()) {
      ::close(fd);
      return "private directory: " + base.child(name) + ": " + problem;
    }
    *out = Dir(fd, base.child(name));
    return "";
  }
  return "private directory: no free name in " + base.path();
}

void remove_private_dir(Dir& dir, std::initializer_list<std::string_view> names) {
  if (!dir.is_open()) return;
  for (auto n : names) ::unlinkat(dir.fd(), std::string(n).c_str(), 0);
  const std::string path = dir.path();
  dir = Dir();
  Dir parent;
  if (open_dir(parent_of(path), false, &parent).empty()) ::unlinkat(parent.fd(), name_of(path).c_str(), AT_REMOVEDIR);
}

}  // namespace hpcsens::safe_file
