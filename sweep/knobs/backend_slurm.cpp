// Core frequency through srun --cpu-freq on the job's own srun line: Slurm sets it for the
// step and restores it itself, so nothing on the machine is ours to save.
//
// Slurm's cpufreq support writes scaling_governor = userspace and scaling_setspeed on the node
// and does not check that either took ("a request, not a requirement", srun(1)). On drivers
// without a userspace governor (intel_pstate active, amd-pstate-epp: the defaults on most Intel
// and AMD clusters) and on nodes without cpufreq both writes are refused and every run goes at
// one clock, recorded as several. So the backend is refused there, with the reason and what
// to use instead; the node's cpufreq is read under backends.sysfs_root.
#include "common/errors.h"
#include "sweep/knobs/cpufreq_sysfs.h"
#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {
namespace {

class SlurmBackend : public KnobBackend {
 public:
  explicit SlurmBackend(std::string driver) : driver_(std::move(driver)) {}
  std::string name() const override { return "slurm"; }
  std::string describe() const override {
    return "cpu: srun --cpu-freq (" + driver_ + " with a userspace governor; Slurm restores it after each step)";
  }
  Argv job_argv(const Argv& argv, const Point& p) const override {
    return p.cpu_ghz ? with_slurm_cpu_freq(argv, *p.cpu_ghz) : argv;
  }

 private:
  std::string driver_;
};

}  // namespace

std::string slurm_cpu_freq_problem(const SysfsIo& io, const std::string& root, std::string* driver) {
  std::optional<CpufreqSysfs> c;
  try {
    c.emplace(io, root);
  } catch (const std::exception&) {
    return "this node has no cpufreq under " + root + "/devices/system/cpu/cpufreq (a VM, or no driver loaded): "
           "srun --cpu-freq cannot change its clock and Slurm does not say so; run on nodes with cpufreq "
           "(hpcsens doctor shows what a node has), or use the emulated launcher";
  }
  *driver = c->driver();
  if (c->mode() == CpufreqSysfs::Mode::kUserspace) return "";
  return *driver + " has no userspace governor: Slurm's scaling_governor and scaling_setspeed writes are refused "
         "and it does not check, so every run would go at one clock; use cpu_backend: cpufreq (the sweep pins "
         "scaling_min_freq = scaling_max_freq, which " + *driver + " honours), or boot the nodes with "
         "intel_pstate=passive / amd_pstate=passive";
}

std::unique_ptr<KnobBackend> make_slurm_backend(const SweepSpec& spec, const SysfsIo& io) {
  if (spec.emulation || spec.cpu_backend != CpuBackend::kSlurm || spec.cpu_ghz.empty()) return nullptr;
  std::string driver;
  if (auto why = slurm_cpu_freq_problem(io, spec.sysfs_root, &driver); !why.empty())
    throw InputError(spec_line(spec, spec.cpu_ghz_line), "knobs.cpu_backend: slurm: " + why);
  return std::make_unique<SlurmBackend>(driver);
}

}  // namespace hpcsens::sweep
