#include "sweep/knobs/resctrl_mb.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

constexpr long kAmdMax = 2048;  // 1 << eax of CPUID 0x80000020 on today's parts: unlimited

bool mb_digits(const std::string& s) {
  return !s.empty() && s.size() <= 10 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::string mb_trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::optional<long> read_long(const SysfsIo& io, const std::string& path) {
  const auto v = io.read(path);
  if (!v || !mb_digits(mb_trim(*v))) return std::nullopt;
  return std::stol(mb_trim(*v));
}

}  // namespace

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

ResctrlInfo probe_resctrl(const SysfsIo& io, const std::string& root) {
  ResctrlInfo r;
  r.root = root;
  r.mounted = io.read(root + "/info/last_cmd_status").has_value() || io.read(root + "/schemata").has_value();
  if (!r.mounted) {
    r.problem = "resctrl is not mounted at " + root;
    return r;
  }
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
  long top = 0;
  for (const auto& d : r.domains) top = std::max(top, d.value);
  if (top > kAmdMax) {
    r.problem = "resctrl at " + root + " is mounted with mba_MBps (the software controller, MiB/s per domain), which "
                "hpcsens does not drive; remount without it: umount " + root + "; mount -t resctrl resctrl " + root;
    return r;
  }
  // AMD shows an absolute limit (2048 = unlimited) and no minimum; Intel a percentage >= 10.
  if (top > 100 || r.min_bandwidth == 0) {
    r.unit = MbUnit::kAmdEighthGbs;
    r.max = kAmdMax;
  }
  r.mba = true;
  return r;
}

std::optional<long> mb_set_value(const ResctrlInfo& info, long requested, std::string* why) {
  if (requested < info.min_bandwidth || requested > info.max) {
    if (why)
      *why = "MB value " + std::to_string(requested) + " out of range [" + std::to_string(info.min_bandwidth) + "," +
             std::to_string(info.max) + "] (" + mb_unit_name(info.unit) + ")";
    return std::nullopt;
  }
  const long g = std::max(1L, info.bandwidth_gran);
  return (requested + g - 1) / g * g;
}

std::string mb_schemata_line(const std::vector<MbDomain>& domains, long value) {
  std::string s = "MB:";
  for (std::size_t i = 0; i < domains.size(); ++i) s += (i ? ";" : "") + domains[i].id + "=" + std::to_string(value);
  return s;
}

std::string mb_unit_name(MbUnit u) { return u == MbUnit::kPercent ? "percent" : "1/8 GB/s"; }

}  // namespace hpcsens::sweep
