// Core frequency through Linux cpufreq sysfs (see cpufreq_sysfs.h for what each driver needs).
#include <cstdio>

#include <fmt/core.h>

#include "common/errors.h"
#include "sweep/knobs/cpufreq_sysfs.h"
#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class CpufreqBackend : public KnobBackend {
 public:
  CpufreqBackend(const SysfsIo& io, const SweepSpec& spec) : sysfs_(io, spec.sysfs_root), turbo_(spec.turbo) {
    if (spec.cpu_all_available && !spec.turbo && !sysfs_.base_khz())
      throw std::runtime_error("\"all\" stops at the base clock, which " + sysfs_.driver() +
                               " does not show here; list the values, or set knobs.turbo: on to sweep up to " +
                               ghz_label(sysfs_.cpuinfo_max_khz()));
    values_ = spec.cpu_all_available ? sysfs_.available_ghz(spec.turbo) : spec.cpu_ghz;
  }
  std::string name() const override { return "cpufreq"; }
  std::string describe() const override {
    std::string d = "cpu: cpufreq sysfs (" + sysfs_.driver() + ", " +
                    (sysfs_.mode() == CpufreqSysfs::Mode::kUserspace ? "userspace governor + scaling_setspeed, min = max"
                                                                     : "scaling_min_freq = scaling_max_freq pinning") +
                    ", " + std::to_string(sysfs_.policies().size()) + " policies";
    d += sysfs_.turbo() ? fmt::format(", turbo {} for the sweep", turbo_ ? "on" : "off") : ", no turbo switch";
    d += sysfs_.base_khz() ? ", base " + ghz_label(*sysfs_.base_khz()) : ", base clock unknown";
    if (!sysfs_.offline_policies().empty()) {
      d += "; skipped (every CPU offline):";
      for (const auto& p : sysfs_.offline_policies()) d += " " + p.substr(p.rfind('/') + 1);
    }
    return d + ")";
  }
  std::optional<std::vector<double>> cpu_values() const override { return values_; }
  bool changes_machine() const override { return true; }
  std::vector<std::string> files_to_save() const override { return sysfs_.files_to_save(); }
  void amend_saved(std::vector<FileWrite>& saved) const override { sysfs_.amend_saved(saved); }
  std::vector<Argv> apply(SysfsIo& io, const Point& p) const override {
    if (p.cpu_ghz) sysfs_.apply(io, sysfs_.set_khz(*p.cpu_ghz), turbo_);
    return {};
  }
  std::optional<double> cpu_set_ghz(double requested) const override { return sysfs_.set_khz(requested) / 1e6; }
  bool above_base(double requested) const override {
    return sysfs_.base_khz() && sysfs_.set_khz(requested) > *sysfs_.base_khz();
  }
  // Checked once, before anything changes: the hardware range, the base clock with turbo off,
  // and values the driver would round when the spec says refuse.
  std::string problem(bool round_to_table) const {
    for (double g : values_) {
      const long k = CpufreqSysfs::ghz_to_khz(g), set = sysfs_.set_khz(g);
      if (k < sysfs_.cpuinfo_min_khz() || k > sysfs_.cpuinfo_max_khz())
        return fmt::format("{:g} GHz is outside this machine's range {} - {}", g, ghz_label(sysfs_.cpuinfo_min_khz()),
                           ghz_label(sysfs_.cpuinfo_max_khz()));
      if (!turbo_ && sysfs_.base_khz() && set > *sysfs_.base_khz())
        return fmt::format("{:g} GHz is above the base clock {}: with knobs.turbo: off (the default) every point "
                           "runs at or below base; set knobs.turbo: on to sweep into the turbo range (those points "
                           "are flagged, their clock is whatever turbo gives)", g, ghz_label(*sysfs_.base_khz()));
      if (!round_to_table && set != k)
        return fmt::format("{:g} GHz is not a clock {} runs; it would run at {} (set knobs.cpu_rounding: table to "
                           "accept that, recorded as set, or list the available values: hpcsens doctor)",
                           g, sysfs_.driver(), ghz_label(set));
    }
    return "";
  }

 private:
  CpufreqSysfs sysfs_;
  bool turbo_;
  std::vector<double> values_;
};

}  // namespace

std::unique_ptr<KnobBackend> make_cpufreq_backend(const SweepSpec& spec, const SysfsIo& io) {
  const bool wanted = !spec.cpu_ghz.empty() || spec.cpu_all_available;
  if (spec.cpu_all_available && (spec.emulation || spec.cpu_backend != CpuBackend::kCpufreq))
    throw InputError(spec_line(spec, spec.cpu_ghz_line),
                     "knobs.cpu_ghz: \"all\" needs cpu_backend: cpufreq (it reads the list from sysfs)");
  if (!wanted || spec.emulation || spec.cpu_backend != CpuBackend::kCpufreq) return nullptr;
  std::unique_ptr<CpufreqBackend> b;
  try {
    b = std::make_unique<CpufreqBackend>(io, spec);
  } catch (const std::exception& e) {
    throw InputError(spec_line(spec, spec.cpu_ghz_line), std::string("knobs.cpu_ghz: ") + e.what());
  }
  if (auto why = b->problem(spec.cpu_round_to_table); !why.empty())
    throw InputError(spec_line(spec, spec.cpu_ghz_line), "knobs.cpu_ghz: " + why);
  return b;
}

}  // namespace hpcsens::sweep
