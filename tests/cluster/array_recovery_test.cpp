// The slurm-array controller when things go wrong, on the namespace cluster: a task cancelled
// before it ran (the array leaves the queue without that record), a controller killed between
// sbatch and journalling the job id, a controller that comes back after its array has left the
// queue (Slurm no longer knows the job), a run that fails all its attempts, and a lost run whose
// retries are spent. In every case no run is lost and none runs twice.
#include "array_fixture.h"

namespace hpcsens::cluster {
namespace {

// The run ids of one submission, in task order.
std::vector<std::string> ids_of(const std::string& out, int submission) {
  for (const auto& e : lines_of(out, "array_submitting"))
    if (e.value("submission", -1) == submission) return e["ids"].get<std::vector<std::string>>();
  return {};
}

// Drops the array_submitted line: the journal a controller killed after sbatch returned, before
// it journalled the job id, leaves behind.
void drop_submitted_line(const std::string& out) {
  std::string kept;
  for (const auto& e : journal(out + "/journal.jsonl"))
    if (e.value("type", "") != "array_submitted") kept += e.dump() + "\n";
  put(out + "/journal.jsonl", kept);
}

class ArrayRecovery : public ArraySweep {
 protected:
  // Starts the controller and kills it (SIGKILL) once sbatch's job id is journalled; with
  // `drop_job_id` the journal is left as a kill just before that line would leave it. Then,
  // with `cancel_and_drain`, task 3 (still pending) is cancelled and the array left to finish.
  // Returns the array's job id ("" if none was submitted).
  std::string submit_then_kill(bool drop_job_id, bool cancel_and_drain) {
    const auto proc = start_controller();
    const std::string job = job_id();
    if (job.empty()) return job;
    kill_controller(proc);
    if (drop_job_id) drop_submitted_line(out_);
    if (cancel_and_drain) {
      scancel_task(job, 3);
      wait_queue_empty(job);
    }
    return job;
  }
  sweep::testing::Result resume() {
    return on_host("node0", {kHpcsens, "sweep", "--no-fit", "--resume", out_}, work_, 90);
  }
};

TEST_F(ArraySweep, CancelledTaskIsResubmittedAloneByTheLiveController) {
  write_spec("retries: 1\n");
  const auto proc = start_controller();
  const std::string job = job_id();
  ASSERT_FALSE(job.empty()) << get(proc.err_path);
  scancel_task(job, 3);
  ASSERT_EQ(sweep::testing::wait_for(proc, 90), 0) << get(proc.err_path);
  const std::string cancelled = ids_of(out_, 0).at(3);
  EXPECT_EQ(ids_of(out_, 1), std::vector<std::string>{cancelled}) << get(proc.err_path);
  EXPECT_EQ(count_type(out_, "array_submitted"), 2);
  const auto failed = lines_of(out_, "run");
  int lost = 0;
  for (const auto& e : failed) lost += e.value("lost", false) && e.value("id", "") == cancelled;
  EXPECT_EQ(lost, 1);
  expect_complete();
}

TEST_F(ArraySweep, LostRunWithItsRetriesSpentIsSkipped) {
  const auto proc = start_controller();  // retries: 0
  const std::string job = job_id();
  ASSERT_FALSE(job.empty()) << get(proc.err_path);
  scancel_task(job, 3);
  EXPECT_EQ(sweep::testing::wait_for(proc, 90), 1) << get(proc.err_path);
  const std::string cancelled = ids_of(out_, 0).at(3);
  EXPECT_EQ(count_type(out_, "array_submitted"), 1);
  const auto skipped = lines_of(out_, "skipped");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0]["id"], cancelled);
  EXPECT_NE(skipped[0]["reason"].get<std::string>().find("left the queue without a record 1 times"), std::string::npos);
  EXPECT_EQ(starts().count(cancelled), 0u);
  EXPECT_FALSE(std::filesystem::exists(out_ + "/records/" + cancelled + ".json"));
}

TEST_F(ArrayRecovery, KilledBeforeJournallingTheJobIdFindsTheQueuedArrayByName) {
  const std::string job = submit_then_kill(true, false);
  ASSERT_FALSE(job.empty());
  const auto r = resume();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto subs = lines_of(out_, "array_submitted");
  ASSERT_EQ(subs.size(), 1u) << r.err;
  EXPECT_EQ(subs[0]["job_id"], job);
  EXPECT_EQ(subs[0]["found_by_name"], true);
  EXPECT_EQ(count_type(out_, "array_submitting"), 1);
  EXPECT_NE(r.err.find("re-attached to array job " + job), std::string::npos) << r.err;
  expect_complete();
}

// The controller died (after sbatch, before journalling the job id); while it was away one task
// was cancelled and the array left the queue. Back, it collects the three records and submits
// the fourth run alone.
TEST_F(ArrayRecovery, KilledBeforeJournallingTheJobIdAndTheArrayLeftTheQueue) {
  ASSERT_FALSE(submit_then_kill(true, true).empty());
  const auto r = resume();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(ids_of(out_, 1), std::vector<std::string>{ids_of(out_, 0).at(3)}) << r.err;
  EXPECT_EQ(r.err.find("re-attached"), std::string::npos) << r.err;
  expect_complete();
}

// The journal names the array's job id, but Slurm no longer has that job in its queue (it ended
// while the controller was away, one task cancelled): the three records are collected and only
// the missing run is submitted again.
TEST_F(ArrayRecovery, JournalledJobSlurmNoLongerQueuesResubmitsOnlyTheMissingRun) {
  ASSERT_FALSE(submit_then_kill(false, true).empty());
  const auto r = resume();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 2);
  EXPECT_EQ(ids_of(out_, 1), std::vector<std::string>{ids_of(out_, 0).at(3)}) << r.err;
  EXPECT_EQ(r.err.find("re-attached"), std::string::npos) << r.err;
  expect_complete();
}

// Point p01's job exits 3: each of its runs fails both attempts (retries: 1) inside its task,
// which writes an outcome file; the controller journals the failure with its reason and node
// and skips the run; nothing is resubmitted.
TEST_F(ArraySweep, FailedTaskWritesItsOutcomeAndIsJournalledWithItsReason) {
  write_job("case \"$HPCSENS_RUN_ID\" in p01-*) true;; *) false;; esac");
  write_spec("retries: 1\n");
  const auto r = on_host("node0", {kHpcsens, "sweep", "--no-fit", spec_}, work_, 90);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 1) << r.err;
  const auto ids = ids_of(out_, 0);
  std::map<std::string, nlohmann::json> failed;
  for (const auto& e : lines_of(out_, "run"))
    if (e.value("status", "") == "failed") failed[e["id"].get<std::string>()] = e;
  EXPECT_EQ(failed.size(), 2u);
  for (const char* id : {"p01-r1", "p01-r2"}) {
    const auto task = std::find(ids.begin(), ids.end(), id) - ids.begin();
    std::ifstream in(out_ + "/array/outcome-0-" + std::to_string(task) + ".json");
    ASSERT_TRUE(in) << id;
    const auto o = nlohmann::json::parse(in);
    EXPECT_EQ(o["status"], "failed");
    EXPECT_EQ(o["attempts"], 2);
    EXPECT_EQ(o["exit_status"], 3) << o.dump();
    const auto& j = failed[id];
    EXPECT_EQ(j["attempts"], 2);
    EXPECT_EQ(j["node"], o["node"]);
    EXPECT_NE(j["error"].get<std::string>().find("2 attempt(s): " + o["error"].get<std::string>()), std::string::npos)
        << j.dump();
    EXPECT_EQ(starts()[id], 2) << id;
    EXPECT_FALSE(std::filesystem::exists(out_ + "/records/" + std::string(id) + ".json"));
  }
  EXPECT_EQ(count_type(out_, "skipped"), 2);
  EXPECT_EQ(count_type(out_, "run", "ok"), 2);
  EXPECT_EQ(starts()["p00-r1"], 1);
  EXPECT_EQ(starts()["p00-r2"], 1);
}

}  // namespace
}  // namespace hpcsens::cluster

namespace hpcsens::cluster {
namespace {

// slurmctld out of reach for a few seconds while the controller watches (a labelled double:
// an squeue first in the controller's PATH that fails, as squeue does then, while a flag file
// exists, else runs the real one). The controller must wait, not call the runs lost.
TEST_F(ArraySweep, SqueueFailingForAWhileLosesAndResubmitsNothing) {
  const std::string bin = work_ + "/bin", flag = work_ + "/slurm-away";
  std::filesystem::create_directories(bin);
  put(bin + "/squeue", "#!/bin/sh\nif [ -e " + flag + " ]; then\n  echo 'slurm_load_jobs error: Unable to contact "
                       "slurm controller (connect failure)' >&2\n  exit 1\nfi\nexec /usr/bin/squeue \"$@\"\n");
  std::filesystem::permissions(bin + "/squeue", std::filesystem::perms::owner_all);
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", (bin + ":" + path).c_str(), 1);
  const auto proc = start_controller();
  ::setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(job_id().empty()) << get(proc.err_path);
  put(flag, "");
  std::this_thread::sleep_for(std::chrono::seconds(5));  // longer than a task: the array moves on
  std::filesystem::remove(flag);
  ASSERT_EQ(sweep::testing::wait_for(proc, 90), 0) << get(proc.err_path);
  EXPECT_NE(get(proc.err_path).find("Unable to contact slurm controller"), std::string::npos);
  EXPECT_EQ(count_type(out_, "array_submitted"), 1);
  EXPECT_EQ(count_type(out_, "run", "failed"), 0);
  expect_complete();
}

}  // namespace
}  // namespace hpcsens::cluster
