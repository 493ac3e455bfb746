#include "preload/account/job_facts.h"

#include <cstdio>
#include <cstdlib>

namespace hpcsens::preload {
namespace {

const char* first_set(const GetEnv& getenv_fn, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (const char* v = getenv_fn(n); v != nullptr && *v != '\0') return v;
  return nullptr;
}

}  // namespace

nlohmann::json slurm_facts(const GetEnv& getenv_fn) {
  const char* job = first_set(getenv_fn, {"SLURM_JOB_ID", "SLURM_JOBID"});
  if (job == nullptr) return nullptr;
  nlohmann::json j = {{"job_id", job}};
  if (const char* v = first_set(getenv_fn, {"SLURM_STEP_ID", "SLURM_STEPID"})) j["step_id"] = v;
  if (const char* v = first_set(getenv_fn, {"SLURM_JOB_PARTITION"})) j["partition"] = v;
  if (const char* v = first_set(getenv_fn, {"SLURM_JOB_NODELIST", "SLURM_NODELIST"})) j["nodelist"] = v;
  if (const char* v = first_set(getenv_fn, {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"})) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && *end == '\0' && n > 0) j["nnodes"] = n;
  }
  return j;
}

bool env_only(const GetEnv& getenv_fn) {
  const char* id = getenv_fn("HPCSENS_RUN_ID");
  return id == nullptr || *id == '\0';
}

std::string banner_line(const record::RunRecord& run, const std::string& path) {
  const auto nhosts = run.job.hosts.size();
  char facts[128];
  std::snprintf(facts, sizeof facts, "%d rank%s on %zu host%s, job %.3f s", run.job.nranks,
                run.job.nranks == 1 ? "" : "s", nhosts, nhosts == 1 ? "" : "s", run.timing.job_s);
  return std::string("hpcsens: ") + facts + "; record: " + path + " (hpcsens report " + path + ")";
}

}  // namespace hpcsens::preload
