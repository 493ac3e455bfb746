// memory_backend: resctrl end to end, through the real CLI over the resctrl double
// (hpcsens-kernel-model installs ResctrlModel): a group per point with the point's MB: line,
// the calibrator (STREAM) and the job's ranks inside it, every group removed after a normal
// end, a failing job, SIGTERM, and kill -9 + --restore; the double's tree is back byte for
// byte, and a group the sweep did not make is never touched. The throttle itself is the
// double's (this VM has no MBA): STREAM runs for real but its GB/s do not follow the value.
#include <signal.h>
#include <sys/file.h>

#include "kernel_model.h"
#include "resctrl_model.h"
#include "sweep/execute/resctrl_join.h"
#include "sweep_cli_helpers.h"

namespace hpcsens::sweep {
namespace {

using namespace testing;
using nlohmann::json;
namespace fs = std::filesystem;

class ResctrlSweep : public ::testing::Test {
 protected:
  TempDir t;
  std::string sys = t.path() + "/sys", root = sys + "/fs/resctrl", out = t.path() + "/out", log = t.path() + "/groups.txt";
  std::map<std::string, std::string> before;

  void SetUp() override {
    build_resctrl(root, {});
    fs::create_directories(root + "/batch");  // another user's group: never ours to remove
    put(root + "/batch/tasks", "");
    before = snapshot(root);
    // Says which group the process (or an ancestor) was put in, and that group's MB: line.
    const std::string where = "p=$$; g=none\nwhile [ \"$p\" -gt 1 ]; do\n  for d in " + root +
                              "/hpcsens-*; do [ -f \"$d/tasks\" ] && grep -qx \"$p\" \"$d/tasks\" && g=\"${d##*/} "
                              "$(grep MB: \"$d/schemata\")\"; done\n  p=$(cut -d' ' -f4 /proc/$p/stat)\ndone\n";
    put(t.path() + "/cal.sh", where + "echo \"cal $g\" >> " + log + "\nexec \"$@\"\n");
    put(t.path() + "/job.sh", where + "echo \"job $g\" >> " + log + "\nexec " + kStream +
                                  " --array-bytes 4000000 --ntimes 3\n");
  }
  std::string spec(const std::string& command, const std::string& mb = "[100, 15]") const {
    return "job:\n  command: " + command + "\n  timeout_s: 60\nknobs:\n  memory_backend: resctrl\n  mem_bw: " + mb +
           "\nbackends: {sysfs_root: '" + sys + "'}\ncalibration: {stream: true, clock: false, stream_array_mb: 4, "
           "stream_ntimes: 3, launcher: [sh, '" + t.path() + "/cal.sh', mpirun, -np, '1', --oversubscribe]}\n"
           "retries: 0\norder: sequential\n";
  }
  std::string job() const { return "[mpirun, -np, '1', --oversubscribe, sh, '" + t.path() + "/job.sh']"; }
  Result sweep(const std::string& command, const std::string& mb = "[100, 15]") {
    put(t.path() + "/spec.yaml", spec(command, mb));
    return run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  }
  void expect_restored() {
    const auto now = snapshot(root);
    for (const auto& [path, text] : before) EXPECT_EQ(now.count(path) ? now.at(path) : "<missing>", text) << path;
    for (const auto& [path, text] : now) EXPECT_TRUE(before.count(path)) << "left behind: " << path;
  }
  std::vector<std::string> lines() const {
    std::ifstream in(log);
    std::vector<std::string> v;
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  }
  int live_group_tasks() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.path().filename().string().rfind("hpcsens-", 0) != 0) continue;
      std::ifstream in(e.path() / "tasks");
      for (std::string pid; std::getline(in, pid);) n += !pid.empty() && ::kill(std::stoi(pid), 0) == 0;
    }
    return n;
  }
  Proc start_sleeping() {
    put(t.path() + "/spec.yaml", spec("[sleep, '30']"));
    return spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  }
};

TEST_F(ResctrlSweep, EachPointRunsStreamAndTheJobInsideItsGroupAndNothingIsLeft) {
  const auto r = sweep(job());
  ASSERT_EQ(r.status, 0) << r.err;
  expect_restored();
  const auto token = journal(out).front()["token"].get<std::string>();
  // Point 0 at 100 %, point 1 asked 15 %, which the kernel runs at 20 % (granularity 10).
  // One group for the sweep, its MB: line rewritten per point.
  const std::vector<std::string> want = {
      "cal hpcsens-" + token + " MB:0=100;1=100", "job hpcsens-" + token + " MB:0=100;1=100",
      "cal hpcsens-" + token + " MB:0=20;1=20", "job hpcsens-" + token + " MB:0=20;1=20"};
  EXPECT_EQ(lines(), want) << r.err;
  const long set[] = {100, 20}, asked[] = {100, 15};
  for (int i = 0; i < 2; ++i) {
    std::ifstream in(out + "/records/p0" + std::to_string(i) + "-r1.json");
    const auto c = json::parse(in)["config"];
    EXPECT_EQ(c["mem_bw_requested"], asked[i]);
    EXPECT_EQ(c["mem_bw_set"], set[i]);
    EXPECT_EQ(c["mem_bw_unit"], "percent");
    EXPECT_EQ(c["mem_bw_hosts_in_group"], json({this_host_name()}));
    ASSERT_TRUE(c.contains("mem_gbs")) << c.dump();
    EXPECT_GT(c["mem_gbs"].get<double>(), 0);  // measured inside the group, not the percentage
  }
  const auto j = journal(out);
  EXPECT_EQ(count_type(j, "resctrl_group"), 1);
  EXPECT_EQ(count_type(j, "resctrl_removed"), 1);
}

// Each mkdir takes an RMID and an rmdir'd group's RMID stays in limbo: with one RMID left
// beside the default group's, a group per point failed at the second point (EBUSY, "Out of
// RMIDs"); the sweep's one group serves all three.
TEST_F(ResctrlSweep, WhereRmidsAreScarceOneGroupServesEveryPoint) {
  build_resctrl(root, {.num_rmids = 3});  // the default group and `batch` hold two
  const auto r = sweep(job(), "[100, 50, 20]");
  ASSERT_EQ(r.status, 0) << r.err;
  const long set[] = {100, 50, 20};
  for (int i = 0; i < 3; ++i) {
    std::ifstream in(out + "/records/p0" + std::to_string(i) + "-r1.json");
    EXPECT_EQ(json::parse(in)["config"]["mem_bw_set"], set[i]) << i;
  }
  EXPECT_EQ(count_type(journal(out), "resctrl_group"), 1);
  for (const auto& e : fs::directory_iterator(root))
    EXPECT_NE(e.path().filename().string().rfind("hpcsens-", 0), 0u) << "left behind: " << e.path();
}

// The kernel's reason for a refused mkdir reaches the user: here every CLOSID is taken.
TEST_F(ResctrlSweep, AMkdirTheKernelRefusesSaysTheKernelsReason) {
  build_resctrl(root, {.num_closids = 2});  // the default group and `batch` hold both
  before = snapshot(root);
  const auto r = sweep(job(), "[100]");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device (kernel: Out of CLOSIDs)"), std::string::npos) << r.err;
  before["info/last_cmd_status"] = "Out of CLOSIDs\n";  // the kernel's last word stays
  expect_restored();
}

// Mounted with mba_MBps the kernel keeps MiB/s: a default group an admin capped at 2000 MiB/s
// is not an AMD part, and the records say MiB/s.
TEST_F(ResctrlSweep, AnMbaMBpsMountRecordsMiBPerSecond) {
  build_resctrl(root, {.mba_mbps = true, .default_mb = 2000});
  before = snapshot(root);
  const auto r = sweep(job(), "[2000, 555]");
  ASSERT_EQ(r.status, 0) << r.err;
  const long set[] = {2000, 555};
  for (int i = 0; i < 2; ++i) {
    std::ifstream in(out + "/records/p0" + std::to_string(i) + "-r1.json");
    const auto c = json::parse(in)["config"];
    EXPECT_EQ(c["mem_bw_unit"], "MiB/s");
    EXPECT_EQ(c["mem_bw_set"], set[i]);  // the software controller keeps the value as it is
  }
  expect_restored();
}

// AMD's maximum is in no info file: the sweep reads it from its new group (the kernel starts a
// group at it) and stops before any point runs when a value is above it (exit 2).
TEST_F(ResctrlSweep, AnAmdMaximumIsReadFromTheNewGroupNotAssumed) {
  build_resctrl(root, {.amd = true, .amd_max = 1024});
  before = snapshot(root);
  const auto r = sweep(job(), "[1024, 2000]");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("knobs.mem_bw: 2000 is above this node's maximum MB: value 1024 (1/8 GB/s"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out + "/records/p00-r1.json"));
  expect_restored();
}

TEST_F(ResctrlSweep, TheDryRunShowsEachPointsGroupAndMakesNothing) {
  put(t.path() + "/spec.yaml", spec(job()));
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("resctrl group " + root + "/hpcsens-TOKEN (one for the sweep, made at its first point): "
                       "schemata <- MB:0=20;1=20 (requested 15, percent)"),
            std::string::npos) << r.out;
  expect_restored();
  EXPECT_FALSE(fs::exists(out + "/journal.jsonl"));
}

TEST_F(ResctrlSweep, AFailingJobStillRemovesTheGroup) {
  const auto r = sweep("[sh, -c, 'exit 3']");
  EXPECT_EQ(r.status, 1) << r.err;
  expect_restored();
}

TEST_F(ResctrlSweep, SigtermMidRunRemovesTheGroup) {
  const auto p = start_sleeping();
  ASSERT_TRUE(eventually([&] { return !descendants_named(p.pid, "sleep").empty(); }, 60)) << get(p.err_path);
  EXPECT_NE(snapshot(root), before);  // the point's group is there
  ::kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, 30), 143) << get(p.err_path);
  expect_restored();
}

TEST_F(ResctrlSweep, KillNineThenRestoreRemovesTheJournalledGroupsOnly) {
  const auto p = start_sleeping();
  std::vector<pid_t> sleeps;
  ASSERT_TRUE(eventually([&] { return !(sleeps = descendants_named(p.pid, "sleep")).empty(); }, 60)) << get(p.err_path);
  ::kill(p.pid, SIGKILL);
  EXPECT_EQ(wait_for(p, 10), 128 + SIGKILL);
  for (pid_t s : sleeps) ::kill(s, SIGKILL);
  EXPECT_NE(snapshot(root), before);
  // The run module dies of its PDEATHSIG; a task still alive at the rmdir would (rightly) land
  // in the default group's tasks.
  EXPECT_TRUE(eventually([&] { return live_group_tasks() == 0; }, 30));
  const auto r = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("removed resctrl group"), std::string::npos) << r.err;
  expect_restored();
  EXPECT_TRUE(fs::exists(root + "/batch"));
}

TEST_F(ResctrlSweep, ARestoreRefusesAGroupTheSweepCouldNotHaveMade) {
  fs::create_directories(out);
  ::chmod(out.c_str(), 0700);
  std::ofstream(out + "/journal.jsonl")
      << R"({"type":"header","token":"abc-1","runs":[]})" "\n"
      << R"({"type":"originals","root":"/sys","files":[],"actions":[]})" "\n"
      << R"({"type":"resctrl_group","root":")" << root << R"(","group":"batch"})" "\n";
  ::chmod((out + "/journal.jsonl").c_str(), 0600);
  const auto r = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("not removing resctrl group batch"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(root + "/batch"));
}

TEST_F(ResctrlSweep, ValuesTheKernelRefusesAreRefusedBeforeAnythingChanges) {
  const auto r = sweep(job(), "[100, 5]");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("knobs.mem_bw: MB value 5 out of range [10,100] (percent)"), std::string::npos) << r.err;
  expect_restored();
  EXPECT_FALSE(fs::exists(out + "/journal.jsonl"));
}

TEST_F(ResctrlSweep, NoResctrlOrNoMbaIsRefusedWithWhatWasFound) {
  fs::remove_all(root + "/info/MB");
  auto r = sweep(job());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("offers no Memory Bandwidth Allocation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hpcsens doctor"), std::string::npos) << r.err;
  fs::remove_all(root);
  r = sweep(job());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("resctrl is not mounted at " + root), std::string::npos) << r.err;
}

// More than one node: each node makes its group and the other nodes' ranks join it through
// Open MPI's launch agent (tests/cluster/multinode_resctrl_test.cpp). A launcher that has no
// agent hpcsens can name (a wrapper script, MPICH hydra) would start those ranks outside any
// group, so the sweep is refused before anything is made.
TEST_F(ResctrlSweep, AMultiNodeAllocationRefusesALauncherWithoutALaunchAgentAndNothingIsMade) {
  put(t.path() + "/spec.yaml", spec(job(), "[100]"));  // calibration.launcher: sh cal.sh mpirun ...
  auto r = run({"/usr/bin/env", "SLURM_JOB_NUM_NODES=2", kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"},
               t.path(), 120);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("resctrl on this allocation's 2 nodes needs Open MPI's mpirun to start the ranks"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("but 'sh' is a program or script, not a launcher: ranks it starts on the other nodes would "
                          "start outside any group"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("one-node allocation"), std::string::npos) << r.err;
  put(t.path() + "/spec.yaml", "job:\n  command: [mpiexec.hydra, -n, '1', /bin/true]\nknobs:\n  memory_backend: resctrl\n"
                               "  mem_bw: [100]\nbackends: {sysfs_root: '" + sys + "'}\ncalibration: {stream: true}\n");
  r = run({"/usr/bin/env", "SLURM_JOB_NUM_NODES=2", kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"},
          t.path(), 120);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("but 'mpiexec.hydra' is MPICH Hydra"), std::string::npos) << r.err;
  expect_restored();
  EXPECT_FALSE(fs::exists(out + "/journal.jsonl"));
}

// With Open MPI on several nodes the plan says where the groups are made and how the other
// nodes' ranks join them (the real multi-node sweep: tests/cluster/multinode_resctrl_test.cpp).
TEST_F(ResctrlSweep, AMultiNodeDryRunSaysEveryNodeMakesTheGroupAndTheAgentJoinsIt) {
  put(t.path() + "/spec.yaml", "job:\n  command: [mpirun, -np, '2', /bin/true]\nknobs:\n  memory_backend: resctrl\n"
                               "  mem_bw: [100]\nbackends: {sysfs_root: '" + sys + "'}\ncalibration: {stream: true}\n");
  const auto r = run({"/usr/bin/env", "SLURM_JOB_NUM_NODES=2", kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out,
                      "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the same group on each of the allocation's 2 nodes (--apply-point); the job's Open MPI "
                       "launcher gets the launch agent '" + kHpcsens + " resctrl-join ... -- orted'"),
            std::string::npos) << r.out;
  expect_restored();
}

TEST_F(ResctrlSweep, AnotherProgramHoldingTheResctrlLockIsNamedAndNothingIsMade) {
  const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const auto r = sweep(job(), "[100]");
  ::close(fd);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("another program holds the resctrl lock (flock on " + root), std::string::npos) << r.err;
  expect_restored();
}

}  // namespace
}  // namespace hpcsens::sweep
