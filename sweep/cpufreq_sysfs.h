#pragma once
// Core frequency through Linux cpufreq sysfs (one policy directory per frequency domain).
// With a userspace governor (acpi-cpufreq, amd-pstate passive/guided, cppc): governor :=
// userspace, scaling_setspeed := kHz. Without one (intel_pstate, amd-pstate-epp active mode):
// pin scaling_min_freq = scaling_max_freq = kHz, written in the order that keeps min <= max.
#include <string>
#include <vector>

#include "sweep/sysfs_io.h"

namespace hpcsens::sweep {

class CpufreqSysfs {
 public:
  enum class Mode { kUserspace, kPinMinMax };

  // Reads the policies under <root>/devices/system/cpu/cpufreq; throws std::runtime_error when
  // there is none (no cpufreq on this machine) naming the directory.
  CpufreqSysfs(const SysfsIo& io, const std::string& root);

  Mode mode() const { return mode_; }
  const std::string& driver() const { return driver_; }
  const std::vector<std::string>& policies() const { return policies_; }
  long cpuinfo_min_khz() const { return min_khz_; }
  long cpuinfo_max_khz() const { return max_khz_; }

  // scaling_available_frequencies when the driver lists them, else cpuinfo_min..max in
  // 100 MHz steps (the P-state granularity of intel_pstate and amd-pstate). Ascending, in GHz.
  std::vector<double> available_ghz() const;

  // Every file apply() may change, in the order their originals are saved.
  std::vector<std::string> files_to_save() const;

  // Sets every policy to `ghz`. Throws when the value lies outside cpuinfo_min..max.
  void apply(SysfsIo& io, double ghz) const;

  static long ghz_to_khz(double ghz);

 private:
  std::vector<std::string> policies_;
  std::string driver_;
  Mode mode_ = Mode::kPinMinMax;
  long min_khz_ = 0, max_khz_ = 0;
  std::vector<long> listed_khz_;
};

}  // namespace hpcsens::sweep
