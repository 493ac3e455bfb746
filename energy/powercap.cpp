#include "energy/powercap.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <set>

#include "common/checked_path.h"
#include "common/text_escape.h"

namespace hpcsens::energy {
namespace {

// The first line of a small sysfs file; false with why (file and error) when it cannot be read.
bool read_line(const std::string& path, std::string* line, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    *why = "cannot read " + path + ": " + std::strerror(err);
    if (err == EACCES)
      *why += " (since Linux 5.10 energy_uj is readable by root only; run hpcsens as root, or have the "
              "administrator grant read access to the powercap files)";
    return false;
  }
  char buf[128];
  ssize_t n;
  do n = ::read(fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  const int err = errno;
  ::close(fd);
  if (n < 0) {
    *why = "cannot read " + path + ": " + std::strerror(err);
    return false;
  }
  line->assign(buf, static_cast<std::size_t>(n));
  if (const auto nl = line->find('\n'); nl != std::string::npos) line->resize(nl);
  return true;
}

bool read_u64(const std::string& path, std::uint64_t* value, std::string* why) {
  std::string line;
  if (!read_line(path, &line, why)) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(line.c_str(), &end, 10);
  if (line.empty() || line[0] == '-' || end == line.c_str() || *end != '\0' || errno == ERANGE) {
    *why = path + ": '" + text::escape_for_message(line) + "' is not a counter value (a non-negative integer)";
    return false;
  }
  *value = v;
  return true;
}

const std::regex& zone_pattern() {
  static const std::regex re("^(intel-rapl|amd-rapl):([0-9]{1,6})(:([0-9]{1,6}))?$");
  return re;
}

// "package-0" -> "-0"; "package-1-die-0" -> "-1-die-0"; the socket part of a package zone's name.
std::string package_suffix(const std::string& name) {
  static const std::regex re("^package(-[0-9]+(-die-[0-9]+)?)$");
  std::smatch m;
  return std::regex_match(name, m, re) ? m[1].str() : "";
}

std::string domain_of(const std::string& name) {
  if (!package_suffix(name).empty()) return "package";
  return name;
}

std::vector<std::string> zone_ids(const std::string& root) {
  std::vector<std::string> ids;
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) return ids;
  while (const dirent* e = ::readdir(dir))
    if (std::regex_match(e->d_name, zone_pattern())) ids.emplace_back(e->d_name);
  ::closedir(dir);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Why root (as root) must not read a powercap tree at `root`, or "": a directory that another user
// controls, or that others may write into (even /tmp's sticky kind: they could plant a zone that
// links to a root-only file, whose first line would land in the record). /sys is the kernel's.
std::string root_problem(const std::string& root) {
  if (root == kDefaultRoot) return "";
  std::string why;
  bool untrusted = false;
  const int fd = safe_file::open_checked_dir(root, false, &why, &untrusted);
  if (fd < 0) return untrusted ? why : "";  // missing: said as "no zones under" below
  struct stat st {};
  const bool shared = ::fstat(fd, &st) != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  ::close(fd);
  return shared ? root + ": writable by other users" : "";
}

}  // namespace

Discovery discover(const std::string& root) {
  Discovery d;
  if (const std::string problem = root_problem(root); !problem.empty()) {
    d.reason = "not available: powercap root refused: " + problem + " (" + kRootEnv +
               " must name a directory only root or you can write)";
    return d;
  }
  const auto ids = zone_ids(root);
  if (ids.empty()) {
    d.reason = "not available: no RAPL powercap zones under " + root +
               " (a virtual machine, a CPU without RAPL, or the intel_rapl_msr module not loaded)";
    return d;
  }
  std::vector<std::string> suffix_of_parent;  // by zone id, for the labels of its subzones
  for (const auto& id : ids) {
    Zone z;
    z.id = id;
    const std::string dir = root + "/" + id;
    std::string why;
    if (!read_line(dir + "/name", &z.name, &why) || !read_u64(dir + "/max_energy_range_uj", &z.max_range_uj, &why)) {
      d.zones.clear();
      d.reason = "not available: " + why;
      return d;
    }
    z.name = text::encode_outside(z.name);
    z.domain = domain_of(z.name);
    z.energy_path = dir + "/energy_uj";
    d.zones.push_back(std::move(z));
  }
  // Subzones take their package's socket: "intel-rapl:1:0" named "core" under "package-1" is core-1.
  for (auto& z : d.zones) {
    std::smatch m;
    std::regex_match(z.id, m, zone_pattern());
    if (z.domain == "package" || !m[3].matched) {
      z.label = z.name;
      continue;
    }
    const std::string parent_id = m[1].str() + ":" + m[2].str();
    const auto parent = std::find_if(d.zones.begin(), d.zones.end(), [&](const Zone& p) { return p.id == parent_id; });
    const std::string suffix = parent != d.zones.end() ? package_suffix(parent->name) : "";
    z.label = z.name + (suffix.empty() ? "-" + m[2].str() : suffix);
  }
  return d;
}

bool read_energy_uj(const Zone& zone, std::uint64_t* uj, std::string* why) {
  if (!read_u64(zone.energy_path, uj, why)) return false;
  if (*uj > zone.max_range_uj) {
    *why = zone.energy_path + ": " + std::to_string(*uj) + " is above max_energy_range_uj (" +
           std::to_string(zone.max_range_uj) + ")";
    return false;
  }
  return true;
}

std::string missing_dram_note(const std::vector<Zone>& zones) {
  std::set<std::string> present;
  for (const auto& z : zones) present.insert(z.domain);
  if (present.count("dram") != 0) return "";
  std::string list;
  for (const char* order : {"package", "core", "uncore", "psys"})
    if (present.erase(order) != 0) list += std::string(list.empty() ? "" : ", ") + order;
  for (const auto& other : present) list += (list.empty() ? "" : ", ") + other;
  return "no DRAM zone (domains present: " + list + "); memory energy is not in these figures";
}

std::string root_from_env() {
  const char* r = std::getenv(kRootEnv);
  return r != nullptr && *r != '\0' ? r : kDefaultRoot;
}

}  // namespace hpcsens::energy
