#pragma once
// What Linux resctrl Memory Bandwidth Allocation offers on this node, and the pure rules of its
// `MB:` schemata line (Documentation/filesystems/resctrl.rst, "Memory bandwidth Allocation";
// arch/x86/kernel/cpu/resctrl/ctrlmondata.c bw_validate):
// - one value per domain (an L3 cache id), "MB:0=70;1=70";
// - Intel RDT: a percentage of the full bandwidth, min_bandwidth..100, rounded UP by the kernel
//   to a multiple of bandwidth_gran (a request of 15 with granularity 10 runs at 20);
// - AMD QoS: an absolute limit per L3 domain in units of 1/8 GB/s, 0..2048 (2048 = unlimited),
//   granularity 1;
// - a value outside [min_bandwidth, max]: EINVAL, the reason in info/last_cmd_status.
// The value is a throttle, not a bandwidth: the sweep measures STREAM inside the group.
#include <optional>
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

enum class MbUnit { kPercent, kAmdEighthGbs };

struct MbDomain {
  std::string id;  // domain id as the schemata line names it
  long value = 0;  // the default group's value (its maximum when unthrottled)
};

struct ResctrlInfo {
  std::string root;           // e.g. /sys/fs/resctrl
  bool mounted = false;       // root/info exists
  bool mba = false;           // info/MB and an MB: line in the default group's schemata
  long min_bandwidth = 0;
  long bandwidth_gran = 1;
  MbUnit unit = MbUnit::kPercent;
  long max = 100;             // 100 (percent) or 2048 (AMD units)
  std::vector<MbDomain> domains;
  std::string problem;        // why MBA cannot be used here ("" when it can)
};

// Reads root/info/MB and root/schemata through `io` (reads only).
ResctrlInfo probe_resctrl(const SysfsIo& io, const std::string& root);

// "MB:0=100;1=100" (possibly among other lines) -> its domains; empty when no MB: line.
// Throws std::runtime_error for a malformed MB line.
std::vector<MbDomain> parse_mb_line(const std::string& schemata);

// The value the kernel keeps for `requested`: rounded up to the granularity. nullopt and *why
// when the kernel refuses it (outside [min_bandwidth, max]).
std::optional<long> mb_set_value(const ResctrlInfo& info, long requested, std::string* why);

// "MB:0=50;1=50": `value` on every domain (a group throttles only its own tasks, so domains the
// job does not use are harmless and no CPU list has to be guessed).
std::string mb_schemata_line(const std::vector<MbDomain>& domains, long value);

std::string mb_unit_name(MbUnit u);  // "percent" or "1/8 GB/s"

}  // namespace hpcsens::sweep
