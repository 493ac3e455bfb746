#pragma once
// Test double of the kernel's resctrl filesystem (Documentation/filesystems/resctrl.rst,
// fs/resctrl/rdtgroup.c and ctrlmondata.c), for the memory_backend: resctrl knob. Like the
// kernel model, its state is a directory tree on disk (so a forked child's tasks write, a
// kill -9 and a later --restore in a new process all see one filesystem); every mkdir, rmdir
// and write the sweep makes goes through ResctrlModel, which applies the kernel's rules:
// - the mount: a fake mount table (.model/mounts, the /proc/mounts format, mounts_file()) says
//   how the tree is mounted: with mba_MBps the MB: unit is MiB/s (the software controller);
// - mkdir makes a group with schemata (every resource at its default: MB at the maximum,
//   4294967295 with mba_MBps), tasks, cpus_list, mode; a name that exists: EEXIST; more groups
//   than num_closids - 1: ENOSPC "Out of CLOSIDs"; with monitoring (info/L3_MON/num_rmids) each
//   group takes an RMID, and an rmdir'd group's RMID stays dirty (in limbo) for the rest of the
//   test: none free is "Out of RMIDs", EBUSY while some are in limbo, else ENOSPC (fs/resctrl/
//   monitor.c alloc_rmid);
// - schemata: a line per resource "RES:dom=val;..."; an unknown resource or domain, or a
//   malformed entry: EINVAL; an MB value outside [min_bandwidth, max]: EINVAL; else rounded UP
//   to bandwidth_gran (with mba_MBps: any 32-bit value, kept as it is); only the named domains
//   change; nothing changes when one entry is refused; info/last_cmd_status says "ok" or why;
// - tasks: a pid that is not alive: ESRCH; a task lives in exactly one group (a write moves it);
// - rmdir moves the group's tasks back to the default group; the default group and info
//   cannot be removed (EBUSY / EPERM); a missing group: ENOENT.
#include <string>
#include <vector>

#include "sweep/knobs/resctrl_fs.h"

namespace hpcsens::sweep::testing {

struct ResctrlLayout {
  bool amd = false;  // AMD QoS: 1/8 GB/s units, max amd_max, min 0, granularity 1, delay not linear
  std::vector<std::string> domains = {"0", "1"};
  long min_bandwidth = 10, bandwidth_gran = 10;
  int num_closids = 8;
  bool mba = true;  // false: resctrl mounted with L3 allocation only (no info/MB, no MB: line)
  bool mba_mbps = false;  // mounted with -o mba_MBps: MB: values in MiB/s
  long amd_max = 2048;    // 1 << CPUID 0x80000020 EAX: shown by no info file, only by a new group
  long default_mb = -1;   // the default group's MB: value (-1: the maximum; else capped by an admin)
  int num_rmids = 0;      // info/L3_MON/num_rmids (0: no monitoring)
  std::string mount_point;  // where the mount table says it is ("": where it is built)
};

// Writes a freshly mounted resctrl tree under `root`.
void build_resctrl(const std::string& root, const ResctrlLayout& l);

class ResctrlModel : public ResctrlFs {
 public:
  void write(const std::string& path, const std::string& value) override;
  void make_group(const std::string& root, const std::string& name) override;
  void remove_group(const std::string& root, const std::string& name) override;
  std::string mounts_file(const std::string& root) const override { return root + "/.model/mounts"; }
};

}  // namespace hpcsens::sweep::testing
