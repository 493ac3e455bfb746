// Intel uncore frequency through intel_uncore_frequency sysfs (see uncore_sysfs.h).
#include "common/errors.h"
#include "sweep/knob_backend.h"
#include "sweep/uncore_sysfs.h"

namespace hpcsens::sweep {
namespace {

class UncoreBackend : public KnobBackend {
 public:
  UncoreBackend(const SysfsIo& io, const std::string& root) : sysfs_(io, root) {}
  std::string name() const override { return "uncore"; }
  std::string describe() const override {
    return "uncore: intel_uncore_frequency sysfs (" + std::to_string(sysfs_.domains().size()) + " domains)";
  }
  bool changes_machine() const override { return true; }
  std::vector<std::string> files_to_save() const override { return sysfs_.files_to_save(); }
  std::vector<Argv> apply(SysfsIo& io, const Point& p) const override {
    if (p.uncore) sysfs_.apply(io, *p.uncore);
    return {};
  }

 private:
  UncoreSysfs sysfs_;
};

}  // namespace

std::unique_ptr<KnobBackend> make_uncore_backend(const SweepSpec& spec, const SysfsIo& io) {
  if (spec.uncore.empty() || spec.emulation || spec.cpu_backend == CpuBackend::kLikwid) return nullptr;
  try {
    return std::make_unique<UncoreBackend>(io, spec.sysfs_root);
  } catch (const std::exception& e) {
    throw InputError(spec_line(spec, spec.uncore_line), std::string("knobs.uncore_ghz: ") + e.what());
  }
}

}  // namespace hpcsens::sweep
