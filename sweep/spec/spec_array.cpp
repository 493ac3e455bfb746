// The slurm-array part of the spec: execution, array_max_running and sbatch (docs/spec-format.md,
// "Slurm job array"), and the rules an array sweep must meet.
#include "sweep/spec/sbatch_options.h"
#include "sweep/spec/spec_reader.h"

namespace hpcsens::sweep::spec_detail {
namespace {

// Array tasks change nothing on their nodes: the core clock goes on each task's srun line
// (--cpu-freq, which Slurm restores itself), and nothing else can be switched per task.
void check_array_spec(const Reader& r, const YAML::Node& root, const SweepSpec& s) {
  if (!s.cpu_ghz.empty() && !s.emulation && s.cpu_backend != CpuBackend::kSlurm)
    r.fail(root["execution"], "execution", "slurm-array sets the clock with srun --cpu-freq: it needs knobs.cpu_backend: slurm");
  if (!s.uncore.empty()) r.fail(root["execution"], "execution", "slurm-array cannot set knobs.uncore_ghz");
  if (!s.memory.empty()) r.fail(root["execution"], "execution", "slurm-array cannot switch knobs.memory");
}

std::string checked(const Reader& r, const YAML::Node& n, const std::string& field, std::string problem,
                    std::string value) {
  if (!problem.empty()) r.fail(n, field, problem);
  return value;
}

void parse_sbatch(const Reader& r, const YAML::Node& n, SbatchOptions& o) {
  const std::string f = "sbatch";
  r.check_keys(n, f, {"partition", "account", "time_limit", "qos", "extra"});
  auto name = [&](const char* key, bool list) {
    if (!n[key]) return std::string();
    const auto v = r.str(n[key], f + "." + key);
    return checked(r, n[key], f + "." + key, slurm_name_problem(v, list), v);
  };
  o.partition = name("partition", true);
  o.account = name("account", false);
  o.qos = name("qos", false);
  if (n["time_limit"]) {
    const auto v = r.str(n["time_limit"], f + ".time_limit");
    o.time_limit = checked(r, n["time_limit"], f + ".time_limit", slurm_time_problem(v), v);
  }
  if (n["extra"]) {
    const auto& list = n["extra"];
    if (!list.IsSequence()) r.fail(list, f + ".extra", "must be a list of sbatch arguments (e.g. [--exclusive])");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string fi = f + ".extra[" + std::to_string(i) + "]";
      const auto v = r.str(list[i], fi);
      o.extra.push_back(checked(r, list[i], fi, sbatch_extra_problem(v), v));
    }
  }
}

}  // namespace

void parse_execution(const Reader& r, const YAML::Node& root, SweepSpec& s) {
  if (root["execution"]) {
    const auto e = r.str(root["execution"], "execution");
    if (e == "local") s.execution = Execution::kLocal;
    else if (e == "slurm-array") s.execution = Execution::kSlurmArray;
    else r.fail(root["execution"], "execution", "must be local or slurm-array, got '" + e + "'");
  }
  if (root["array_max_running"])
    s.array_max_running = int(r.integer(root["array_max_running"], "array_max_running", 1, kMaxArrayRunning));
  if (root["sbatch"]) {
    if (s.execution != Execution::kSlurmArray)
      r.fail(root["sbatch"], "sbatch", "is for execution: slurm-array only (a local sweep submits nothing)");
    parse_sbatch(r, root["sbatch"], s.sbatch);
  }
  if (s.execution == Execution::kSlurmArray) check_array_spec(r, root, s);
}

}  // namespace hpcsens::sweep::spec_detail
