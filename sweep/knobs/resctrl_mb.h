#pragma once
// What Linux resctrl Memory Bandwidth Allocation offers on this node, and the pure rules of its
// `MB:` schemata line (Documentation/filesystems/resctrl.rst, "Memory bandwidth Allocation";
// fs/resctrl/ctrlmondata.c bw_validate). The unit is never guessed from the numbers:
// - mounted with `mba_MBps` (the mount options, /proc/self/mounts): the software controller,
//   MiB/s per domain, any value 0..4294967295 taken as it is (a new group starts at 4294967295);
// - else Intel RDT (info/MB/delay_linear 1, or info/MB/thread_throttle_mode, which only Intel
//   shows): a percentage, min_bandwidth..100, rounded UP to a multiple of bandwidth_gran (a
//   request of 15 with granularity 10 runs at 20); a non-linear Intel part is refused by the
//   kernel ("No support for non-linear MB domains");
// - else AMD QoS (delay_linear 0, no thread_throttle_mode): an absolute limit per L3 domain in
//   1/8 GB/s, min_bandwidth..the part's maximum, granularity 1. No info file shows that maximum
//   (1 << CPUID 0x80000020 EAX): the kernel starts every new group at it, so it is read from
//   the sweep's own group when that is made (resctrl_groups.h).
// A value outside the range: EINVAL, the reason in info/last_cmd_status.
// The value is a throttle, not a bandwidth: the sweep measures STREAM inside the group.
#include <optional>
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

enum class MbUnit { kPercent, kAmdEighthGbs, kMiBps };

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
  long max = 100;             // the largest value the kernel takes; 0: not known yet (AMD)
  std::vector<MbDomain> domains;
  std::string mount_options;  // of root's resctrl mount, as the mounts file says
  std::string problem;        // why MBA cannot be used here ("" when it can)
};

// The software controller's largest value (MBA_MAX_MBPS, U32_MAX): a new group's value.
inline constexpr long kMbMaxMiBps = 4294967295L;

// Reads root/info/MB, root/schemata and root's line in `mounts_file` (the /proc/self/mounts
// format) through `io` (reads only).
ResctrlInfo probe_resctrl(const SysfsIo& io, const std::string& root, const std::string& mounts_file);
// The same with the mounts file of the installed ResctrlFs (machine_resctrl().mounts_file).
ResctrlInfo probe_resctrl(const SysfsIo& io, const std::string& root);

// The options of the resctrl mount at `root` in mounts-file text ("rw,relatime,mba_MBps");
// nullopt when no resctrl file system is mounted there. Octal escapes (\040) are decoded.
std::optional<std::string> resctrl_mount_options(const std::string& mounts_text, const std::string& root);

// "MB:0=100;1=100" (possibly among other lines) -> its domains; empty when no MB: line.
// Throws std::runtime_error for a malformed MB line.
std::vector<MbDomain> parse_mb_line(const std::string& schemata);

// The value the kernel keeps for `requested`: rounded up to the granularity (not with mba_MBps).
// nullopt and *why when the kernel refuses it (outside [min_bandwidth, max]; max 0: no upper
// bound known yet).
std::optional<long> mb_set_value(const ResctrlInfo& info, long requested, std::string* why);

// "MB:0=50;1=50": `value` on every domain (a group throttles only its own tasks, so domains the
// job does not use are harmless and no CPU list has to be guessed).
std::string mb_schemata_line(const std::vector<MbDomain>& domains, long value);

std::string mb_unit_name(MbUnit u);  // "percent", "1/8 GB/s" or "MiB/s"

}  // namespace hpcsens::sweep
