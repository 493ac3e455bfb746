#include "sweep/knobs/resctrl_groups.h"

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "sweep/knobs/resctrl_mb.h"

namespace hpcsens::sweep {
namespace {

// Takes a group we just made back out (the caller holds the lock). A failure here is said by
// the restore, which removes every journalled group again.
void drop_new_group(ResctrlFs& fs, const std::string& root, const std::string& name) {
  try {
    fs.remove_group(root, name);
  } catch (const std::exception&) {
  }
}

std::string kernel_reason(const SysfsIo& io, const std::string& root) {
  const auto s = io.read(root + "/info/last_cmd_status");
  return s && !s->empty() && *s != "ok" ? " (kernel: " + *s + ")" : "";
}

}  // namespace

std::string resctrl_group_name(const std::string& token, int point) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "-p%02d", point);
  return "hpcsens-" + token + buf;
}

std::string resctrl_group_problem(const std::string& root, const std::string& name, const std::string& token) {
  if (root.empty() || root[0] != '/' || std::filesystem::path(root).lexically_normal().string() != root)
    return "the journal's resctrl root '" + root + "' is not a plain absolute path";
  const std::string prefix = "hpcsens-" + token + "-p";
  if (token.empty() || name.rfind(prefix, 0) != 0 || name.size() == prefix.size() ||
      name.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
    return "'" + name + "' is not a group this sweep makes (hpcsens-" + token + "-pNN)";
  return "";
}

void create_resctrl_group(ResctrlFs& fs, const SysfsIo& io, const std::string& root, const std::string& name,
                          const std::string& schemata) {
  fs.make_group(root, name);
  try {
    fs.write(root + "/" + name + "/schemata", schemata);
  } catch (const std::exception& e) {
    const std::string why = e.what() + kernel_reason(io, root);
    drop_new_group(fs, root, name);
    throw std::runtime_error(why);
  }
  // What the group holds now is what the record calls set: a kernel that keeps another value
  // (another granularity than info/MB says) stops the point instead of being recorded wrongly.
  const auto now = io.read(root + "/" + name + "/schemata");
  std::vector<MbDomain> got, want = parse_mb_line(schemata);
  try {
    if (now) got = parse_mb_line(*now);
  } catch (const std::exception&) {
  }
  bool same = got.size() == want.size();
  for (std::size_t i = 0; same && i < got.size(); ++i) same = got[i].id == want[i].id && got[i].value == want[i].value;
  if (!same) {
    drop_new_group(fs, root, name);
    throw std::runtime_error("resctrl group " + root + "/" + name + " holds '" + now.value_or("(unreadable)") +
                             "' after writing '" + schemata + "'; the kernel keeps other values than hpcsens expects");
  }
}

std::string remove_resctrl_group(ResctrlFs& fs, const std::string& root, const std::string& name, bool* was_there) {
  if (was_there) *was_there = false;
  try {
    ResctrlLock lock(root, kResctrlLockWaitS);
    fs.remove_group(root, name);
  } catch (const ResctrlError& e) {
    if (e.err == ENOENT) return "";  // gone already (a restore before us, or a reboot)
    return e.what();
  }
  if (was_there) *was_there = true;
  return "";
}

}  // namespace hpcsens::sweep
