#pragma once
// What this node's frequency and memory knobs can do, for `hpcsens doctor`: the cpufreq driver
// and its mode, turbo, the base clock, offline CPUs, which core-clock backends will work and
// which will not (and why), uncore (legacy or TPMI), resctrl memory bandwidth allocation, and
// the knobs: lines of a spec the sweep accepts here. Read through SysfsIo below a root, so the
// kernel model in tests/sweep answers as a driver would; built from the same probes the sweep
// uses, so the advice cannot contradict what the sweep will do.
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

struct KnobCheck {
  enum class Status { kOk, kMissing, kInfo };
  std::string name;
  Status status = Status::kOk;
  std::string detail;
  std::string fix;
};

// `sys_root` is the sysfs root (/sys); `srun_found` whether srun is in PATH.
std::vector<KnobCheck> knob_checks(const SysfsIo& io, const std::string& sys_root, bool srun_found);

}  // namespace hpcsens::sweep
