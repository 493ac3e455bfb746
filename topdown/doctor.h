#pragma once
// `hpcsens doctor`: what this machine lets hpcsens measure and control, and for each missing
// capability the concrete fix. File-system checks take a root directory (a fake sysfs/procfs
// tree in tests); PAPI checks use the real library.
#include <string>
#include <vector>

#include "topdown/event_plan.h"

namespace hpcsens::doctor {

enum class Status { kOk, kMissing, kInfo, kBroken };  // kBroken: the tool itself cannot work

struct Check {
  std::string name;    // "MPI", "preload", "PAPI", ...
  Status status = Status::kOk;
  std::string detail;  // what was found
  std::string fix;     // what to do about it (empty when nothing to do)
};

const char* status_name(Status s);

// Reads <root>/proc/sys/kernel/perf_event_paranoid. Values above 2 (Debian's 3, or 4) block
// unprivileged counting entirely; 2 allows user-space counting of one's own processes.
Check check_perf_paranoid(const std::string& root, bool is_root_user);
// Per driver: cpufreq driver and mode, turbo, offline CPUs, which core-clock backends work,
// uncore, resctrl MBA, the spec to use (sweep/knob_doctor.h), read under <root>/sys.
std::vector<Check> check_knobs(const std::string& root, bool srun_found);
Check check_slurm(const std::string& path_env); // srun in PATH
// The preload next to the binary: <exe dir>/../lib/libhpcsens_preload.so.
Check check_preload(const std::string& exe_path);
// First line of `<mpirun> --version`.
Check check_mpi(const std::string& mpirun = "mpirun");
// Which Top-Down set `--events topdown` would use and why; flags the Skylake SMT set when
// <root>/proc/sys/kernel/perf_event_paranoid forbids its AnyThread counts.
Check check_topdown_plan(const topdown::CpuId& cpu, const std::string& root, bool is_root_user);

// PAPI: library init (kBroken on version mismatch), version, components with disabled reasons.
std::vector<Check> check_papi();
// Whether perf::TASK-CLOCK (what the default event set needs) can be counted; when PAPI has
// switched its perf_event component off, why (topdown/pmu_advice.h: `cpu`, and whether
// <root>/sys/bus/event_source/devices/software exists, pick the words and the fix).
Check check_software_events(const topdown::CpuId& cpu, const std::string& root);
// Whether PAPI_TOT_CYC can be added, started and read. `cpu` selects the fix text (VM or not).
Check check_hardware_events(const topdown::CpuId& cpu, const std::string& root);

struct Report {
  std::vector<Check> checks;
  bool broken() const;
};

// Advice never contradicts a finding: where hardware events cannot be counted, no other check
// may suggest a hardware event (PAPI_TOT_CYC, ...) as its fix.
void drop_contradicting_advice(Report& r);

// All checks on the running system.
Report run_all(const std::string& exe_path);

std::string to_text(const Report& r);
std::string to_json(const Report& r);

}  // namespace hpcsens::doctor
