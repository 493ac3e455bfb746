// A frequency sweep across two Slurm nodes of the namespace cluster: inside `salloc -N 2` the
// sweep applies each point on every node through `srun --nodes=2 ... --apply-point`, each node
// writing its own fake sysfs tree (a test double: the node-local directory DIR/local/sysfs is a
// different tree on each host). The controller is killed with SIGKILL mid-sweep; `--restore`
// then puts every node's knobs back, and `--resume` finishes the sweep without losing a run.
#include <signal.h>

#include <chrono>
#include <thread>

#include "cluster_env.h"
#include "fake_sysfs.h"

namespace hpcsens::cluster {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using sweep::testing::make_acpi_cpufreq;
using sweep::testing::policy_dir;

const std::string kHpcsens = HPCSENS_EXE;
const std::vector<std::string> kNodes = {"node0", "node1"};
const std::vector<std::string> kFiles = {"scaling_governor", "scaling_setspeed"};

// The tree each node sees at DIR/local/sysfs, from outside the cluster.
std::string node_sysfs(const std::string& node) { return Cluster::dir() + "/hosts.d/" + node + "/sysfs"; }

std::string knob(const std::string& node, int policy, const std::string& file) {
  return get(policy_dir(node_sysfs(node), policy) + "/" + file);
}

int runs_done(const std::string& out) {
  int n = 0;
  for (const auto& e : json_lines(out + "/journal.jsonl")) n += e["type"] == "run" && e["status"] == "ok";
  return n;
}

pid_t controller_pid(const std::string& spec) { return sweep_controller_pid(kHpcsens, spec); }

using MultiNodeSweep = ClusterTest;

TEST_F(MultiNodeSweep, KillNineThenRestoreAndResumeOnEveryNode) {
  // Different originals per node, so a restore from the wrong node's journal would show.
  for (const auto& n : kNodes) {
    fs::remove_all(node_sysfs(n));
    make_acpi_cpufreq(node_sysfs(n), 2);
  }
  put(policy_dir(node_sysfs("node1"), 0) + "/scaling_governor", "performance");
  const std::string out = work_ + "/sweep", spec = work_ + "/spec.yaml";
  // Each run sleeps long enough for the kill to land between runs or inside one.
  put(work_ + "/job.sh", std::string("#!/bin/sh\nsleep 0.4\nexec ") + CLUSTER_PROG_OMPI + "\n");
  fs::permissions(work_ + "/job.sh", fs::perms::owner_all);
  put(spec, "job:\n  command: [srun, --mpi=pmix, -N, '2', -n, '4', '" + work_ + "/job.sh']\n  timeout_s: 30\n" +
                "knobs:\n  cpu_ghz: [1.2, 2.0]\n  cpu_backend: cpufreq\nrepetitions: 2\nseed: 5\nretries: 0\n" +
                "output: " + out + "\nbackends:\n  sysfs_root: " + Cluster::dir() + "/local/sysfs\n" +
                "calibration: {stream: false, clock: false}\n");  // the fake trees do not drive these cores

  // 1. Start the sweep in a two-node allocation and SIGKILL its controller after the first run.
  const auto proc = sweep::testing::spawn(
      {"/bin/bash", kScript, "exec", Cluster::dir(), "node0", "salloc", "-N", "2", "-n", "4", kHpcsens, "sweep", spec}, work_);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while (runs_done(out) < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_GE(runs_done(out), 1) << get(proc.err_path);
  const pid_t ctl = controller_pid(spec);
  ASSERT_GT(ctl, 0);
  ASSERT_EQ(::kill(ctl, SIGKILL), 0);
  sweep::testing::wait_for(proc, 30);
  const int before = runs_done(out);
  ASSERT_LT(before, 4) << "the sweep finished before the kill";

  // The kill left the sweep's settings on both nodes, and each node journalled its originals.
  for (const auto& n : kNodes) {
    EXPECT_EQ(knob(n, 1, "scaling_governor"), "userspace") << n;
    EXPECT_TRUE(fs::exists(out + "/nodes/" + n + "/journal.jsonl")) << n;
  }

  // 2. --restore puts every node's knobs back to its own originals.
  const auto restore = on_host("node0", {"salloc", "-N", "2", "-n", "4", kHpcsens, "sweep", "--restore", out}, work_, 60);
  ASSERT_EQ(restore.status, 0) << restore.out << restore.err;
  SCOPED_TRACE(restore.err);
  for (const auto& n : kNodes)
    for (int p = 0; p < 2; ++p) {
      EXPECT_EQ(knob(n, p, "scaling_governor"), n == "node1" && p == 0 ? "performance" : "ondemand") << n << p;
    }

  // 3. --resume finishes the sweep: every run exactly once, with its record, knobs restored.
  const auto resume = on_host("node0", {"salloc", "-N", "2", "-n", "4", kHpcsens, "sweep", "--resume", out}, work_, 90);
  ASSERT_EQ(resume.status, 0) << resume.out << resume.err;
  EXPECT_EQ(runs_done(out), 4) << "lost or repeated runs (" << before << " before the kill)";
  int records = 0;
  for (const auto& e : fs::directory_iterator(out + "/records")) {
    std::ifstream in(e.path());
    const auto rec = json::parse(in);
    EXPECT_EQ(rec["job"]["hosts"], json({"node0", "node1"})) << e.path();
    EXPECT_EQ(rec["complete"], true);
    ++records;
  }
  EXPECT_EQ(records, 4);
  for (const auto& n : kNodes) {
    EXPECT_EQ(knob(n, 0, "scaling_governor"), n == "node1" ? "performance" : "ondemand") << n;
    EXPECT_EQ(knob(n, 1, "scaling_governor"), "ondemand") << n;
  }
}

}  // namespace
}  // namespace hpcsens::cluster
