#include "sweep/cpufreq_sysfs.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace hpcsens::sweep {
namespace {

long read_khz(const SysfsIo& io, const std::string& path) {
  auto v = io.read(path);
  if (!v) throw std::runtime_error("cannot read " + path);
  try {
    return std::stol(*v);
  } catch (const std::exception&) {
    throw std::runtime_error(path + " holds '" + *v + "', not a frequency in kHz");
  }
}

}  // namespace

long CpufreqSysfs::ghz_to_khz(double ghz) { return std::lround(ghz * 1e6); }

CpufreqSysfs::CpufreqSysfs(const SysfsIo& io, const std::string& root) {
  const std::string dir = root + "/devices/system/cpu/cpufreq";
  policies_ = list_subdirs(dir, "policy");
  if (policies_.empty())
    throw std::runtime_error("no cpufreq policies under " + dir +
                             " (this machine has no cpufreq; use the emulated launcher or cpu_backend: slurm)");
  const auto& p0 = policies_.front();
  driver_ = io.read(p0 + "/scaling_driver").value_or("unknown");
  const auto govs = io.read(p0 + "/scaling_available_governors").value_or("");
  std::istringstream gs(govs);
  std::string g;
  while (gs >> g)
    if (g == "userspace") mode_ = Mode::kUserspace;
  min_khz_ = read_khz(io, p0 + "/cpuinfo_min_freq");
  max_khz_ = read_khz(io, p0 + "/cpuinfo_max_freq");
  if (auto list = io.read(p0 + "/scaling_available_frequencies")) {
    std::istringstream ls(*list);
    long k;
    while (ls >> k) listed_khz_.push_back(k);
    std::sort(listed_khz_.begin(), listed_khz_.end());
  }
}

std::vector<double> CpufreqSysfs::available_ghz() const {
  std::vector<double> out;
  if (!listed_khz_.empty()) {
    for (long k : listed_khz_) out.push_back(k / 1e6);
    return out;
  }
  const long step = 100000;
  for (long k = (min_khz_ + step - 1) / step * step; k <= max_khz_; k += step) out.push_back(k / 1e6);
  return out;
}

std::vector<std::string> CpufreqSysfs::files_to_save() const {
  std::vector<std::string> out;
  for (const auto& p : policies_) {
    out.push_back(p + "/scaling_min_freq");
    out.push_back(p + "/scaling_max_freq");
    if (mode_ == Mode::kUserspace) {
      out.push_back(p + "/scaling_governor");
      out.push_back(p + "/scaling_setspeed");
    }
  }
  return out;
}

void CpufreqSysfs::apply(SysfsIo& io, double ghz) const {
  const long khz = ghz_to_khz(ghz);
  if (khz < min_khz_ || khz > max_khz_)
    throw std::runtime_error("requested " + std::to_string(ghz) + " GHz is outside the hardware range " +
                             std::to_string(min_khz_ / 1e6) + "-" + std::to_string(max_khz_ / 1e6) + " GHz");
  for (const auto& p : policies_) {
    if (mode_ == Mode::kUserspace) {
      if (io.read(p + "/scaling_governor").value_or("") != "userspace")
        io.write(p + "/scaling_governor", "userspace");
      io.write(p + "/scaling_setspeed", std::to_string(khz));
    } else {
      write_min_max(io, p + "/scaling_min_freq", p + "/scaling_max_freq", khz, khz);
    }
  }
}

}  // namespace hpcsens::sweep
