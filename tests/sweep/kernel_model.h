#pragma once
// Test double of the kernel's frequency interfaces: a sysfs tree on disk plus the rules each
// driver applies to a write (Documentation/admin-guide/pm/{cpufreq,intel_pstate,amd-pstate,
// intel_uncore_frequency_scaling}.rst, drivers/cpufreq/*.c).
//
// Why this shape: a plain directory cannot refuse a write, clamp it or round it, or fail a read,
// so a fake tree alone lets the sweep believe whatever it wrote. The model sits BELOW the real
// reader and writer, at the system calls (SysfsCalls in sweep/knobs/sysfs_io.h): RealSysfs's own
// open/read/write code runs, and the model answers each call as the kernel would (an open
// refused, a read(2) that fails with EBUSY, a write(2) refused or clamped). A KernelModel object
// installs it process-wide for its life (hpcsens-kernel-model makes one before running the CLI).
// The model is stateless between calls: the state is
// the tree itself plus the driver's hidden state (QoS requests, the userspace governor's target)
// in <root>/.model/, so a sweep killed with -9 and a later `--restore` in a new process see one
// consistent kernel. Rules enforced:
// - files that do not exist: ENOENT; read-only attributes opened for writing: EACCES (at open,
//   as kernfs does); garbage: EINVAL;
// - every attribute of a policy whose CPUs are all offline opens, but each read(2) and write(2)
//   fails with EBUSY;
// - scaling_setspeed only under the userspace governor; a governor not listed: EINVAL;
// - scaling_min/max_freq are requests: shown clamped to cpuinfo_min..the turbo ceiling
//   (intel_pstate/no_turbo, cpufreq/boost), resolved to the frequency table (acpi-cpufreq) or
//   100 MHz P-states (intel); a min above the max: EINVAL (the pre-QoS kernels' rule, which
//   the sweep's write order must respect anyway);
// - the clock a busy CPU runs at (scaling_cur_freq): the window's max under performance and
//   the pstate drivers, the governor target rounded up to the table (acpi-cpufreq), and only a
//   floor under intel_cpufreq with HWP and amd-pstate guided;
// - intel_uncore_frequency: values truncated to 100 MHz; with TPMI a package_XX_die_YY write
//   also rewrites every uncoreNN of that package, I/O dies included.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep::testing {

struct KernelLayout {
  std::string name;    // test parameter name
  std::string driver;  // acpi-cpufreq, intel_pstate, intel_cpufreq, amd-pstate-epp, amd-pstate (guided/passive), cppc_cpufreq
  std::string amd_mode;           // amd-pstate: "guided" or "passive"
  bool hwp = false;               // intel: HWP present (base_frequency listed)
  bool turbo_on = true;           // boot state of no_turbo / boost
  int policies = 2;
  int cpus_per_policy = 1;
  std::vector<int> offline_cpus;  // their policies are inactive (EBUSY)
  std::string uncore;             // "", "legacy", "tpmi"
  long min_khz = 800000, base_khz = 2400000, turbo_khz = 3500000;
  std::vector<long> table;        // acpi-cpufreq: non-boost frequencies
};

// Every layout the lifecycle test runs over.
std::vector<KernelLayout> all_layouts();

// Writes the tree of `l` under `root` as the kernel shows it after boot.
void build_layout(const std::string& root, const KernelLayout& l);

// The real reader and writer (RealSysfs) over the model's system calls, installed while any
// KernelModel lives.
class KernelModel : public RealSysfs {
 public:
  KernelModel();
  ~KernelModel() override;
  KernelModel(const KernelModel&) = delete;
  KernelModel& operator=(const KernelModel&) = delete;
};

// The model's state for a tree: every file under root (the hidden .model/ state included),
// path relative to root -> contents. Two equal snapshots are the same kernel state.
std::map<std::string, std::string> snapshot(const std::string& root);

}  // namespace hpcsens::sweep::testing
