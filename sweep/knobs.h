#pragma once
// The knobs one sweep uses, built from the spec: which backends, which files they touch, what
// must be saved first and how a point is applied. Slurm knobs and declared memory
// configurations change the job's command line instead of the machine.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/cpufreq_sysfs.h"
#include "sweep/launch_argv.h"
#include "sweep/plan.h"
#include "sweep/spec.h"
#include "sweep/uncore_sysfs.h"

namespace hpcsens::sweep {

class KnobSet {
 public:
  // Probes the sysfs backends the spec needs (through `io`, so a dry run reads but never
  // writes). Throws hpcsens::InputError naming the spec field when a requested knob is not
  // available here, or a value is outside the hardware range.
  KnobSet(const SweepSpec& spec, const SysfsIo& io);

  // The CPU values to sweep: the spec's list, or every available frequency for "all".
  const std::vector<double>& cpu_values() const { return cpu_values_; }

  // True when applying a point changes machine state that must be restored.
  bool changes_machine() const;
  std::vector<std::string> files_to_save() const;
  std::vector<Argv> restore_commands() const;  // likwid resets

  // Machine-side changes for the point (sysfs writes through `io`, likwid commands returned
  // for the caller to run, so a dry run can list them).
  std::vector<Argv> apply(SysfsIo& io, const Point& p) const;

  // The job's command line at this point (srun --cpu-freq, memory configuration reach).
  Argv job_argv(const Argv& base, const Point& p) const;

  std::string describe() const;  // e.g. "cpufreq sysfs (intel_pstate, min=max pinning)"

 private:
  const SweepSpec& spec_;
  std::optional<CpufreqSysfs> cpufreq_;
  std::optional<UncoreSysfs> uncore_;
  std::vector<double> cpu_values_;
};

}  // namespace hpcsens::sweep
