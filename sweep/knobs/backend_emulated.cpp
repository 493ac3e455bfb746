// The emulated launcher's knob: nothing on the machine changes; the executor computes each
// record from the spec's ground truth at the point's settings.
#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class EmulatedBackend : public KnobBackend {
 public:
  std::string name() const override { return "emulated"; }
  std::string describe() const override { return "EMULATED launcher (no machine knob is touched)"; }
};

}  // namespace

std::unique_ptr<KnobBackend> make_emulated_backend(const SweepSpec& spec, const SysfsIo&) {
  if (!spec.emulation) return nullptr;
  return std::make_unique<EmulatedBackend>();
}

}  // namespace hpcsens::sweep
