#include "sweep/knobs/resctrl_groups.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "common/text_escape.h"

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

bool all_digits(const std::string& s, std::size_t from) {
  return s.size() > from && s.find_first_not_of("0123456789", from) == std::string::npos;
}

}  // namespace

std::string resctrl_kernel_reason(const SysfsIo& io, const std::string& root) {
  auto s = io.read(root + "/info/last_cmd_status");
  if (!s) return "";
  while (!s->empty() && (s->back() == '\n' || s->back() == ' ')) s->pop_back();
  return !s->empty() && *s != "ok" ? " (kernel: " + text::escape_for_message(*s) + ")" : "";
}

std::string resctrl_group_name(const std::string& token) { return "hpcsens-" + token; }

std::string resctrl_group_problem(const std::string& root, const std::string& name, const std::string& token) {
  if (root.empty() || root[0] != '/' || std::filesystem::path(root).lexically_normal().string() != root)
    return "the journal's resctrl root '" + root + "' is not a plain absolute path";
  const std::string own = resctrl_group_name(token), per_point = own + "-p";
  const bool ours = name == own || (name.rfind(per_point, 0) == 0 && all_digits(name, per_point.size()));
  if (token.empty() || !ours) return "'" + name + "' is not a group this sweep makes (hpcsens-" + token + ")";
  return "";
}

std::vector<MbDomain> make_resctrl_group(ResctrlFs& fs, const SysfsIo& io, const std::string& root,
                                         const std::string& name) {
  try {
    fs.make_group(root, name);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what() + resctrl_kernel_reason(io, root));
  }
  try {
    const auto fresh = io.read(root + "/" + name + "/schemata");
    return fresh ? parse_mb_line(*fresh) : std::vector<MbDomain>{};
  } catch (const std::exception&) {
    return {};
  }
}

void write_group_schemata(ResctrlFs& fs, const SysfsIo& io, const std::string& root, const std::string& name,
                          const std::string& schemata) {
  try {
    fs.write(root + "/" + name + "/schemata", schemata);
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what() + resctrl_kernel_reason(io, root));
  }
  const auto now = io.read(root + "/" + name + "/schemata");
  std::vector<MbDomain> got, want = parse_mb_line(schemata);
  try {
    if (now) got = parse_mb_line(*now);
  } catch (const std::exception&) {
  }
  bool same = got.size() == want.size();
  for (std::size_t i = 0; same && i < got.size(); ++i) same = got[i].id == want[i].id && got[i].value == want[i].value;
  if (!same)
    throw std::runtime_error("resctrl group " + root + "/" + name + " holds '" +
                             text::escape_for_message(now.value_or("(unreadable)")) + "' after writing '" + schemata +
                             "'; the kernel keeps other values than hpcsens expects");
}

void create_resctrl_group(ResctrlFs& fs, const SysfsIo& io, const std::string& root, const std::string& name,
                          const std::string& schemata) {
  make_resctrl_group(fs, io, root, name);
  try {
    write_group_schemata(fs, io, root, name, schemata);
  } catch (const std::exception&) {
    drop_new_group(fs, root, name);
    throw;
  }
}

std::string mb_values_over_max(const std::vector<long>& values, long kernel_max, const std::string& unit) {
  long top = 0;
  for (long v : values) top = std::max(top, v);
  if (kernel_max <= 0 || top <= kernel_max) return "";
  return "knobs.mem_bw: " + std::to_string(top) + " is above this node's maximum MB: value " +
         std::to_string(kernel_max) + " (" + unit + "; the value the kernel gives a new resctrl group: " +
         "unthrottled); use values up to " + std::to_string(kernel_max);
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
