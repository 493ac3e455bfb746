#include "sweep/knobs/resctrl_mb.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "sweep/knobs/resctrl_fs.h"

namespace hpcsens::sweep {
namespace {

bool mb_digits(const std::string& s) {
  return !s.empty() && s.size() <= 10 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string mb_trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::optional<long> read_long(const SysfsIo& io, const std::string& path) {
  const auto v = io.read(path);
  if (!v || !mb_digits(mb_trim(*v))) return std::nullopt;
  return std::stol(mb_trim(*v));
}

// /proc/mounts writes a blank, tab, newline or backslash in a path as \ooo.
std::string unescape_mount_path(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s.find_first_not_of("01234567", i + 1) >= i + 4) {
      out += char(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool has_option(const std::string& options, const std::string& name) {
  std::istringstream in(options);
  for (std::string o; std::getline(in, o, ',');)
    if (o == name) return true;
  return false;
}

// The unit and range from the mount options and info/MB (see the header); "" or why not.
std::string decide_unit(const SysfsIo& io, ResctrlInfo& r) {
  const std::string mb = r.root + "/info/MB";
  if (has_option(r.mount_options, "mba_MBps")) {
    r.unit = MbUnit::kMiBps;
    r.min_bandwidth = 0, r.bandwidth_gran = 1, r.max = kMbMaxMiBps;
    return "";
  }
  const auto linear = read_long(io, mb + "/delay_linear");
  const bool intel_only_file = io.read(mb + "/thread_throttle_mode").has_value();
  if (!linear) return r.root + "/info/MB/delay_linear is missing or not a number: cannot tell Intel's percent from AMD's units";
  if (*linear == 1) {
    r.unit = MbUnit::kPercent, r.max = 100;
    return "";
  }
  if (intel_only_file)
    return "this Intel part's MBA delay is not linear (info/MB/delay_linear 0), which the kernel refuses to program "
           "(\"No support for non-linear MB domains\")";
  r.unit = MbUnit::kAmdEighthGbs, r.max = 0;  // read from the sweep's new group (resctrl_groups.h)
  return "";
}

}  // namespace

std::optional<std::string> resctrl_mount_options(const std::string& mounts_text, const std::string& root) {
  std::istringstream in(mounts_text);
  std::optional<std::string> found;
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string dev, dir, type, options;
    if (!(f >> dev >> dir >> type >> options) || type != "resctrl") continue;
    if (unescape_mount_path(dir) == root) found = options;  // the last mount there is the one seen
  }
  return found;
}

std::vector<MbDomain> parse_mb_line(const std::string& schemata) {
  std::istringstream in(schemata);
  for (std::string line; std::getline(in, line);) {
    line = mb_trim(line);
    if (line.rfind("MB:", 0) != 0) continue;
    std::vector<MbDomain> out;
    std::istringstream items(line.substr(3));
    for (std::string item; std::getline(items, item, ';');) {
      item = mb_trim(item);
      const auto eq = item.find('=');
      if (eq == std::string::npos || !mb_digits(mb_trim(item.substr(0, eq))) || !mb_digits(mb_trim(item.substr(eq + 1))))
        throw std::runtime_error("malformed MB: entry '" + item + "' (want <domain>=<value>)");
      out.push_back({mb_trim(item.substr(0, eq)), std::stol(mb_trim(item.substr(eq + 1)))});
    }
    if (out.empty()) throw std::runtime_error("MB: line names no domain");
    return out;
  }
  return {};
}

ResctrlInfo probe_resctrl(const SysfsIo& io, const std::string& root, const std::string& mounts_file) {
  ResctrlInfo r;
  r.root = root;
  r.mounted = io.read(root + "/info/last_cmd_status").has_value() || io.read(root + "/schemata").has_value();
  if (!r.mounted) {
    r.problem = "resctrl is not mounted at " + root;
    return r;
  }
  const auto mounts = io.read(mounts_file);
  std::error_code ec;
  const std::string canonical = std::filesystem::canonical(root, ec).string();
  auto options = mounts ? resctrl_mount_options(*mounts, root) : std::nullopt;
  if (!options && mounts && !ec) options = resctrl_mount_options(*mounts, canonical);
  if (!options) {
    r.problem = root + " looks like resctrl but " + mounts_file + " shows no resctrl file system mounted there, so its "
                "unit (mount option mba_MBps) cannot be known";
    return r;
  }
  r.mount_options = *options;
  const auto min_bw = read_long(io, root + "/info/MB/min_bandwidth");
  const auto gran = read_long(io, root + "/info/MB/bandwidth_gran");
  const auto schemata = io.read(root + "/schemata");
  try {
    if (schemata) r.domains = parse_mb_line(*schemata);
  } catch (const std::exception& e) {
    r.problem = root + "/schemata: " + e.what();
    return r;
  }
  if (!min_bw || !gran || *gran < 1 || r.domains.empty()) {
    r.problem = "resctrl is mounted at " + root + " but offers no Memory Bandwidth Allocation (no info/MB or no MB: "
                "line in schemata): this CPU or kernel lacks MBA (Intel RDT MBA, AMD QoS L3 bandwidth enforcement)";
    return r;
  }
  r.min_bandwidth = *min_bw;
  r.bandwidth_gran = *gran;
  if (auto why = decide_unit(io, r); !why.empty()) {
    r.problem = "resctrl at " + root + ": " + why;
    return r;
  }
  r.mba = true;
  return r;
}

ResctrlInfo probe_resctrl(const SysfsIo& io, const std::string& root) {
  return probe_resctrl(io, root, machine_resctrl().mounts_file(root));
}

std::optional<long> mb_set_value(const ResctrlInfo& info, long requested, std::string* why) {
  if (requested < info.min_bandwidth || (info.max > 0 && requested > info.max)) {
    if (why)
      *why = "MB value " + std::to_string(requested) + " out of range [" + std::to_string(info.min_bandwidth) + "," +
             (info.max > 0 ? std::to_string(info.max) : "the part's maximum") + "] (" + mb_unit_name(info.unit) + ")";
    return std::nullopt;
  }
  if (info.unit == MbUnit::kMiBps) return requested;  // the software controller keeps it as it is
  const long g = std::max(1L, info.bandwidth_gran);
  return (requested + g - 1) / g * g;
}

std::string mb_schemata_line(const std::vector<MbDomain>& domains, long value) {
  std::string s = "MB:";
  for (std::size_t i = 0; i < domains.size(); ++i) s += (i ? ";" : "") + domains[i].id + "=" + std::to_string(value);
  return s;
}

std::string mb_unit_name(MbUnit u) {
  switch (u) {
    case MbUnit::kPercent: return "percent";
    case MbUnit::kAmdEighthGbs: return "1/8 GB/s";
    case MbUnit::kMiBps: return "MiB/s";
  }
  return "?";
}

}  // namespace hpcsens::sweep
