#pragma once
// One kind of knob (core frequency through cpufreq sysfs, uncore, Slurm's --cpu-freq, likwid,
// declared memory configurations, the emulated launcher) behind one interface. The registry
// lists every backend; KnobSet asks each whether the spec uses it. A new knob is one file with
// a class and a `make_*` function, plus one line in knob_registry.cpp and its tests.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sweep/spec/launch_argv.h"
#include "sweep/spec/plan.h"
#include "sweep/spec/spec.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

class KnobBackend {
 public:
  virtual ~KnobBackend() = default;
  virtual std::string name() const = 0;
  virtual std::string describe() const = 0;
  // The core frequencies this backend resolved (cpufreq's "all"); nullopt: the spec's list.
  virtual std::optional<std::vector<double>> cpu_values() const { return std::nullopt; }
  // True when applying a point changes machine state that must be restored.
  virtual bool changes_machine() const { return false; }
  // Files apply() may write; their values are journalled before the first change.
  virtual std::vector<std::string> files_to_save() const { return {}; }
  // Corrects saved originals whose file does not show the value to restore (see
  // CpufreqSysfs::amend_saved).
  virtual void amend_saved(std::vector<FileWrite>& saved) const { (void)saved; }
  // The core clock the machine runs a requested value at (rounded as the driver does);
  // nullopt when this backend does not set the core clock.
  virtual std::optional<double> cpu_set_ghz(double requested) const {
    (void)requested;
    return std::nullopt;
  }
  // True when that clock lies above the base clock (a turbo point).
  virtual bool above_base(double requested) const {
    (void)requested;
    return false;
  }
  // The uncore setting the driver keeps for a requested one (it truncates to 100 MHz).
  virtual std::optional<UncoreSetting> uncore_set(const UncoreSetting& requested) const {
    (void)requested;
    return std::nullopt;
  }
  // memory_backend: resctrl. The MB: value the kernel keeps for a request (rounded up to its
  // granularity) and its unit; the resctrl root and a point's MB: line, for the machine to put
  // in that point's group (resctrl_groups.h). Empty for every other backend.
  virtual std::optional<long> mem_bw_set(long requested) const {
    (void)requested;
    return std::nullopt;
  }
  virtual std::string mem_bw_unit() const { return ""; }
  virtual std::string resctrl_root() const { return ""; }
  virtual std::optional<std::string> resctrl_schemata(const Point& p) const {
    (void)p;
    return std::nullopt;
  }
  // Names of restore actions (journalled instead of commands; see restore_action_argv).
  virtual std::vector<std::string> restore_actions() const { return {}; }
  // Machine-side changes: sysfs writes through `io`, commands returned for the caller to run.
  virtual std::vector<Argv> apply(SysfsIo& io, const Point& p) const {
    (void)io, (void)p;
    return {};
  }
  // Variables for the ranks' environment at this point, for this one run only (nothing on the
  // machine changes, so nothing is saved or restored): the network-delay knob.
  virtual std::vector<std::pair<std::string, std::string>> rank_env(const Point& p) const {
    (void)p;
    return {};
  }
  // The job's command line at this point.
  virtual Argv job_argv(const Argv& argv, const Point& p) const {
    (void)p;
    return argv;
  }
};

// Builds the backend when the spec uses it (nullptr when not). Probes through `io` only
// (reads). Throws InputError naming the spec field when the knob is unavailable here.
using BackendFactory = std::unique_ptr<KnobBackend> (*)(const SweepSpec& spec, const SysfsIo& io);

struct BackendEntry {
  const char* name;
  BackendFactory make;
  // File names (last path component) this backend writes: --restore writes no other name.
  std::vector<std::string> restorable_files;
  // Restore actions it names in the journal, each rebuilt from hpcsens's own code.
  std::vector<std::string> restore_actions;
};

// Every backend, in the order points are applied (core before uncore, Slurm before memory).
const std::vector<BackendEntry>& knob_backends();

// The command of a journalled restore action, rebuilt here; nullopt for an unknown name
// (never taken from the journal).
std::optional<Argv> restore_action_argv(const std::string& action);

// True when `name` is a file some backend writes.
bool restorable_file_name(const std::string& name);

// "<spec>:<line>" of the knob a backend error is about.
std::string spec_line(const SweepSpec& spec, int line);

// Why srun --cpu-freq cannot take effect on the node whose sysfs is under `root` ("" when it
// can; then `driver` names the cpufreq driver). See backend_slurm.cpp.
std::string slurm_cpu_freq_problem(const SysfsIo& io, const std::string& root, std::string* driver);

// The factories, one per backend file.
std::unique_ptr<KnobBackend> make_emulated_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_cpufreq_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_slurm_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_likwid_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_uncore_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_memory_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_resctrl_backend(const SweepSpec&, const SysfsIo&);
std::unique_ptr<KnobBackend> make_network_backend(const SweepSpec&, const SysfsIo&);

}  // namespace hpcsens::sweep
