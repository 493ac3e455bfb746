// The preload's job facts from outside MPI (Slurm) and the env-only banner line.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "preload/account/job_facts.h"

namespace hpcsens::preload {
namespace {

GetEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* n) -> const char* {
    auto it = vars.find(n);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(SlurmFacts, NullOutsideSlurm) { EXPECT_TRUE(slurm_facts(env_of({{"PATH", "/bin"}})).is_null()); }

TEST(SlurmFacts, JobStepPartitionNodesFromTheRanksEnvironment) {
  const auto j = slurm_facts(env_of({{"SLURM_JOB_ID", "4711"}, {"SLURM_STEP_ID", "0"}, {"SLURM_JOB_PARTITION", "gpu"},
                                     {"SLURM_JOB_NODELIST", "c[01-04]"}, {"SLURM_JOB_NUM_NODES", "4"}}));
  EXPECT_EQ(j, nlohmann::json({{"job_id", "4711"}, {"step_id", "0"}, {"partition", "gpu"}, {"nodelist", "c[01-04]"},
                               {"nnodes", 4}}));
}

TEST(SlurmFacts, OlderVariableNamesAndOnlyWhatIsSet) {
  const auto j = slurm_facts(env_of({{"SLURM_JOBID", "12"}, {"SLURM_NODELIST", "n1"}, {"SLURM_NNODES", "x"}}));
  EXPECT_EQ(j, nlohmann::json({{"job_id", "12"}, {"nodelist", "n1"}})) << "a bad node count is left out";
}

TEST(Banner, OnlyWithoutHpcsensRun) {
  EXPECT_TRUE(env_only(env_of({})));
  EXPECT_TRUE(env_only(env_of({{"HPCSENS_RUN_ID", ""}})));
  EXPECT_FALSE(env_only(env_of({{"HPCSENS_RUN_ID", "r1"}})));
}

TEST(Banner, OneLineNamingRanksHostsTimeAndRecord) {
  record::RunRecord run;
  run.job.nranks = 4;
  run.job.hosts = {"a", "b"};
  run.timing.job_s = 1.23456;
  EXPECT_EQ(banner_line(run, "out/r.json"),
            "hpcsens: 4 ranks on 2 hosts, job 1.235 s; record: out/r.json (hpcsens report out/r.json)");
  run.job.nranks = 1;
  run.job.hosts = {"a"};
  EXPECT_EQ(banner_line(run, "x.json").substr(0, 31), "hpcsens: 1 rank on 1 host, job ");
}

}  // namespace
}  // namespace hpcsens::preload
