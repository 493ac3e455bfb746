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
  // Writes the set value to every domain in the safe order, then reads it back. Throws naming
  // the domain when the value is outside its initial range or the driver shows another.
  void apply(SysfsIo& io, const UncoreSetting& s) const;

 private:
  std::vector<std::string> domains_;
  bool tpmi_ = false;
};

}  // namespace hpcsens::sweep
