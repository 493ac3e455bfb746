#pragma once
// Intel uncore frequency through intel_uncore_frequency sysfs
// (Documentation/admin-guide/pm/intel_uncore_frequency_scaling.rst): one package_XX_die_YY
// directory per package and die, each with min_freq_khz and max_freq_khz. With TPMI there are
// also uncoreNN directories, one per fabric cluster, whose agent_types say what they drive; a
// write at package level rewrites every cluster of the package, the I/O dies (PCIe, UPI: the
// network path) included. So with TPMI only the clusters with core, cache or memory agents are
// written, unless the spec asks for all. The driver keeps values in 100 MHz units.
#include <optional>
#include <string>
#include <vector>

#include "sweep/spec/spec.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

class UncoreSysfs {
 public:
  // Throws std::runtime_error naming the directory when the driver is not loaded.
  UncoreSysfs(const SysfsIo& io, const std::string& root, bool all_domains = false);
  const std::vector<std::string>& domains() const { return domains_; }
  bool tpmi() const { return tpmi_; }
  std::vector<std::string> files_to_save() const;
  // What the driver keeps for a request: each bound truncated to 100 MHz.
  static UncoreSetting set_value(const UncoreSetting& s);
  // Why the driver would not hold `s` on some domain, or "": each bound (as set) must lie within
  // the domain's initial_min_freq_khz..initial_max_freq_khz, the range the hardware booted with
  // (the driver clamps or refuses outside it). Checked for every value when the spec is read, so a
  // bad value is exit 2 before the first point runs, not a failure after earlier points ran.
  std::string limit_problem(const UncoreSetting& s) const;
  // Writes the set value to every domain in the safe order, then reads it back. Throws naming
  // the domain when the value is outside its initial range or the driver shows another.
  void apply(SysfsIo& io, const UncoreSetting& s) const;

 private:
  struct Limits {
    std::optional<long> min_khz, max_khz;  // initial_{min,max}_freq_khz; absent when not shown
  };
  std::vector<std::string> domains_;
  std::vector<Limits> limits_;  // one per domain
  bool tpmi_ = false;
};

}  // namespace hpcsens::sweep
