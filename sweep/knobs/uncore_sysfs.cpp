#include "sweep/knobs/uncore_sysfs.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

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

// A kHz value the driver shows, or nullopt when the file is absent or not a number.
std::optional<long> read_limit_khz(const SysfsIo& io, const std::string& path) {
  const auto v = io.read(path);
  if (!v || v->empty() || v->size() > 12 || v->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stol(*v);
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
  for (const auto& d : domains_)
    limits_.push_back({read_limit_khz(io, d + "/initial_min_freq_khz"), read_limit_khz(io, d + "/initial_max_freq_khz")});
}

std::string UncoreSysfs::limit_problem(const UncoreSetting& s) const {
  const long lo = to_khz(s.min_ghz), hi = to_khz(s.max_ghz);
  for (std::size_t i = 0; i < domains_.size(); ++i) {
    const auto& l = limits_[i];
    const std::string name = domains_[i].substr(domains_[i].rfind('/') + 1);
    if (l.max_khz && hi > *l.max_khz)
      return fmt::format("{:g} GHz is above {}'s initial_max_freq_khz {} ({:g} GHz), the highest clock its hardware "
                         "takes; use values up to {:g} GHz (hpcsens doctor lists the domains)",
                         hi / 1e6, name, *l.max_khz, *l.max_khz / 1e6, *l.max_khz / 1e6);
    if (l.min_khz && lo < *l.min_khz)
      return fmt::format("{:g} GHz is below {}'s initial_min_freq_khz {} ({:g} GHz), the lowest clock its hardware "
                         "takes; use values from {:g} GHz", lo / 1e6, name, *l.min_khz, *l.min_khz / 1e6,
                         *l.min_khz / 1e6);
  }
  return "";
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
