#include "sweep/uncore_sysfs.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace hpcsens::sweep {

UncoreSysfs::UncoreSysfs(const SysfsIo& io, const std::string& root) {
  const std::string dir = root + "/devices/system/cpu/intel_uncore_frequency";
  for (const char* prefix : {"package_", "uncore"})
    for (auto& d : list_subdirs(dir, prefix))
      if (io.read(d + "/min_freq_khz") && io.read(d + "/max_freq_khz")) domains_.push_back(d);
  if (domains_.empty())
    throw std::runtime_error("no uncore frequency domains under " + dir +
                             " (load the intel_uncore_frequency module, or drop knobs.uncore_ghz)");
}

std::vector<std::string> UncoreSysfs::files_to_save() const {
  std::vector<std::string> out;
  for (const auto& d : domains_) {
    out.push_back(d + "/min_freq_khz");
    out.push_back(d + "/max_freq_khz");
  }
  return out;
}

void UncoreSysfs::apply(SysfsIo& io, const UncoreSetting& s) const {
  const long lo = std::lround(s.min_ghz * 1e6), hi = std::lround(s.max_ghz * 1e6);
  for (const auto& d : domains_) {
    // The driver clamps silently to the range it booted with; say so instead.
    const auto floor = io.read(d + "/initial_min_freq_khz"), ceil = io.read(d + "/initial_max_freq_khz");
    if ((floor && lo < std::atol(floor->c_str())) || (ceil && hi > std::atol(ceil->c_str())))
      throw std::runtime_error("uncore " + std::to_string(s.min_ghz) + "-" + std::to_string(s.max_ghz) +
                               " GHz is outside " + d + "'s range " + floor.value_or("?") + "-" +
                               ceil.value_or("?") + " kHz");
    write_min_max(io, d + "/min_freq_khz", d + "/max_freq_khz", lo, hi);
  }
}

}  // namespace hpcsens::sweep
