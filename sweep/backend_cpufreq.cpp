// Core frequency through Linux cpufreq sysfs (see cpufreq_sysfs.h for the two driver modes).
#include <cstdio>

#include "common/errors.h"
#include "sweep/cpufreq_sysfs.h"
#include "sweep/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class CpufreqBackend : public KnobBackend {
 public:
  CpufreqBackend(const SysfsIo& io, const SweepSpec& spec) : sysfs_(io, spec.sysfs_root) {
    values_ = spec.cpu_all_available ? sysfs_.available_ghz() : spec.cpu_ghz;
  }
  std::string name() const override { return "cpufreq"; }
  std::string describe() const override {
    return "cpu: cpufreq sysfs (" + sysfs_.driver() + ", " +
           (sysfs_.mode() == CpufreqSysfs::Mode::kUserspace ? "userspace governor + scaling_setspeed"
                                                            : "scaling_min_freq = scaling_max_freq pinning") +
           ", " + std::to_string(sysfs_.policies().size()) + " policies)";
  }
  std::optional<std::vector<double>> cpu_values() const override { return values_; }
  bool changes_machine() const override { return true; }
  std::vector<std::string> files_to_save() const override { return sysfs_.files_to_save(); }
  std::vector<Argv> apply(SysfsIo& io, const Point& p) const override {
    if (p.cpu_ghz) sysfs_.apply(io, *p.cpu_ghz);
    return {};
  }
  // The hardware range, checked once so a typo is refused before anything changes.
  std::string out_of_range() const {
    for (double g : values_) {
      const long k = CpufreqSysfs::ghz_to_khz(g);
      if (k < sysfs_.cpuinfo_min_khz() || k > sysfs_.cpuinfo_max_khz()) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%g GHz is outside this machine's range %g-%g GHz", g,
                      sysfs_.cpuinfo_min_khz() / 1e6, sysfs_.cpuinfo_max_khz() / 1e6);
        return buf;
      }
    }
    return "";
  }

 private:
  CpufreqSysfs sysfs_;
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
  if (auto why = b->out_of_range(); !why.empty())
    throw InputError(spec_line(spec, spec.cpu_ghz_line), "knobs.cpu_ghz: " + why);
  return b;
}

}  // namespace hpcsens::sweep
