#include "sweep/knobs/uncore_sysfs.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

long to_khz(double ghz) { return std::lround(ghz * 1e6) / 100000 * 100000; }

// A TPMI cluster that drives compute: cores, caches or memory (not only I/O).
bool compute_cluster(const SysfsIo& io, const std::string& dir) {
  std::istringstream in(io.read(dir + "/agent_types").value_or(""));
  for (std::string a; in >> a;)
    if (a == "core" || a == "cache" || a == "memory") return true;
  return false;
}

}  // namespace

UncoreSysfs::UncoreSysfs(const SysfsIo& io, const std::string& root, bool all_domains) {
  const std::string dir = root + "/devices/system/cpu/intel_uncore_frequency";
  auto usable = [&](const std::string& d) { return io.read(d + "/min_freq_khz") && io.read(d + "/max_freq_khz"); };
  for (auto& d : list_subdirs(dir, "uncore")) {
    tpmi_ = true;
    if (usable(d) && (all_domains || compute_cluster(io, d))) domains_.push_back(d);
  }
  if (!tpmi_)
    for (auto& d : list_subdirs(dir, "package_"))
      if (usable(d)) domains_.push_back(d);
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

UncoreSetting UncoreSysfs::set_value(const UncoreSetting& s) {
  return {to_khz(s.min_ghz) / 1e6, to_khz(s.max_ghz) / 1e6};
}

void UncoreSysfs::apply(SysfsIo& io, const UncoreSetting& s) const {
  const long lo = to_khz(s.min_ghz), hi = to_khz(s.max_ghz);
  for (const auto& d : domains_) {
    // The hardware clamps silently to the range it booted with; say so instead.
    const auto floor = io.read(d + "/initial_min_freq_khz"), ceil = io.read(d + "/initial_max_freq_khz");
    if ((floor && lo < std::atol(floor->c_str())) || (ceil && hi > std::atol(ceil->c_str())))
      throw std::runtime_error("uncore " + std::to_string(s.min_ghz) + "-" + std::to_string(s.max_ghz) +
                               " GHz is outside " + d + "'s range " + floor.value_or("?") + "-" +
                               ceil.value_or("?") + " kHz");
    write_min_max(io, d + "/min_freq_khz", d + "/max_freq_khz", lo, hi);
    for (const auto& [f, want] : {std::pair{"/min_freq_khz", lo}, std::pair{"/max_freq_khz", hi}}) {
      const std::string got = io.read(d + f).value_or("unreadable");
      if (got != std::to_string(want))
        throw std::runtime_error(d + f + " reads " + got + " after writing " + std::to_string(want));
    }
  }
}

}  // namespace hpcsens::sweep
