#include "sweep/knobs.h"

#include <cmath>
#include <cstdio>

#include "common/errors.h"

namespace hpcsens::sweep {
namespace {

// "<spec>:<line>" of the knob a backend error is about, so the user finds it in one go.
std::string at_line(const SweepSpec& spec, int line) {
  return line > 0 ? spec.source + ":" + std::to_string(line) : spec.source;
}

}  // namespace

KnobSet::KnobSet(const SweepSpec& spec, const SysfsIo& io) : spec_(spec) {
  cpu_values_ = spec.cpu_ghz;
  const bool sysfs_cpu = !spec.emulation && spec.cpu_backend == CpuBackend::kCpufreq &&
                         (!spec.cpu_ghz.empty() || spec.cpu_all_available);
  if (sysfs_cpu) {
    try {
      cpufreq_.emplace(io, spec.sysfs_root);
    } catch (const std::exception& e) {
      throw InputError(at_line(spec, spec.cpu_ghz_line), std::string("knobs.cpu_ghz: ") + e.what());
    }
    if (spec.cpu_all_available) cpu_values_ = cpufreq_->available_ghz();
    for (double g : cpu_values_) {
      const long k = CpufreqSysfs::ghz_to_khz(g);
      if (k < cpufreq_->cpuinfo_min_khz() || k > cpufreq_->cpuinfo_max_khz()) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%g GHz is outside this machine's range %g-%g GHz", g,
                      cpufreq_->cpuinfo_min_khz() / 1e6, cpufreq_->cpuinfo_max_khz() / 1e6);
        throw InputError(at_line(spec, spec.cpu_ghz_line), std::string("knobs.cpu_ghz: ") + buf);
      }
    }
  } else if (spec.cpu_all_available) {
    throw InputError(at_line(spec, spec.cpu_ghz_line), "knobs.cpu_ghz: \"all\" needs cpu_backend: cpufreq (it reads the list from sysfs)");
  }
  if (!spec.uncore.empty() && !spec.emulation && spec.cpu_backend != CpuBackend::kLikwid) {
    try {
      uncore_.emplace(io, spec.sysfs_root);
    } catch (const std::exception& e) {
      throw InputError(at_line(spec, spec.uncore_line), std::string("knobs.uncore_ghz: ") + e.what());
    }
  }
}

bool KnobSet::changes_machine() const {
  return cpufreq_ || uncore_ ||
         (spec_.cpu_backend == CpuBackend::kLikwid && (!cpu_values_.empty() || !spec_.uncore.empty()));
}

std::vector<std::string> KnobSet::files_to_save() const {
  std::vector<std::string> out;
  if (cpufreq_) out = cpufreq_->files_to_save();
  if (uncore_)
    for (auto& f : uncore_->files_to_save()) out.push_back(f);
  return out;
}

std::vector<Argv> KnobSet::restore_commands() const {
  if (spec_.cpu_backend != CpuBackend::kLikwid) return {};
  return likwid_reset_commands(!cpu_values_.empty(), !spec_.uncore.empty());
}

std::vector<Argv> KnobSet::apply(SysfsIo& io, const Point& p) const {
  std::vector<Argv> commands;
  if (p.cpu_ghz) {
    if (cpufreq_) cpufreq_->apply(io, *p.cpu_ghz);
    else if (spec_.cpu_backend == CpuBackend::kLikwid && !spec_.emulation)
      commands.push_back(likwid_cpu_command(*p.cpu_ghz));
  }
  if (p.uncore) {
    if (uncore_) uncore_->apply(io, *p.uncore);
    else if (spec_.cpu_backend == CpuBackend::kLikwid && !spec_.emulation)
      commands.push_back(likwid_uncore_command(*p.uncore));
  }
  return commands;
}

Argv KnobSet::job_argv(const Argv& base, const Point& p) const {
  Argv argv = base;
  if (spec_.emulation) return argv;
  if (p.cpu_ghz && spec_.cpu_backend == CpuBackend::kSlurm) argv = with_slurm_cpu_freq(argv, *p.cpu_ghz);
  if (p.memory) argv = with_memory_config(argv, spec_.memory[*p.memory]);
  return argv;
}

std::string KnobSet::describe() const {
  std::string d;
  auto add = [&](const std::string& s) { d += (d.empty() ? "" : "; ") + s; };
  if (spec_.emulation) add("EMULATED launcher (no machine knob is touched)");
  if (cpufreq_)
    add("cpu: cpufreq sysfs (" + cpufreq_->driver() + ", " +
        (cpufreq_->mode() == CpufreqSysfs::Mode::kUserspace ? "userspace governor + scaling_setspeed"
                                                            : "scaling_min_freq = scaling_max_freq pinning") +
        ", " + std::to_string(cpufreq_->policies().size()) + " policies)");
  if (!spec_.emulation && !cpu_values_.empty() && spec_.cpu_backend == CpuBackend::kSlurm)
    add("cpu: srun --cpu-freq (Slurm restores it after each step)");
  if (!spec_.emulation && spec_.cpu_backend == CpuBackend::kLikwid) add("cpu/uncore: likwid-setFrequencies");
  if (uncore_) add("uncore: intel_uncore_frequency sysfs (" + std::to_string(uncore_->domains().size()) + " domains)");
  if (!spec_.memory.empty()) add("memory: " + std::to_string(spec_.memory.size()) + " declared configurations");
  return d.empty() ? "no knobs (one configuration)" : d;
}

}  // namespace hpcsens::sweep
