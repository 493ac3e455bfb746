#pragma once
// The knobs one sweep uses: the registered backends (knob_backend.h) this spec asks for, asked
// together. Slurm knobs and declared memory configurations change the job's command line
// instead of the machine.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/knobs/knob_backend.h"

namespace hpcsens::sweep {

class KnobSet {
 public:
  // Probes the backends the spec needs (through `io`, so a dry run reads but never writes).
  // Throws hpcsens::InputError naming the spec field when a requested knob is not available
  // here, or a value is outside the hardware range.
  KnobSet(const SweepSpec& spec, const SysfsIo& io);

  // The CPU values to sweep: the spec's list, or every available frequency for "all".
  const std::vector<double>& cpu_values() const { return cpu_values_; }

  bool changes_machine() const;
  std::vector<std::string> files_to_save() const;
  // Reads every file to save (throws naming one that cannot be read) and lets each backend
  // correct what its files cannot show.
  std::vector<FileWrite> save(const SysfsIo& io) const;
  // What the point's knobs were set to, beside what was asked: `cpu_ghz_set`, `cpu_above_base`,
  // `uncore_min_ghz_set`/`uncore_max_ghz_set`, `mem_bw_set`/`mem_bw_unit` (empty when no
  // backend says).
  nlohmann::json set_values(const Point& p) const;
  // memory_backend: resctrl: the resctrl root ("" when no backend makes groups) and the MB:
  // line of a point's group (nullopt: the point has no group).
  std::string resctrl_root() const;
  std::optional<std::string> resctrl_schemata(const Point& p) const;
  std::vector<std::string> restore_actions() const;  // journalled by name
  std::vector<Argv> restore_commands() const;        // what those actions run

  // Machine-side changes for the point (sysfs writes through `io`, commands returned for the
  // caller to run, so a dry run can list them).
  std::vector<Argv> apply(SysfsIo& io, const Point& p) const;
  // The job's command line at this point (srun --cpu-freq, memory configuration reach).
  Argv job_argv(const Argv& base, const Point& p) const;
  // Environment variables for the ranks of this point's run (the network-delay knob).
  std::vector<std::pair<std::string, std::string>> rank_env(const Point& p) const;
  std::string describe() const;
  const std::vector<std::unique_ptr<KnobBackend>>& backends() const { return backends_; }

 private:
  std::vector<std::unique_ptr<KnobBackend>> backends_;
  std::vector<double> cpu_values_;
};

}  // namespace hpcsens::sweep
