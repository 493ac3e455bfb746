#pragma once
// `execution: slurm-array`: the sweep's runs as one Slurm job array. The controller writes a
// plan file (task index -> run id) and a fixed batch script, submits with
// `sbatch --array=0-N%CAP`, journals the submission, then journals each record as it arrives in
// the shared records/ directory. Each array task is `hpcsens sweep SPEC --array-task K --dir DIR`:
// it looks its run up by SLURM_ARRAY_TASK_ID, checks it against the plan rebuilt from the
// spec, and builds the job's argv from the spec (never from the file), with --cpu-freq on srun.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/journal/journal.h"
#include "sweep/spec/plan.h"
#include "sweep/journal/session.h"
#include "sweep/spec/spec.h"
#include "sweep/execute/sweep_options.h"

namespace hpcsens::sweep {

inline constexpr const char* kArrayDir = "array";
inline constexpr std::size_t kMaxArrayPlanBytes = 16u << 20;

// One submission's tasks: task index -> run id (and its point, to check the spec did not change).
struct ArrayPlan {
  int submission = 0;
  std::vector<PlannedRun> tasks;
};

std::string array_plan_name(int submission);                      // plan-<K>.json
std::string array_outcome_name(int submission, int task);         // outcome-<K>-<task>.json
nlohmann::json array_plan_json(const ArrayPlan& p);
// Throws InputError("<file>", "<field>: ...") for anything that is not what array_plan_json wrote.
ArrayPlan parse_array_plan(const std::string& text, const std::string& file);
// The fixed batch script: exec hpcsens sweep SPEC --array-task K --dir DIR (every word quoted).
std::string array_batch_script(const std::string& hpcsens, const std::string& spec, int submission,
                               const std::string& dir);

// One submission's sbatch command line: the controller's own options (--parsable, --job-name,
// --array=0-(tasks-1)%array_max_running, --output, --chdir), the job's -n/-N as --ntasks/--nodes,
// then the spec's sbatch options, then the script. Each element is one argv word (no shell).
struct ArraySubmit {
  std::string job_name;
  std::size_t tasks = 0;  // >= 1
  std::string output_pattern;
  std::string chdir;
  std::string script;
};
std::vector<std::string> array_sbatch_argv(const SweepSpec& spec, const ArraySubmit& a);

// The controller: submits (or on --resume re-attaches to) the array and waits for its records.
void run_array_sweep(const SweepSpec& spec, const Plan& plan, const SweepOptions& opt, Session& s, Journal& j);

// One array task (inside its Slurm allocation). Returns the exit status of the task.
int run_array_task(const SweepSpec& spec, const SweepOptions& opt, int submission, const std::string& dir);

}  // namespace hpcsens::sweep
