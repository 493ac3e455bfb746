#pragma once
// Core frequency through Linux cpufreq sysfs (one policy directory per frequency domain), the
// way each driver needs it (Documentation/admin-guide/pm/{cpufreq,intel_pstate,amd-pstate}.rst):
// - every driver: scaling_min_freq = scaling_max_freq = the clock, written in the order that
//   keeps min <= max. Pinning the window is what holds the clock where scaling_setspeed is only
//   a floor (intel_cpufreq with HWP, amd-pstate guided) and the only way without a userspace
//   governor (intel_pstate active, amd-pstate-epp);
// - with a userspace governor also governor := userspace, scaling_setspeed := the clock;
// - turbo/boost (intel_pstate/no_turbo, cpufreq/boost) set explicitly before the window: off
//   unless the spec asks for it, so a point is never silently clamped or boosted;
// - a value the driver cannot run is rounded the way the driver would (recorded as set) or
//   refused; after writing, the window is read back and must hold the clock.
// Policies whose CPUs are all offline answer EBUSY to every read: skipped, and said.
#include <optional>
#include <string>
#include <vector>

#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

// The machine-wide turbo switch and what it holds for "turbo on" and "turbo off".
struct TurboFile {
  std::string path;
  std::string on, off;
};

class CpufreqSysfs {
 public:
  enum class Mode { kUserspace, kPinMinMax };

  // Reads the policies under <root>/devices/system/cpu/cpufreq; throws std::runtime_error
  // naming the directory when there is none, or naming the file when an online policy cannot
  // be read.
  CpufreqSysfs(const SysfsIo& io, const std::string& root);

  Mode mode() const { return mode_; }
  const std::string& driver() const { return driver_; }
  const std::vector<std::string>& policies() const { return policies_; }          // online
  const std::vector<std::string>& offline_policies() const { return offline_; }  // skipped
  long cpuinfo_min_khz() const { return min_khz_; }
  long cpuinfo_max_khz() const { return max_khz_; }
  std::optional<long> base_khz() const { return base_khz_; }
  const std::optional<TurboFile>& turbo() const { return turbo_; }

  // The values of "all": the driver's table, else cpuinfo_min..max in 100 MHz steps (the
  // P-state granularity of intel_pstate and amd-pstate); up to the base clock unless `turbo`.
  // Ascending, in GHz.
  std::vector<double> available_ghz(bool turbo) const;

  // The clock the driver runs a request at: the lowest table entry at or above it (the
  // userspace governor's CPUFREQ_RELATION_L), the nearest 100 MHz P-state (intel), else itself.
  long set_khz(double ghz) const;

  // Every file apply() may change, in the order their originals are saved (turbo first).
  std::vector<std::string> files_to_save() const;
  // Saved while turbo was off, scaling_max_freq shows the base clock whatever the max request
  // behind it: saved as cpuinfo_max_freq (the request the driver boots with) so that restoring
  // it does not leave a lower hidden limit behind once turbo is back on.
  void amend_saved(std::vector<FileWrite>& saved) const;

  // Sets every online policy to `khz` (a set_khz value) with turbo as asked. Throws naming the
  // file when a write is refused or the driver shows another window afterwards.
  void apply(SysfsIo& io, long khz, bool turbo) const;

  static long ghz_to_khz(double ghz);

 private:
  std::vector<std::string> policies_, offline_;
  std::string driver_;
  Mode mode_ = Mode::kPinMinMax;
  long min_khz_ = 0, max_khz_ = 0;
  std::optional<long> base_khz_;
  std::optional<TurboFile> turbo_;
  std::vector<long> listed_khz_;
};

// "2.4 GHz" for 2400000 kHz: how messages name a clock.
std::string ghz_label(long khz);

// The base (non-turbo) clock from intel_pstate's num_pstates and turbo_pct, inverted from
// show_turbo_pct(): turbo_pct = 100 - floor(100 * non_turbo / total). nullopt when no count fits.
std::optional<long> intel_base_from_turbo_pct(long min_khz, long num_pstates, long turbo_pct);

}  // namespace hpcsens::sweep
