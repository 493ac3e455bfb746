#include "sweep/knobs/knob_backend.h"

#include <algorithm>

namespace hpcsens::sweep {

const std::vector<BackendEntry>& knob_backends() {
  static const std::vector<BackendEntry> all = {
      {"emulated", make_emulated_backend, {}, {}},
      {"cpufreq", make_cpufreq_backend,
       {"scaling_governor", "scaling_setspeed", "scaling_min_freq", "scaling_max_freq", "no_turbo", "boost"}, {}},
      {"slurm", make_slurm_backend, {}, {}},
      {"likwid", make_likwid_backend, {}, {"likwid.reset_cpu", "likwid.reset_uncore"}},
      {"uncore", make_uncore_backend, {"min_freq_khz", "max_freq_khz"}, {}},
      {"memory", make_memory_backend, {}, {}},
      {"resctrl", make_resctrl_backend, {}, {}},
      {"network", make_network_backend, {}, {}},
  };
  return all;
}

std::optional<Argv> restore_action_argv(const std::string& action) {
  // likwid cannot report the previous settings to us, so restoring means its own reset.
  if (action == "likwid.reset_cpu") return likwid_reset_commands(true, false).at(0);
  if (action == "likwid.reset_uncore") return likwid_reset_commands(false, true).at(0);
  return std::nullopt;
}

bool restorable_file_name(const std::string& name) {
  for (const auto& b : knob_backends())
    if (std::find(b.restorable_files.begin(), b.restorable_files.end(), name) != b.restorable_files.end())
      return true;
  return false;
}

std::string spec_line(const SweepSpec& spec, int line) {
  return line > 0 ? spec.source + ":" + std::to_string(line) : spec.source;
}

}  // namespace hpcsens::sweep
