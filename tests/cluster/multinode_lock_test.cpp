// Two multi-node sweeps that share a node cannot both change its knobs. Each host of the
// namespace cluster keeps its machine-wide sweep locks in its node-local directory (DIR/local,
// as /run/hpcsens is node-local on a real cluster) and has its own fake sysfs tree (a test double
// of the cpufreq files). Sweep A runs across node0 and node1 (controller on node0); sweep B, in
// its own two-node allocation started on node1, is refused before changing anything, and so are
// B's per-node tasks on both nodes, while A's own node tasks pass A's controller's lock on node0.
// And a sweep whose node task is refused on one node stops (exit 2) and restores its others.
#include <chrono>
#include <thread>

#include "cluster_env.h"
#include "fake_sysfs.h"

namespace hpcsens::cluster {
namespace {

namespace fs = std::filesystem;
using sweep::testing::make_acpi_cpufreq;
using sweep::testing::policy_dir;

const std::string kHpcsens = HPCSENS_EXE;
const std::vector<std::string> kNodes = {"node0", "node1"};

std::string node_sysfs(const std::string& node) { return Cluster::dir() + "/hosts.d/" + node + "/sysfs"; }
std::string knob(const std::string& node, int policy, const std::string& file) {
  return get(policy_dir(node_sysfs(node), policy) + "/" + file);
}

int runs_done(const std::string& out) {
  int n = 0;
  std::ifstream in(out + "/journal.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      const auto e = nlohmann::json::parse(line, nullptr, false);
      n += e.is_object() && e.value("type", "") == "run" && e.value("status", "") == "ok";
    }
  return n;
}

pid_t controller_pid(const std::string& spec) { return sweep_controller_pid(kHpcsens, spec); }

std::string spec_text(const std::string& work, const std::string& out, const std::string& ghz, int reps, int nodes = 2) {
  const std::string n = "'" + std::to_string(nodes) + "'";
  return "job:\n  command: [srun, --mpi=pmix, -N, " + n + ", -n, " + n + ", '" + work + "/job.sh']\n  timeout_s: 30\n"
         "knobs:\n  cpu_ghz: [" + ghz + "]\n  cpu_backend: cpufreq\nrepetitions: " + std::to_string(reps) +
         "\nseed: 3\nretries: 0\noutput: " + out + "\nbackends:\n  sysfs_root: " + Cluster::dir() + "/local/sysfs\n"
         "calibration: {stream: false, clock: false}\n";  // the fake trees do not drive these cores
}

// The governor is what restoring puts back (a fake scaling_setspeed keeps its last value, where
// the real one reads <unsupported> again under ondemand).
bool original(const std::string& node) {
  for (int p = 0; p < 2; ++p)
    if (knob(node, p, "scaling_governor") != "ondemand") return false;
  return true;
}

// Fresh fake sysfs trees, node-local lock directories, a job that takes long enough for the
// other sweep to meet it, and the two sweeps' directories and specs.
class MultiNodeLock : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    ::setenv("HPCSENS_LOCK_DIR", (Cluster::dir() + "/local/" + locks_).c_str(), 1);
    for (const auto& n : kNodes) {
      fs::remove_all(node_sysfs(n));
      make_acpi_cpufreq(node_sysfs(n), 2);
    }
    put(work_ + "/job.sh", std::string("#!/bin/sh\nsleep 1.5\nexec ") + CLUSTER_PROG_OMPI + "\n");
    fs::permissions(work_ + "/job.sh", fs::perms::owner_all);
    out_a = work_ + "/a", out_b = work_ + "/b", spec_a = work_ + "/a.yaml", spec_b = work_ + "/b.yaml";
  }
  void TearDown() override {
    for (const auto& n : kNodes) fs::remove_all(Cluster::dir() + "/hosts.d/" + n + "/" + locks_);
    ClusterTest::TearDown();
  }
  const std::string locks_ = "locks-" + std::to_string(::getpid());
  std::string out_a, out_b, spec_a, spec_b;
};

TEST_F(MultiNodeLock, TwoMultiNodeSweepsSharingANodeCannotBothChangeItsKnobs) {
  put(spec_a, spec_text(work_, out_a, "1.2, 2.0", 3));
  put(spec_b, spec_text(work_, out_b, "2.4", 1));

  const auto a = sweep::testing::spawn({"/bin/bash", kScript, "exec", Cluster::dir(), "node0", "salloc", "-N", "2",
                                        "-n", "2", kHpcsens, "sweep", spec_a}, work_);
  // A's node task has changed node1's knobs (and ended: between points no process holds them).
  ASSERT_TRUE(sweep::testing::eventually([&] { return knob("node1", 0, "scaling_governor") == "userspace"; }, 40))
      << get(a.err_path);
  const pid_t ctl = controller_pid(spec_a);
  ASSERT_GT(ctl, 0);

  // 1. Sweep B across the same two nodes, its controller on node1: refused, nothing changed.
  const auto b = on_host("node1", {"salloc", "-N", "2", "-n", "2", "--immediate=30", kHpcsens, "sweep", spec_b}, work_, 60);
  EXPECT_EQ(b.status, 2) << b.err;
  EXPECT_NE(b.err.find("are in use by the multi-node sweep in " + out_a), std::string::npos) << b.err;

  // 2. B's node tasks, as its controller would start them on each node: refused, nothing changed.
  for (const auto& n : kNodes) {
    const auto t = on_host(n, {"env", "HPCSENS_SWEEP_TOKEN=token-of-b", kHpcsens, "sweep", spec_b, "--apply-point", "0",
                               "--dir", out_b}, work_);
    EXPECT_EQ(t.status, 2) << n << ": " << t.err;
    const std::string why = n == "node0" ? "are in use by another hpcsens sweep (pid " + std::to_string(ctl) + " on node0"
                                         : "are in use by the multi-node sweep in " + out_a;
    EXPECT_NE(t.err.find(why), std::string::npos) << n << ": " << t.err;
    for (int p = 0; p < 2; ++p) EXPECT_NE(knob(n, p, "scaling_setspeed"), "2400000") << n << " was changed by B";
    EXPECT_FALSE(fs::exists(out_b + "/nodes/" + n + "/journal.jsonl")) << n;
  }

  // 3. A, whose node task on node0 passed its own controller's lock, finishes and restores both.
  EXPECT_EQ(sweep::testing::wait_for(a, 120), 0) << get(a.err_path);
  EXPECT_EQ(runs_done(out_a), 6);
  for (const auto& n : kNodes) EXPECT_TRUE(original(n)) << n;

  // 4. With A restored, B's node task may have node1; its --restore puts it back.
  const auto t = on_host("node1", {"env", "HPCSENS_SWEEP_TOKEN=token-of-b", kHpcsens, "sweep", spec_b, "--apply-point",
                                   "0", "--dir", out_b}, work_);
  EXPECT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(knob("node1", 1, "scaling_setspeed"), "2400000");
  const auto r = on_host("node1", {"env", "HPCSENS_SWEEP_NODE_TASK=1", kHpcsens, "sweep", "--restore", out_b}, work_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(original("node1"));
}

// B's own controller runs where nothing blocks it (node1), but its node task on node0 meets A's
// controller lock there: the task changes nothing on node0, and B stops with exit 2 after putting
// back what its task on node1 applied.
TEST_F(MultiNodeLock, RefusedNodeTaskStopsTheSweepWhichRestoresItsOtherNodes) {
  put(spec_a, spec_text(work_, out_a, "1.2, 2.0", 2, 1));
  put(spec_b, spec_text(work_, out_b, "2.4", 1));
  // A: one node (node0), its controller holding node0's knobs for the whole sweep.
  const auto a = sweep::testing::spawn({"/bin/bash", kScript, "exec", Cluster::dir(), "node0", "salloc", "-N", "1", "-n",
                                        "1", "-w", "node0", kHpcsens, "sweep", spec_a}, work_);
  ASSERT_TRUE(sweep::testing::eventually([&] { return knob("node0", 0, "scaling_governor") == "userspace"; }, 40))
      << get(a.err_path);
  const pid_t ctl = controller_pid(spec_a);
  ASSERT_GT(ctl, 0);
  const auto b = on_host("node1", {"salloc", "-N", "2", "-n", "2", "--immediate=30", kHpcsens, "sweep", spec_b}, work_, 90);
  EXPECT_EQ(b.status, 2) << b.err;
  // The controller's own error names the node and its reason (from nodes/node0/refused), whether
  // or not srun passed the node task's stderr on.
  EXPECT_NE(b.err.find("point 0: a node refused to apply it: node0: the knobs under " + Cluster::dir() + "/local/sysfs on node0: are in use by another "
                       "hpcsens sweep (pid " + std::to_string(ctl) + " on node0"), std::string::npos)
      << b.err;
  EXPECT_NE(b.err.find("point 0: a node refused to apply it"), std::string::npos) << b.err;
  for (int p = 0; p < 2; ++p) EXPECT_NE(knob("node0", p, "scaling_setspeed"), "2400000") << "B changed node0";
  EXPECT_FALSE(fs::exists(out_b + "/nodes/node0/journal.jsonl"));
  EXPECT_TRUE(original("node1")) << "B's change on node1 was not put back";
  EXPECT_EQ(sweep::testing::wait_for(a, 120), 0) << get(a.err_path);
  EXPECT_EQ(runs_done(out_a), 4);
  for (const auto& n : kNodes) EXPECT_TRUE(original(n)) << n;
}

}  // namespace
}  // namespace hpcsens::cluster
