// Declared memory configurations: DRAM speed is set at boot, so a point's configuration is
// reached through the job's launcher (partition, constraint, node list) or a manual step.
#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class MemoryBackend : public KnobBackend {
 public:
  explicit MemoryBackend(const SweepSpec& spec) : spec_(spec) {}
  std::string name() const override { return "memory"; }
  std::string describe() const override {
    return "memory: " + std::to_string(spec_.memory.size()) + " declared configurations";
  }
  Argv job_argv(const Argv& argv, const Point& p) const override {
    if (!p.memory || spec_.emulation) return argv;
    return with_memory_config(argv, spec_.memory[std::size_t(*p.memory)]);
  }

 private:
  const SweepSpec& spec_;
};

}  // namespace

std::unique_ptr<KnobBackend> make_memory_backend(const SweepSpec& spec, const SysfsIo&) {
  if (spec.memory.empty()) return nullptr;
  return std::make_unique<MemoryBackend>(spec);
}

}  // namespace hpcsens::sweep
