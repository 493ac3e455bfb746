// A sweep submitted as a Slurm job array (execution: slurm-array) on the namespace cluster:
// 4 runs, at most 2 at a time, each task a 2-rank srun job that fills one node, so the two
// tasks running together land on the two nodes. The controller journals submission and
// arrivals; killed with SIGKILL after submission, `--resume` re-attaches to the same array and
// no run starts twice. Each job appends its run id (from rank 0) to started.log.
#include <signal.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "cluster_env.h"

namespace hpcsens::cluster {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kHpcsens = HPCSENS_EXE;

std::vector<json> journal(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line, nullptr, false));
  return out;
}

int count_type(const std::string& out, const std::string& type, const std::string& status = "") {
  int n = 0;
  for (const auto& e : journal(out + "/journal.jsonl"))
    n += e.value("type", "") == type && (status.empty() || e.value("status", "") == status);
  return n;
}

// The controller (not an array task, whose command line also names the spec).
pid_t controller_pid(const std::string& spec) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string cmd = get(e.path().string() + "/cmdline");
    if (cmd.rfind(kHpcsens + '\0' + "sweep", 0) == 0 && cmd.find(spec) != std::string::npos &&
        cmd.find("--array-task") == std::string::npos)
      return std::stoi(e.path().filename().string());
  }
  return -1;
}

class ArraySweep : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    out_ = work_ + "/sweep";
    spec_ = work_ + "/spec.yaml";
    put(work_ + "/job.sh", "#!/bin/sh\n[ \"$SLURM_PROCID\" = 0 ] && echo \"$HPCSENS_RUN_ID\" >> " + work_ +
                               "/started.log\nsleep 1.5\nexec " + CLUSTER_PROG_OMPI + "\n");
    fs::permissions(work_ + "/job.sh", fs::perms::owner_all);
    put(spec_, "execution: slurm-array\narray_max_running: 2\n"
               "job:\n  command: [srun, --mpi=pmix, -n, '2', '" + work_ + "/job.sh']\n  timeout_s: 30\n" +
               "knobs:\n  cpu_ghz: [1.2, 2.0]\n  cpu_backend: slurm\nrepetitions: 2\nseed: 5\nretries: 0\n" +
               "output: " + out_ + "\ncalibration: {stream: false}\n");
  }

  // Every run exactly once: one record each, one "ok" line each, one start each; both nodes.
  void expect_complete() {
    std::set<std::string> ids, nodes;
    for (const auto& e : fs::directory_iterator(out_ + "/records")) {
      std::ifstream in(e.path());
      const auto rec = json::parse(in);
      EXPECT_EQ(rec["complete"], true) << e.path();
      EXPECT_EQ(rec["config"]["sweep_run_id"].get<std::string>() + ".json", e.path().filename().string());
      nodes.insert(rec["config"]["node"].get<std::string>());
      ids.insert(e.path().stem().string());
    }
    EXPECT_EQ(ids, (std::set<std::string>{"p00-r1", "p00-r2", "p01-r1", "p01-r2"}));
    EXPECT_EQ(nodes, (std::set<std::string>{"node0", "node1"}));
    std::map<std::string, int> ok, started;
    for (const auto& e : journal(out_ + "/journal.jsonl"))
      if (e.value("type", "") == "run" && e.value("status", "") == "ok") ++ok[e["id"].get<std::string>()];
    std::ifstream log(work_ + "/started.log");
    for (std::string line; std::getline(log, line);) ++started[line.substr(0, line.rfind("-a"))];
    for (const auto& id : ids) {
      EXPECT_EQ(ok[id], 1) << id;
      EXPECT_EQ(started[id], 1) << id << " started more than once (or never)";
    }
  }

  std::string out_, spec_;
};

TEST_F(ArraySweep, FourRunsCapTwoOnBothNodes) {
  const auto r = on_host("node0", {kHpcsens, "sweep", "--no-fit", spec_}, work_, 90);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 1);
  EXPECT_NE(r.err.find("at most 2 at a time"), std::string::npos) << r.err;
  expect_complete();
}

TEST_F(ArraySweep, KillNineAfterSubmissionThenResumeReattaches) {
  const auto proc = sweep::testing::spawn(
      {"/bin/bash", kScript, "exec", Cluster::dir(), "node0", kHpcsens, "sweep", "--no-fit", spec_}, work_);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (count_type(out_, "run", "ok") < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(count_type(out_, "run", "ok"), 1) << get(proc.err_path);
  const pid_t ctl = controller_pid(spec_);
  ASSERT_GT(ctl, 0);
  ASSERT_EQ(::kill(ctl, SIGKILL), 0);
  sweep::testing::wait_for(proc, 30);
  ASSERT_LT(count_type(out_, "run", "ok"), 4) << "the sweep finished before the kill";

  const auto resume = on_host("node0", {kHpcsens, "sweep", "--no-fit", "--resume", out_}, work_, 90);
  ASSERT_EQ(resume.status, 0) << resume.out << resume.err;
  EXPECT_EQ(count_type(out_, "array_submitted"), 1) << "resubmitted instead of re-attaching:\n" << resume.err;
  EXPECT_NE(resume.err.find("re-attached to array job"), std::string::npos) << resume.err;
  expect_complete();
}

}  // namespace
}  // namespace hpcsens::cluster
