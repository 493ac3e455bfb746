// The array plan file and batch script: what the controller hands to Slurm. The file is data
// only (run ids and points), checked field by field when a task reads it back.
#include <string>

#include "common/errors.h"
#include "sweep/spec/launch_argv.h"
#include "sweep/array/slurm_array.h"

namespace hpcsens::sweep {

std::string array_plan_name(int submission) { return "plan-" + std::to_string(submission) + ".json"; }

std::string array_outcome_name(int submission, int task) {
  return "outcome-" + std::to_string(submission) + "-" + std::to_string(task) + ".json";
}

nlohmann::json array_plan_json(const ArrayPlan& p) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& r : p.tasks) tasks.push_back({{"id", r.id}, {"point", r.point}, {"repetition", r.repetition}});
  return {{"submission", p.submission}, {"tasks", tasks}};
}

ArrayPlan parse_array_plan(const std::string& text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw InputError(file, std::string("not valid JSON: ") + e.what());
  }
  auto need_int = [&](const nlohmann::json& o, const char* key, const std::string& where) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number_integer() || o[key].get<long>() < 0)
      throw InputError(file, where + key + ": missing or not a non-negative integer");
    return int(o[key].get<long>());
  };
  ArrayPlan p;
  p.submission = need_int(j, "submission", "");
  if (!j.contains("tasks") || !j["tasks"].is_array()) throw InputError(file, "tasks: missing or not a list");
  for (std::size_t i = 0; i < j["tasks"].size(); ++i) {
    const auto& t = j["tasks"][i];
    const std::string where = "tasks[" + std::to_string(i) + "].";
    PlannedRun r;
    r.point = need_int(t, "point", where);
    r.repetition = need_int(t, "repetition", where);
    if (!t.contains("id") || !t["id"].is_string()) throw InputError(file, where + "id: missing or not a string");
    r.id = t["id"].get<std::string>();
    p.tasks.push_back(r);
  }
  return p;
}

namespace {

// Every word single-quoted, whatever it holds ($, backquotes and all): the script's only
// variable parts are paths, and none of them may be expanded by the shell.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The allocation each task needs for the job's own srun line (-n/--ntasks, -N/--nodes).
std::vector<std::string> allocation_options(const std::vector<std::string>& job) {
  std::vector<std::string> out;
  const std::size_t app = application_index(job);
  for (std::size_t i = 1; i < app && i < job.size(); ++i) {
    const std::string& a = job[i];
    const bool has_next = i + 1 < app;
    if ((a == "-n" || a == "--ntasks") && has_next) out.push_back("--ntasks=" + job[i + 1]);
    else if ((a == "-N" || a == "--nodes") && has_next) out.push_back("--nodes=" + job[i + 1]);
    else if (a.rfind("--ntasks=", 0) == 0 || a.rfind("--nodes=", 0) == 0) out.push_back(a);
  }
  return out;
}

}  // namespace

std::vector<std::string> array_sbatch_argv(const SweepSpec& spec, const ArraySubmit& a) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--job-name=" + a.job_name,
                                   "--array=0-" + std::to_string(a.tasks - 1) + "%" + std::to_string(spec.array_max_running),
                                   "--output=" + a.output_pattern, "--chdir=" + a.chdir};
  for (auto& o : allocation_options(spec.command)) argv.push_back(std::move(o));
  for (auto& o : sbatch_option_words(spec.sbatch)) argv.push_back(std::move(o));
  argv.push_back(a.script);
  return argv;
}

std::string array_batch_script(const std::string& hpcsens, const std::string& spec, int submission,
                               const std::string& dir) {
  std::string line = "exec";
  for (const auto& w : {hpcsens, std::string("sweep"), spec, std::string("--array-task"), std::to_string(submission),
                        std::string("--dir"), dir})
    line += " " + quoted(w);
  return "#!/bin/sh\n# Written by hpcsens sweep (execution: slurm-array); each task finds its run by\n"
         "# SLURM_ARRAY_TASK_ID in " + std::string(kArrayDir) + "/" + array_plan_name(submission) + ".\n" + line + "\n";
}

}  // namespace hpcsens::sweep
