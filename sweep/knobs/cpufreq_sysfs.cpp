#include "sweep/knobs/cpufreq_sysfs.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
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

std::optional<long> read_number(const SysfsIo& io, const std::string& path) {
  const auto v = io.read(path);
  if (!v || v->empty() || v->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stol(*v);
}

std::vector<long> read_list(const SysfsIo& io, const std::string& path) {
  std::vector<long> out;
  std::istringstream in(io.read(path).value_or(""));
  for (long k; in >> k;) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

// The number N of policyN (the first CPU the policy was created for).
std::string policy_cpu(const std::string& policy) { return policy.substr(policy.rfind("policy") + 6); }

bool intel_driver(const std::string& d) { return d == "intel_pstate" || d == "intel_cpufreq"; }

}  // namespace

std::string ghz_label(long khz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GHz", double(khz) / 1e6);
  return buf;
}

std::optional<long> intel_base_from_turbo_pct(long min_khz, long num_pstates, long turbo_pct) {
  for (long n = num_pstates; n >= 1; --n)
    if (100 - (100 * n) / num_pstates == turbo_pct) return min_khz + (n - 1) * 100000;
  return std::nullopt;
}

long CpufreqSysfs::ghz_to_khz(double ghz) { return std::lround(ghz * 1e6); }

CpufreqSysfs::CpufreqSysfs(const SysfsIo& io, const std::string& root) {
  const std::string cpu = root + "/devices/system/cpu", dir = cpu + "/cpufreq";
  for (const auto& p : list_subdirs(dir, "policy")) {
    const SysfsRead r = io.read_file(p + "/scaling_driver");
    if (r.value) policies_.push_back(p);
    // Every attribute of a policy whose CPUs are all offline opens but answers EBUSY to read().
    else if (r.error == EBUSY) offline_.push_back(p);
    else throw std::runtime_error(r.why + " (not EBUSY, the answer of a policy whose CPUs are all offline; "
                                          "check the policy's permissions)");
  }
  if (policies_.empty())
    throw std::runtime_error("no cpufreq policies under " + dir +
                             " (this machine has no cpufreq: sweep the core clock on nodes that have it, or use the emulated launcher)");
  const auto& p0 = policies_.front();
  driver_ = io.read(p0 + "/scaling_driver").value_or("unknown");
  std::istringstream gs(io.read(p0 + "/scaling_available_governors").value_or(""));
  for (std::string g; gs >> g;)
    if (g == "userspace") mode_ = Mode::kUserspace;
  min_khz_ = read_khz(io, p0 + "/cpuinfo_min_freq");
  max_khz_ = read_khz(io, p0 + "/cpuinfo_max_freq");
  listed_khz_ = read_list(io, p0 + "/scaling_available_frequencies");
  if (auto b = read_number(io, p0 + "/base_frequency"); b && *b > 0) base_khz_ = b;
  // nominal_freq 0: the firmware left the register out (seen on Arm servers): unknown, not 0 GHz.
  else if (auto mhz = read_number(io, cpu + "/cpu" + policy_cpu(p0) + "/acpi_cppc/nominal_freq"); mhz && *mhz > 0)
    base_khz_ = *mhz * 1000;
  else if (!listed_khz_.empty()) base_khz_ = listed_khz_.back();  // boost entries are listed apart
  else if (intel_driver(driver_)) {
    const auto n = read_number(io, cpu + "/intel_pstate/num_pstates"), t = read_number(io, cpu + "/intel_pstate/turbo_pct");
    if (n && t && *n > 0) base_khz_ = intel_base_from_turbo_pct(min_khz_, *n, *t);
  }
  if (io.read(cpu + "/intel_pstate/no_turbo")) turbo_ = TurboFile{cpu + "/intel_pstate/no_turbo", "0", "1"};
  else if (io.read(dir + "/boost")) turbo_ = TurboFile{dir + "/boost", "1", "0"};
}

std::vector<double> CpufreqSysfs::available_ghz(bool turbo) const {
  const long top = turbo || !base_khz_ ? max_khz_ : *base_khz_;
  std::vector<long> khz = listed_khz_;
  if (khz.empty())
    for (long k = (min_khz_ + 99999) / 100000 * 100000; k <= max_khz_; k += 100000) khz.push_back(k);
  if (turbo && !listed_khz_.empty() && max_khz_ > listed_khz_.back()) khz.push_back(max_khz_);
  std::vector<double> out;
  for (long k : khz)
    if (k <= top) out.push_back(k / 1e6);
  return out;
}

long CpufreqSysfs::set_khz(double ghz) const {
  const long k = ghz_to_khz(ghz);
  if (!listed_khz_.empty()) {
    for (long t : listed_khz_)
      if (t >= k) return t;
    return max_khz_;  // above the table: the boost clock
  }
  if (intel_driver(driver_)) return (k + 50000) / 100000 * 100000;
  return k;
}

std::vector<std::string> CpufreqSysfs::files_to_save() const {
  std::vector<std::string> out;
  if (turbo_) out.push_back(turbo_->path);
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

void CpufreqSysfs::amend_saved(std::vector<FileWrite>& saved) const {
  if (!turbo_ || !base_khz_ || *base_khz_ >= max_khz_) return;
  const auto t = std::find_if(saved.begin(), saved.end(), [&](const FileWrite& f) { return f.path == turbo_->path; });
  if (t == saved.end() || t->value != turbo_->off) return;
  const std::string suffix = "/scaling_max_freq";
  for (auto& f : saved)
    if (f.path.size() > suffix.size() && f.path.compare(f.path.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        f.value == std::to_string(*base_khz_))
      f.value = std::to_string(max_khz_);
}

void CpufreqSysfs::apply(SysfsIo& io, long khz, bool turbo) const {
  if (khz < min_khz_ || khz > max_khz_)
    throw std::runtime_error(ghz_label(khz) + " is outside the hardware range " + ghz_label(min_khz_) + " - " +
                             ghz_label(max_khz_));
  if (turbo_) {
    const std::string& want = turbo ? turbo_->on : turbo_->off;
    if (io.read(turbo_->path).value_or("") != want) io.write(turbo_->path, want);
  }
  for (const auto& p : policies_) {
    write_min_max(io, p + "/scaling_min_freq", p + "/scaling_max_freq", khz, khz);
    if (mode_ == Mode::kUserspace) {
      if (io.read(p + "/scaling_governor").value_or("") != "userspace") io.write(p + "/scaling_governor", "userspace");
      io.write(p + "/scaling_setspeed", std::to_string(khz));
    }
    // A driver clamps silently (no_turbo, boost, a platform limit): what it shows is the truth.
    for (const char* f : {"/scaling_min_freq", "/scaling_max_freq"}) {
      const std::string got = io.read(p + f).value_or("unreadable");
      if (got != std::to_string(khz))
        throw std::runtime_error(p + f + " reads " + got + " after writing " + std::to_string(khz) +
                                 " (the driver clamped it: turbo off, or a platform limit)");
    }
  }
}

}  // namespace hpcsens::sweep
