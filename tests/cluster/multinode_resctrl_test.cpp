// memory_backend: resctrl across the two hosts of the namespace cluster: inside `salloc -N 2`
// each point's group is made on every node (`--apply-point`), and a real `mpirun --host
// node0,node1` puts its ranks in them: node0's through the launcher the sweep started inside
// node0's group, node1's through Open MPI's launch agent (`hpcsens resctrl-join`), which joins
// node1's group before it becomes orted. Each host has its own resctrl double (hpcsens-kernel-
// model over the node-local DIR/local/sys/fs/resctrl, tests/sweep/resctrl_model.h); the job
// itself says, on each host, which group its process tree is in. Every group goes after the
// sweep, after SIGTERM, and after kill -9 + --restore.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "cluster_env.h"
#include "fake_sysfs.h"
#include "kernel_model.h"
#include "resctrl_model.h"

namespace hpcsens::cluster {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kModel = KERNEL_MODEL_EXE;  // hpcsens with the resctrl double
const std::vector<std::string> kNodes = {"node0", "node1"};

// The resctrl tree each node sees at DIR/local/sys/fs/resctrl, from outside the cluster.
std::string node_root(const std::string& node) { return Cluster::dir() + "/hosts.d/" + node + "/sys/fs/resctrl"; }

int count(const std::vector<json>& j, const std::string& type) {
  int n = 0;
  for (const auto& e : j) n += e["type"] == type;
  return n;
}

// Groups on `node` whose tasks hold a live process.
int live_group_tasks(const std::string& node) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(node_root(node))) {
    if (e.path().filename().string().rfind("hpcsens-", 0) != 0) continue;
    std::ifstream in(e.path() / "tasks");
    for (std::string pid; std::getline(in, pid);) n += !pid.empty() && ::kill(std::stoi(pid), 0) == 0;
  }
  return n;
}

bool has_group(const std::string& node) {
  for (const auto& e : fs::directory_iterator(node_root(node)))
    if (e.path().filename().string().rfind("hpcsens-", 0) == 0) return true;
  return false;
}

class MultiNodeResctrl : public ClusterTest {
 protected:
  std::map<std::string, std::map<std::string, std::string>> before;
  std::string out, spec, log;

  void SetUp() override {
    ClusterTest::SetUp();
    out = work_ + "/sweep", spec = work_ + "/spec.yaml", log = work_ + "/where.log";
    for (const auto& n : kNodes) {
      fs::remove_all(Cluster::dir() + "/hosts.d/" + n + "/sys");
      // Built from outside, mounted (as its mount table says) where the node sees it.
      sweep::testing::build_resctrl(node_root(n), {.mount_point = Cluster::dir() + "/local/sys/fs/resctrl"});
      before[n] = sweep::testing::snapshot(node_root(n));
    }
    // Each rank says its host and the group its process or an ancestor was put in (the double
    // has no kernel to move tasks: a group's tasks hold the pids written into it).
    const std::string root = Cluster::dir() + "/local/sys/fs/resctrl";
    put(work_ + "/job.sh", "#!/bin/sh\np=$$; g=none\nwhile [ \"$p\" -gt 1 ]; do\n  for d in " + root +
                               "/hpcsens-*; do [ -f \"$d/tasks\" ] && grep -qx \"$p\" \"$d/tasks\" && g=\"${d##*/} "
                               "$(grep MB: \"$d/schemata\")\"; done\n  p=$(cut -d' ' -f4 /proc/$p/stat)\ndone\n"
                               "echo \"$(hostname) $g\" >> " + log + "\nexec \"$@\"\n");
    fs::permissions(work_ + "/job.sh", fs::perms::owner_all);
  }
  void write_spec(const std::string& program, int timeout_s = 60) {
    put(spec, "job:\n  command: [mpirun, --host, 'node0,node1', -np, '2', '" + work_ + "/job.sh', " + program +
                  "]\n  timeout_s: " + std::to_string(timeout_s) + "\nknobs:\n  memory_backend: resctrl\n  mem_bw: [100, 30]\nretries: 0\n"
                  "order: sequential\noutput: " + out + "\nbackends: {sysfs_root: '" + Cluster::dir() + "/local/sys'}\n"
                  "calibration: {stream: true, clock: false, stream_array_mb: 4, stream_ntimes: 3}\n");
  }
  std::vector<std::string> salloc(std::vector<std::string> args) const {
    args.insert(args.begin(), {"salloc", "-N", "2", "-n", "2"});
    return args;
  }
  void expect_restored() {
    for (const auto& n : kNodes) {
      const auto now = sweep::testing::snapshot(node_root(n));
      for (const auto& [path, text] : before[n]) EXPECT_EQ(now.count(path) ? now.at(path) : "<missing>", text) << n << path;
      for (const auto& [path, text] : now) EXPECT_TRUE(before[n].count(path)) << n << " left behind: " << path;
    }
  }
  // Whether the job runs on every node: each host's rank said which group it is in, and each
  // node's group holds a live process (the launcher on node0, the joined orted on node1).
  bool job_runs_on_every_node() const {
    if (!fs::exists(log)) return false;
    const std::string text = get(log);
    for (const auto& n : kNodes)
      if (text.find(n + " hpcsens-") == std::string::npos || live_group_tasks(n) == 0) return false;
    return true;
  }
  // Starts a sweep whose job sleeps far longer than any test waits (it cannot end, time out or
  // fail on its own however slow a loaded machine is: only the signal ends it), and waits for
  // the state the signal tests need: the job running on both nodes inside their groups. The
  // bound is a failure bound for a sweep that never gets there, not a wait.
  sweep::testing::Proc start_sleeping() {
    write_spec("sleep, '3000'", 6000);
    auto p = sweep::testing::spawn({"/bin/bash", kScript, "exec", Cluster::dir(), "node0", "salloc", "-N", "2", "-n", "2",
                                    kModel, "sweep", spec, "--no-fit"}, work_);
    const bool running = sweep::testing::eventually([&] { return job_runs_on_every_node() || !alive(p); }, 240);
    EXPECT_TRUE(running && job_runs_on_every_node())
        << "the job never ran on both nodes; the sweep said:\n" << get(p.err_path) << "\njob log:\n"
        << (fs::exists(log) ? get(log) : "(none)");
    return p;
  }
  // Still running (not reaped: wait_for reaps it later).
  static bool alive(const sweep::testing::Proc& p) {
    siginfo_t si{};
    return ::waitid(P_PID, p.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
  }
  // Starts the sleeping sweep and signals its controller once the job runs on both nodes.
  sweep::testing::Proc start_and_signal(int sig) {
    const auto p = start_sleeping();
    EXPECT_TRUE(has_group("node0") && has_group("node1")) << get(p.err_path);
    const pid_t ctl = sweep_controller_pid(kModel, spec);
    EXPECT_GT(ctl, 0);
    if (ctl > 0) ::kill(ctl, sig);
    sweep::testing::wait_for(p, 120);
    return p;
  }
};

TEST_F(MultiNodeResctrl, EveryNodesRanksRunInThatNodesGroupAndEveryGroupGoes) {
  write_spec("'" + std::string(CLUSTER_PROG_OMPI) + "'");
  const auto r = on_host("node0", salloc({kModel, "sweep", spec, "--no-fit"}), work_, 110);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto token = json_lines(out + "/journal.jsonl").front()["token"].get<std::string>();
  // Point 0 at 100 %, point 1 at 30 %, each rank inside its own host's group at that point's value.
  std::ifstream in(log);
  std::multiset<std::string> seen;
  for (std::string l; std::getline(in, l);) seen.insert(l);
  const std::multiset<std::string> want = {
      "node0 hpcsens-" + token + " MB:0=100;1=100", "node1 hpcsens-" + token + " MB:0=100;1=100",
      "node0 hpcsens-" + token + " MB:0=30;1=30", "node1 hpcsens-" + token + " MB:0=30;1=30"};
  EXPECT_EQ(seen, want) << r.err;
  // node1's daemon joined through the agent, for the calibrator and for the job; node0's
  // ranks are the launcher's children here.
  for (const std::string run : {"p00-r1-a1", "p00-r1-a1-cal", "p01-r1-a1", "p01-r1-a1-cal"}) {
    std::vector<std::string> noted;
    for (const auto& e : fs::directory_iterator(out + "/resctrl-joins/" + run)) noted.push_back(e.path().filename());
    ASSERT_EQ(noted.size(), 1u) << run;
    EXPECT_EQ(noted[0].rfind("node1.", 0), 0u) << run << ": " << noted[0];
  }
  for (const auto& n : kNodes) {
    const auto j = json_lines(out + "/nodes/" + n + "/journal.jsonl");
    EXPECT_EQ(count(j, "resctrl_group"), 1) << n;  // one group per node for the sweep, rewritten per point
    EXPECT_EQ(count(j, "resctrl_removed"), 1) << n;
  }
  for (const std::string id : {"p00", "p01"}) {
    std::ifstream rec(out + "/records/" + id + "-r1.json");
    const auto j = json::parse(rec);
    EXPECT_EQ(j["job"]["hosts"], json({"node0", "node1"}));
    EXPECT_EQ(j["config"]["mem_bw_set"], id == "p00" ? 100 : 30);
    EXPECT_EQ(j["config"]["mem_bw_hosts_in_group"], json({"node0", "node1"}));
    EXPECT_GT(j["config"]["mem_gbs"].get<double>(), 0);
  }
  expect_restored();
}

// Verify, don't trust: outside an allocation the sweep makes node0's group only, and the ranks
// `mpirun --host` starts on node1 run outside any group. The check after the first run finds
// node1 in the record without a join and stops the sweep (exit 2) before any record counts.
TEST_F(MultiNodeResctrl, ASweepWhoseRanksRanOutsideTheGroupStopsAndKeepsNoRecord) {
  write_spec("'" + std::string(CLUSTER_PROG_OMPI) + "'");
  const auto r = on_host("node0", {kModel, "sweep", spec, "--no-fit"}, work_, 110);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("at point mb100 the ranks on node1 ran outside the point's resctrl group"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("run every rank on this node, or run the sweep inside a Slurm allocation"), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(out + "/records"));
  EXPECT_FALSE(fs::exists(out + "/nodes"));
  expect_restored();
}

TEST_F(MultiNodeResctrl, SigtermRemovesTheGroupOnEveryNode) {
  const auto p = start_and_signal(SIGTERM);
  EXPECT_NE(get(p.err_path).find("stopped by signal 15"), std::string::npos) << get(p.err_path);
  expect_restored();
}

TEST_F(MultiNodeResctrl, KillNineThenRestoreRemovesTheGroupOnEveryNode) {
  start_and_signal(SIGKILL);
  // The job dies with its run module (PDEATHSIG), orted with its mpirun.
  for (const auto& n : kNodes) {
    EXPECT_TRUE(has_group(n)) << n;
    EXPECT_TRUE(sweep::testing::eventually([&] { return live_group_tasks(n) == 0; }, 30)) << n;
  }
  const auto r = on_host("node0", salloc({kModel, "sweep", "--restore", out}), work_, 60);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  expect_restored();
}

}  // namespace
}  // namespace hpcsens::cluster
