// A sweep submitted as a Slurm job array (execution: slurm-array) on the namespace cluster:
// 4 runs, at most 2 at a time, each task a 2-rank srun job that fills one node, so the two
// tasks running together land on the two nodes. The controller journals submission and
// arrivals; killed with SIGKILL after submission, `--resume` re-attaches to the same array and
// no run starts twice. The spec's sbatch options reach a real submission.
#include "array_fixture.h"

namespace hpcsens::cluster {
namespace {

TEST_F(ArraySweep, FourRunsCapTwoOnBothNodes) {
  const auto r = on_host("node0", {kHpcsens, "sweep", "--no-fit", spec_}, work_, 90);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 1);
  EXPECT_NE(r.err.find("at most 2 at a time"), std::string::npos) << r.err;
  expect_complete();
}

TEST_F(ArraySweep, KillNineAfterSubmissionThenResumeReattaches) {
  const auto proc = start_controller();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (count_type(out_, "run", "ok") < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(count_type(out_, "run", "ok"), 1) << get(proc.err_path);
  kill_controller(proc);
  ASSERT_LT(count_type(out_, "run", "ok"), 4) << "the sweep finished before the kill";

  const auto resume = on_host("node0", {kHpcsens, "sweep", "--no-fit", "--resume", out_}, work_, 90);
  ASSERT_EQ(resume.status, 0) << resume.out << resume.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 1) << "resubmitted instead of re-attaching:\n" << resume.err;
  EXPECT_NE(resume.err.find("re-attached to array job"), std::string::npos) << resume.err;
  expect_complete();
}

// sbatch.partition names the cluster's second partition (batch, not the default): the tasks
// run there (SLURM_JOB_PARTITION in each record), with the time limit and extra argument given.
TEST_F(ArraySweep, SbatchOptionsReachARealSubmission) {
  write_spec("retries: 0\nsbatch:\n  partition: batch\n  time_limit: '5:00'\n  extra: ['--comment=hpcsens test']\n");
  const auto proc = start_controller();
  const std::string job = job_id();
  ASSERT_FALSE(job.empty()) << get(proc.err_path);
  const auto show = on_host("node0", {"scontrol", "show", "job", job}, aux_);
  EXPECT_NE(show.out.find("Partition=batch"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("TimeLimit=00:05:00"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Comment=hpcsens test"), std::string::npos) << show.out;
  ASSERT_EQ(sweep::testing::wait_for(proc, 90), 0) << get(proc.err_path);
  expect_complete();
  for (const auto& e : std::filesystem::directory_iterator(out_ + "/records")) {
    std::ifstream in(e.path());
    EXPECT_EQ(nlohmann::json::parse(in)["config"]["slurm_partition"], "batch") << e.path();
  }
}

TEST_F(ArraySweep, PartitionSlurmDoesNotKnowFailsTheSubmission) {
  write_spec("sbatch: {partition: nosuchpart}\n");
  const auto r = on_host("node0", {kHpcsens, "sweep", "--no-fit", spec_}, work_, 30);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("sbatch exited with status 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid partition"), std::string::npos) << r.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 0);
  EXPECT_EQ(count_type(out_, "array_submitting"), 1);
}

}  // namespace
}  // namespace hpcsens::cluster
