#pragma once
// Intel uncore frequency through intel_uncore_frequency sysfs: one directory per package and
// die (package_XX_die_YY, or uncoreNN with TPMI), each with min_freq_khz and max_freq_khz.
#include <string>
#include <vector>

#include "sweep/spec.h"
#include "sweep/sysfs_io.h"

namespace hpcsens::sweep {

class UncoreSysfs {
 public:
  // Throws std::runtime_error naming the directory when the driver is not loaded.
  UncoreSysfs(const SysfsIo& io, const std::string& root);
  const std::vector<std::string>& domains() const { return domains_; }
  std::vector<std::string> files_to_save() const;
  void apply(SysfsIo& io, const UncoreSetting& s) const;

 private:
  std::vector<std::string> domains_;
};

}  // namespace hpcsens::sweep
