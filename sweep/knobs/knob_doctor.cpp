#include "sweep/knobs/knob_doctor.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/core.h>

#include "common/text_escape.h"
#include "sweep/knobs/cpufreq_sysfs.h"
#include "sweep/knobs/knob_backend.h"
#include "sweep/knobs/resctrl_mb.h"
#include "sweep/knobs/uncore_sysfs.h"

namespace hpcsens::sweep {
namespace {

using Status = KnobCheck::Status;

// intel_pstate and amd-pstate say their operation mode in a status file.
std::string driver_mode(const SysfsIo& io, const std::string& cpu, const std::string& driver) {
  for (const char* f : {"/intel_pstate/status", "/amd_pstate/status"})
    if (auto s = io.read(cpu + f); s && !s->empty()) return driver + " (" + *s + " mode)";
  return driver;
}

KnobCheck driver_check(const SysfsIo& io, const std::string& cpu, const CpufreqSysfs& c) {
  KnobCheck k{"cpufreq driver", Status::kOk, "", ""};
  k.detail = fmt::format("{}, {} policies, {} - {}", driver_mode(io, cpu, c.driver()), c.policies().size(),
                         ghz_label(c.cpuinfo_min_khz()), ghz_label(c.cpuinfo_max_khz()));
  k.detail += c.base_khz() ? ", base " + ghz_label(*c.base_khz()) : ", base clock not shown";
  if (c.turbo()) k.detail += fmt::format(", turbo {} now ({})", io.read(c.turbo()->path) == c.turbo()->on ? "on" : "off",
                                         c.turbo()->path.substr(cpu.size() + 1));
  else k.detail += ", no turbo switch";
  for (const auto& p : c.offline_policies()) k.detail += "; " + p.substr(p.rfind('/') + 1) + " offline (skipped)";
  return k;
}

// access(W_OK) says yes to root for any file, so a write permission bit is required too:
// sysfs attributes without one reject writes even from root.
bool writable(const std::string& path) {
  std::error_code ec;
  const auto perms = std::filesystem::status(path, ec).permissions();
  const auto w = std::filesystem::perms::owner_write | std::filesystem::perms::group_write |
                 std::filesystem::perms::others_write;
  return !ec && (perms & w) != std::filesystem::perms::none && ::access(path.c_str(), W_OK) == 0;
}

KnobCheck cpufreq_backend_check(const CpufreqSysfs& c) {
  KnobCheck k{"cpu_backend: cpufreq", Status::kOk, "", ""};
  const std::string max = c.policies().front() + "/scaling_max_freq";
  if (!writable(max)) {
    k.status = Status::kMissing;
    k.detail = max + " is not writable";
    k.fix = "run the sweep as root (sysfs attributes without a write bit cannot be written at all)";
    return k;
  }
  k.detail = c.mode() == CpufreqSysfs::Mode::kUserspace
                 ? "works: pins scaling_min_freq = scaling_max_freq and sets the userspace governor's scaling_setspeed"
                 : "works: pins scaling_min_freq = scaling_max_freq (" + c.driver() + " has no userspace governor)";
  k.detail += "; turbo off for the sweep unless knobs.turbo: on";
  return k;
}

KnobCheck slurm_check(const SysfsIo& io, const std::string& root, bool srun_found) {
  KnobCheck k{"cpu_backend: slurm", Status::kOk, "", ""};
  std::string driver;
  const auto why = slurm_cpu_freq_problem(io, root, &driver);
  if (!srun_found) {
    k.status = Status::kInfo;
    k.detail = "no srun in PATH (not a Slurm node)";
  } else if (!why.empty()) {
    k.status = Status::kMissing;
    k.detail = "refused: " + why;
  } else {
    k.detail = "works: srun --cpu-freq reaches " + driver + "'s userspace governor (Slurm does not check; "
               "calibration.clock measures whether it took)";
  }
  return k;
}

KnobCheck uncore_check(const SysfsIo& io, const std::string& root) {
  KnobCheck k{"uncore frequency", Status::kOk, "", ""};
  try {
    const UncoreSysfs compute(io, root), all(io, root, true);
    k.detail = compute.tpmi()
                   ? fmt::format("TPMI: {} compute fabric cluster(s) swept, {} I/O cluster(s) left alone "
                                 "(knobs.uncore_domains: all includes them)", compute.domains().size(),
                                 all.domains().size() - compute.domains().size())
                   : fmt::format("{} package/die domain(s)", compute.domains().size());
  } catch (const std::exception& e) {
    k.status = Status::kMissing;
    k.detail = e.what();
    k.fix = "modprobe intel_uncore_frequency (Intel servers; not on AMD or in most VMs)";
  }
  return k;
}

// The same probe the resctrl backend makes, so doctor's spec is one the sweep accepts here.
KnobCheck resctrl_check(const SysfsIo& io, const std::string& root) {
  KnobCheck k{"resctrl MBA", Status::kOk, "", ""};
  const std::string rc = root + "/fs/resctrl";
  const auto info = probe_resctrl(io, rc);
  if (!info.mba) {
    k.status = Status::kMissing;
    k.detail = info.problem + ": memory bandwidth cannot be throttled live here";
    k.fix = info.mounted ? "memory configurations can still be declared (knobs.memory)"
                         : "mount -t resctrl resctrl " + rc + " on a CPU with Memory Bandwidth Allocation (flags "
                           "rdt_a and mba, or AMD's L3 bandwidth enforcement); else declare memory configurations "
                           "(knobs.memory)";
    return k;
  }
  const bool pct = info.unit == MbUnit::kPercent;
  const long g = info.bandwidth_gran;
  // AMD's maximum shows only in a new group; the default group's value is one the kernel took.
  long top = info.max;
  for (const auto& d : info.domains) top = info.max > 0 ? top : std::max(top, d.value);
  const long mid = pct ? (50 + g - 1) / g * g : top / 2, low = pct ? std::max(info.min_bandwidth, (20 + g - 1) / g * g) : top / 5;
  const std::string unit = pct ? "%" : info.unit == MbUnit::kMiBps ? "MiB/s per domain (mounted with mba_MBps)"
                                                                    : "x 1/8 GB/s per L3 domain";
  k.detail = fmt::format("Memory Bandwidth Allocation at {}: {} domains, MB: {}-{} {} in steps of {}{} (a throttle, not "
                         "GB/s: the sweep measures STREAM inside its group); spec: knobs: {{memory_backend: "
                         "resctrl, mem_bw: [{}, {}, {}]}}",
                         rc, info.domains.size(), info.min_bandwidth,
                         info.max > 0 ? std::to_string(info.max) : "the part's maximum (a new group's value)", unit,
                         info.unit == MbUnit::kMiBps ? 1 : g, pct ? " %" : "", top, mid, low);
  return k;
}

// knobs: lines the sweep accepts on this node: three clocks from the lowest to the base one.
KnobCheck spec_check(const CpufreqSysfs& c, bool uncore) {
  KnobCheck k{"spec for this node", Status::kInfo, "", ""};
  const auto v = c.available_ghz(false);
  if (v.empty() || !c.base_khz()) {
    k.detail = "knobs: {cpu_ghz: [LIST], turbo: off}  (the base clock is not shown: list clocks at or below it)";
    return k;
  }
  std::vector<double> pick = {v.front(), v[v.size() / 2], v.back()};
  pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
  std::string list;
  for (double g : pick) list += (list.empty() ? "" : ", ") + fmt::format("{:g}", g);
  k.detail = "knobs: {cpu_ghz: [" + list + "], cpu_backend: cpufreq, turbo: off" +
             (uncore ? std::string(", uncore_ghz: [LOW, HIGH]") : "") + "}";
  return k;
}

}  // namespace

std::vector<KnobCheck> knob_checks(const SysfsIo& io, const std::string& sys_root, bool srun_found) {
  const std::string cpu = sys_root + "/devices/system/cpu";
  std::vector<KnobCheck> out;
  std::optional<CpufreqSysfs> c;
  try {
    c.emplace(io, sys_root);
  } catch (const std::exception& e) {
    out.push_back({"cpufreq driver", Status::kMissing, e.what(),
                   "load a cpufreq driver (intel_pstate, amd-pstate, acpi-cpufreq); VMs usually have none: sweep "
                   "the core clock on bare metal, or use the emulated launcher"});
  }
  if (c) {
    out.push_back(driver_check(io, cpu, *c));
    out.push_back(cpufreq_backend_check(*c));
  }
  out.push_back(slurm_check(io, sys_root, srun_found));
  const auto uncore = uncore_check(io, sys_root);
  out.push_back(uncore);
  out.push_back(resctrl_check(io, sys_root));
  if (c) out.push_back(spec_check(*c, uncore.status == Status::kOk));
  // Details quote the kernel (driver names, status files, paths): no escape sequence reaches the screen.
  for (auto& k : out) k.detail = text::escape_for_message(k.detail);
  return out;
}

}  // namespace hpcsens::sweep
