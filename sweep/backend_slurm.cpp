// Core frequency through srun --cpu-freq on the job's own srun line: Slurm sets it for the
// step and restores it itself, so nothing on the machine is ours to save.
#include "sweep/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class SlurmBackend : public KnobBackend {
 public:
  std::string name() const override { return "slurm"; }
  std::string describe() const override { return "cpu: srun --cpu-freq (Slurm restores it after each step)"; }
  Argv job_argv(const Argv& argv, const Point& p) const override {
    return p.cpu_ghz ? with_slurm_cpu_freq(argv, *p.cpu_ghz) : argv;
  }
};

}  // namespace

std::unique_ptr<KnobBackend> make_slurm_backend(const SweepSpec& spec, const SysfsIo&) {
  if (spec.emulation || spec.cpu_backend != CpuBackend::kSlurm || spec.cpu_ghz.empty()) return nullptr;
  return std::make_unique<SlurmBackend>();
}

}  // namespace hpcsens::sweep
