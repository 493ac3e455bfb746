// One task of a slurm-array sweep: finds its run by SLURM_ARRAY_TASK_ID in the plan file, checks
// the run against the plan rebuilt from the spec, and runs it through the same executors as a
// local sweep (the job's argv comes from the spec, --cpu-freq included). The record goes to the
// shared records/ directory and names the node; an outcome file tells the controller about a
// run that failed all its attempts.
#include <unistd.h>

#include <cstdlib>
#include <exception>

#include <fmt/core.h>

#include "common/text_escape.h"
#include "common/errors.h"
#include "common/safe_file.h"
#include "sweep/execute/executor.h"
#include "sweep/knobs/knobs.h"
#include "sweep/array/slurm_array.h"
#include "sweep/spec/sweep_common.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {
namespace {

int task_index() {
  const char* v = std::getenv("SLURM_ARRAY_TASK_ID");
  if (v == nullptr || *v == '\0') throw InputError("--array-task", "SLURM_ARRAY_TASK_ID is not set (not inside a Slurm job array)");
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000) throw InputError("SLURM_ARRAY_TASK_ID", std::string("not a task index: ") + v);
  return int(n);
}

std::string node_name() {
  if (const char* v = std::getenv("SLURMD_NODENAME"); v != nullptr && *v != '\0') return v;
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  return host;
}

safe_file::Dir open_existing(const std::string& path) {
  safe_file::Dir d;
  if (auto err = safe_file::open_dir(path, false, &d); !err.empty()) throw InputError(path, err);
  return d;
}

// The run the plan file names for this task, as the spec's own plan has it.
const PlannedRun& planned_run(const Plan& plan, const ArrayPlan& ap, int task, const std::string& file) {
  if (task >= int(ap.tasks.size()))
    throw InputError(file, "has no task " + std::to_string(task) + " (" + std::to_string(ap.tasks.size()) + " tasks)");
  const PlannedRun& want = ap.tasks[std::size_t(task)];
  for (const auto& r : plan.runs)
    if (r.id == want.id && r.point == want.point && r.repetition == want.repetition) return r;
  throw InputError(file, "tasks[" + std::to_string(task) + "]: run '" + want.id +
                             "' is not in the spec's plan (was the spec changed after submission?)");
}

// What the controller reads when no record comes: why the run failed, where, after how many attempts.
void write_outcome(const safe_file::Dir& adir, int submission, int task, const std::string& id,
                   const std::string& node, int attempts, const Outcome& out) {
  nlohmann::json o = {{"id", id}, {"status", out.ok ? "ok" : "failed"}, {"node", node}, {"attempts", attempts},
                      {"utc", utc_now()}};
  if (!out.ok) {
    o["error"] = out.error;
    o["exit_status"] = out.exit_status;
    o["timed_out"] = out.timed_out;
  }
  if (auto err = safe_file::write_atomic(adir, array_outcome_name(submission, task), o.dump() + "\n"); !err.empty())
    fmt::print(stderr, "hpcsens sweep: warning: cannot write the outcome of {}: {}\n", id,
               text::escape_for_message(err));
}

}  // namespace

int run_array_task(const SweepSpec& spec, const SweepOptions& opt, int submission, const std::string& dir) {
  if (spec.execution != Execution::kSlurmArray)
    throw InputError(spec.source, "execution: --array-task needs execution: slurm-array");
  const int task = task_index();
  Session s;
  s.dir = dir;
  s.fd = open_existing(dir);
  s.records = open_existing(dir + "/records");
  s.attempts = dir + "/attempts";
  const safe_file::Dir adir = open_existing(dir + "/" + kArrayDir);
  const std::string file = adir.child(array_plan_name(submission));
  const ArrayPlan ap = parse_array_plan(safe_file::read_own_file(file, kMaxArrayPlanBytes), file);

  const KnobSet knobs(spec, machine_sysfs());
  const Plan plan = make_plan(spec, knobs.cpu_values());
  const PlannedRun& run = planned_run(plan, ap, task, file);
  const Point& p = plan.points[std::size_t(run.point)];
  const std::string node = node_name();
  nlohmann::json config = run_config(run, p, spec);
  config["node"] = node;
  config["slurm_array_task"] = task;
  if (const char* j = std::getenv("SLURM_ARRAY_JOB_ID")) config["slurm_array_job_id"] = j;
  if (const char* v = std::getenv("SLURM_JOB_PARTITION"); v != nullptr && *v != '\0') config["slurm_partition"] = v;

  const auto exec = make_executor(spec, knobs, opt, s);
  Outcome out;
  int attempt = 0;
  std::exception_ptr input_error;  // bad input: no further attempt, but the controller is told
  while (!out.ok && !input_error && attempt <= spec.retries) {
    ++attempt;
    try {
      out = exec->run(Attempt{run, p, attempt, config, run.id + ".json"});
    } catch (const InputError& e) {
      out.error = e.what();
      input_error = std::current_exception();
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    if (!out.ok)
      fmt::print(stderr, "hpcsens sweep: {} attempt {} on {} failed: {}\n", run.id, attempt,
                 text::escape_for_message(node), text::escape_for_message(out.error));
  }
  write_outcome(adir, submission, task, run.id, node, attempt, out);
  if (input_error) std::rethrow_exception(input_error);
  return out.ok ? 0 : 1;
}

}  // namespace hpcsens::sweep
