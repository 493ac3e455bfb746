// Intel uncore frequency through intel_uncore_frequency sysfs (see uncore_sysfs.h).
#include <fmt/core.h>

#include "common/errors.h"
#include "sweep/knobs/knob_backend.h"
#include "sweep/knobs/uncore_sysfs.h"

namespace hpcsens::sweep {
namespace {

class UncoreBackend : public KnobBackend {
 public:
  UncoreBackend(const SysfsIo& io, const SweepSpec& spec) : sysfs_(io, spec.sysfs_root, spec.uncore_all_domains) {}
  std::string name() const override { return "uncore"; }
  std::string describe() const override {
    return "uncore: intel_uncore_frequency sysfs (" + std::to_string(sysfs_.domains().size()) +
           (sysfs_.tpmi() ? " TPMI fabric clusters; package-level directories left alone)" : " domains)");
  }
  bool changes_machine() const override { return true; }
  std::vector<std::string> files_to_save() const override { return sysfs_.files_to_save(); }
  std::vector<Argv> apply(SysfsIo& io, const Point& p) const override {
    if (p.uncore) sysfs_.apply(io, *p.uncore);
    return {};
  }
  std::optional<UncoreSetting> uncore_set(const UncoreSetting& requested) const override {
    return UncoreSysfs::set_value(requested);
  }
  std::string limit_problem(const UncoreSetting& u) const { return sysfs_.limit_problem(u); }

 private:
  UncoreSysfs sysfs_;
};

}  // namespace

std::unique_ptr<KnobBackend> make_uncore_backend(const SweepSpec& spec, const SysfsIo& io) {
  if (spec.uncore.empty() || spec.emulation || spec.cpu_backend == CpuBackend::kLikwid) return nullptr;
  try {
    auto b = std::make_unique<UncoreBackend>(io, spec);
    for (const auto& u : spec.uncore)
      if (auto why = b->limit_problem(u); !why.empty()) throw std::runtime_error(why);
    if (!spec.cpu_round_to_table)
      for (const auto& u : spec.uncore) {
        const auto set = UncoreSysfs::set_value(u);
        if (set.min_ghz != u.min_ghz || set.max_ghz != u.max_ghz)
          throw std::runtime_error(fmt::format("{:g}-{:g} GHz is not a multiple of 100 MHz, which the driver keeps "
                                               "(it would set {:g}-{:g} GHz); set knobs.cpu_rounding: table to accept that",
                                               u.min_ghz, u.max_ghz, set.min_ghz, set.max_ghz));
      }
    return b;
  } catch (const std::exception& e) {
    throw InputError(spec_line(spec, spec.uncore_line), std::string("knobs.uncore_ghz: ") + e.what());
  }
}

}  // namespace hpcsens::sweep
