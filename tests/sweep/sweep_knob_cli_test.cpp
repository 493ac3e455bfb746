// The sweep on a fake sysfs tree through the real binary: knobs applied per run and restored
// after a normal end, SIGTERM mid-run and kill -9 + --restore; kill -9 + --resume runs every run
// exactly once; lost records run again.
#include <signal.h>

#include <fstream>
#include <sstream>
#include <tuple>

#include "sweep_cli_helpers.h"
#include "sweep/calibrate/clock_probe.h"


namespace fs = std::filesystem;
using nlohmann::json;

namespace hpcsens::sweep {
namespace {

using namespace testing;


TEST(SweepCli, KnobsAreAppliedPerRunAndRestoredAfterANormalEnd) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, mpi_job(1), "order: sequential\n"));
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  expect_original_tree(root);
  // The record carries the clock the driver was set to beside the request (the clock is not
  // measured here: this VM's cores are not the fake tree's).
  std::ifstream in(out + "/records/p01-r1.json");
  const auto rec = json::parse(in);
  EXPECT_EQ(rec["config"]["cpu_ghz"], 2.0);
  EXPECT_EQ(rec["config"]["cpu_ghz_requested"], 2.0);
  EXPECT_EQ(rec["config"]["cpu_ghz_set"], 2.0);
  EXPECT_EQ(rec["config"]["cpu_ghz_source"], "set");
  EXPECT_EQ(rec["config"]["uncore_max_ghz"], 1.5);
  const auto j = journal(out);
  EXPECT_EQ(count_type(j, "originals"), 1);
  EXPECT_EQ(count_type(j, "restored"), 1);
  // The originals were journalled before the first change.
  std::size_t first_apply = 0, originals = 0;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (j[i]["type"] == "originals") originals = i;
    if (j[i]["type"] == "apply" && !first_apply) first_apply = i;
  }
  EXPECT_LT(originals, first_apply);
}

// acpi-cpufreq under ondemand: scaling_setspeed reads "<unsupported>" and cannot be written; the
// governor is what brings that back. The sweep must not count setspeed as restored, and the
// message, the journal and --dry-run must all say it was skipped and why.
TEST(SweepCli, UnsupportedSetspeedIsReportedSkippedNotRestored) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  testing::make_acpi_cpufreq(root, 2);
  put(t.path() + "/spec.yaml", "job:\n  command: " + mpi_job(1) + "\n  timeout_s: 60\nknobs: {cpu_ghz: [1.2, 2.4]}\n"
                                 "backends: {sysfs_root: '" + root + "'}\ncalibration: {stream: false}\nretries: 0\n");
  const std::string out = t.path() + "/out";
  const auto d = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--dry-run"}, t.path());
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("restored at the end (8 files; 6 restored, 2 skipped):\n"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("policy1/scaling_setspeed  (not restored: was <unsupported> (governor ondemand), "
                       "restored by restoring the governor)"), std::string::npos) << d.out;

  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  for (int p = 0; p < 2; ++p) EXPECT_EQ(get(testing::policy_dir(root, p) + "/scaling_governor"), "ondemand");
  EXPECT_NE(r.err.find("restored 6 knob files to their original values; 2 skipped: scaling_setspeed was "
                       "<unsupported> (governor ondemand), restored by restoring the governor (2 files)"),
            std::string::npos) << r.err;
  json restored;
  for (const auto& e : journal(out))
    if (e["type"] == "restored") restored = e;
  EXPECT_EQ(restored["files"], 6) << restored;
  ASSERT_EQ(restored["skipped"].size(), 2u) << restored;
  EXPECT_EQ(restored["skipped"][0]["path"], testing::policy_dir(root, 0) + "/scaling_setspeed");
  EXPECT_EQ(restored["errors"].size(), 0u);

  // --restore from the same journal says the same, file by file.
  const auto again = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.err.find("restored " + testing::policy_dir(root, 0) + "/scaling_setspeed"), std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("skipped " + testing::policy_dir(root, 0) + "/scaling_setspeed: was <unsupported>"),
            std::string::npos) << again.err;
}

// Clock calibration is on by default: the clock is measured by CPU time on the job's launcher,
// the record says how and keeps the set clock beside it, and a point whose measured clock is off
// the set one (here certainly: the fake tree does not drive this VM's cores) is said.
TEST(SweepCli, TheClockIsMeasuredByDefaultAndAMissedSetClockIsSaid) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", "job:\n  command: " + mpi_job(1) + "\n  timeout_s: 60\nknobs: {cpu_ghz: [0.9]}\n"
                               "backends: {sysfs_root: '" + root + "'}\ncalibration: {stream: false}\nretries: 0\n");
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(out + "/records/p00-r1.json");
  const auto rec = json::parse(in);
  EXPECT_EQ(rec["config"]["cpu_ghz_source"], "measured") << rec["config"];
  EXPECT_EQ(rec["config"]["cpu_ghz_set"], 0.9);
  EXPECT_NE(rec["config"]["cpu_ghz_method"].get<std::string>().find("thread CPU time"), std::string::npos);
  // The method follows what this host allows: cycles where the thread's cycle counter opens, else
  // the add chain with the reason (this VM has no PMU).
  hpcsens::sweep::ThreadCycleCounter probe;
  const std::string why = probe.open();
  EXPECT_EQ(rec["config"]["cpu_clock_method"], why.empty() ? "cycles" : "add-chain") << rec["config"];
  if (!why.empty()) {
    EXPECT_NE(rec["config"]["cpu_ghz_method"].get<std::string>().find(why), std::string::npos) << rec["config"];
  }
  EXPECT_EQ(rec["config"]["cpu_ghz"], rec["config"]["cpu_ghz_measured"]);
  EXPECT_NE(r.out.find("(measured), not the set 0.9 GHz"), std::string::npos) << r.out;
}

// A knob the dry run cannot apply (uncore above the range the driver booted with) is a failed
// dry run: exit 2, not a plan that looks fine.
TEST(SweepCli, DryRunExitsNonZeroOnAKnobError) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  // A value outside the domain's initial range is refused when the spec is read, before the dry run.
  put(t.path() + "/spec.yaml", "job: {command: [./app]}\nknobs: {cpu_ghz: [1.0], uncore_ghz: [3.0]}\n"
                               "backends: {sysfs_root: '" + root + "'}\n");
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("spec.yaml:2: knobs.uncore_ghz: 3 GHz is above package_00_die_00's initial_max_freq_khz"),
            std::string::npos) << r.err;
  // A domain whose current max cannot be read as a number fails only when its point is applied.
  put(uncore_dir(root, 0) + "/max_freq_khz", "junk");
  put(t.path() + "/spec.yaml", "job: {command: [./app]}\nknobs: {cpu_ghz: [1.0], uncore_ghz: [1.5]}\n"
                               "backends: {sysfs_root: '" + root + "'}\n");
  r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("knob error: " + uncore_dir(root, 0) + "/max_freq_khz holds 'junk'"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("the dry run found knob errors"), std::string::npos) << r.err;
  EXPECT_EQ(get(uncore_dir(root, 0) + "/max_freq_khz"), "junk");
  EXPECT_EQ(get(uncore_dir(root, 0) + "/min_freq_khz"), "800000");
  EXPECT_EQ(get(policy_dir(root, 0) + "/scaling_max_freq"), "3500000");
}

// srun --cpu-freq on a node without cpufreq (this VM, as the spec's root says) cannot change the
// clock and Slurm does not say so: the backend is refused with the reason and the alternative.
TEST(SweepCli, SlurmBackendIsRefusedWhereSrunCpuFreqCannotTakeEffect) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);  // intel_pstate active: no userspace governor
  put(t.path() + "/spec.yaml", "job: {command: [srun, ./app]}\nknobs: {cpu_ghz: [1.0], cpu_backend: slurm}\n"
                               "backends: {sysfs_root: '" + root + "'}\n");
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.err.find("knobs.cpu_backend: slurm: intel_pstate has no userspace governor"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("use cpu_backend: cpufreq"), std::string::npos) << r.err;
  put(t.path() + "/spec.yaml", "job: {command: [srun, ./app]}\nknobs: {cpu_ghz: [1.0], cpu_backend: slurm}\n"
                               "backends: {sysfs_root: '" + t.path() + "/none'}\n");
  r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.err.find("this node has no cpufreq"), std::string::npos) << r.err;
}

// Starts a knob sweep whose job sleeps 30 s and waits until that job runs.
struct SleepingSweep {
  TempDir t;
  std::string root = t.path() + "/sys", out = t.path() + "/out";
  Proc p;
  std::vector<pid_t> sleeps;
  bool started = false;
  SleepingSweep() {
    make_tree(root);
    put(t.path() + "/spec.yaml", knob_spec(root, "[sleep, '30']"));
    p = spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
    started = eventually([&] { return !(sleeps = descendants_named(p.pid, "sleep")).empty(); }, 20);
  }
};

TEST(SweepCli, SigtermMidRunEndsTheJobRestoresKnobsAndExits143) {
  SleepingSweep s;
  ASSERT_TRUE(s.started) << get(s.p.err_path);
  const auto& [root, out, p, sleeps] = std::tie(s.root, s.out, s.p, s.sleeps);
  // Mid-run: the knobs are at the sweep's values now.
  EXPECT_NE(get(testing::policy_dir(root, 0) + "/scaling_max_freq"), "3500000");
  ::kill(p.pid, SIGTERM);
  EXPECT_EQ(wait_for(p, 20), 143) << get(p.err_path);
  expect_original_tree(root);
  EXPECT_TRUE(eventually([&] { return ::kill(sleeps[0], 0) != 0; }, 5)) << "the job was left running";
  const auto j = journal(out);
  EXPECT_EQ(count_type(j, "restored"), 1);
  EXPECT_EQ(count_type(j, "stopped"), 1);
  EXPECT_EQ(count_type(j, "run", "failed"), 0);  // an interrupted run is not a failed run
}

TEST(SweepCli, KillNineLeavesKnobsSetAndRestoreFromTheJournalPutsThemBack) {
  SleepingSweep s;
  ASSERT_TRUE(s.started) << get(s.p.err_path);
  const auto& [root, out, p, sleeps] = std::tie(s.root, s.out, s.p, s.sleeps);
  const TempDir& t = s.t;
  ::kill(p.pid, SIGKILL);
  EXPECT_EQ(wait_for(p, 10), 128 + SIGKILL);
  // The job dies with the sweep (PR_SET_PDEATHSIG on the run module's process, which ends it).
  EXPECT_TRUE(eventually([&] {
    for (pid_t s : sleeps)
      if (::kill(s, 0) == 0) return false;
    return true;
  }, 10));
  for (pid_t s : sleeps) ::kill(s, SIGKILL);
  EXPECT_NE(get(testing::policy_dir(root, 0) + "/scaling_max_freq"), "3500000");
  EXPECT_NE(get(testing::uncore_dir(root, 0) + "/max_freq_khz"), "2500000");
  const auto r = run({kHpcsens, "sweep", "--restore", out}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  expect_original_tree(root);
  EXPECT_NE(r.err.find("restored " + testing::policy_dir(root, 0) + "/scaling_max_freq = 3500000"), std::string::npos)
      << r.err;
}

// A journal damaged where the saved values are (a disk error, a hand edit) must not read as "saved
// nothing": --restore says it cannot put the knobs back and what to do (exit 1), --resume refuses
// to save the sweep's own settings as the originals, and the next sweep on these knobs is refused.
TEST(SweepCli, RestoreWithTheSavedValuesDamagedSaysSoAndKeepsLaterSweepsOff) {
  SleepingSweep s;
  ASSERT_TRUE(s.started) << get(s.p.err_path);
  ::kill(s.p.pid, SIGKILL);
  EXPECT_EQ(wait_for(s.p, 10), 128 + SIGKILL);
  for (pid_t pid : s.sleeps) ::kill(pid, SIGKILL);
  const std::string jpath = s.out + "/journal.jsonl";
  std::string text = get(jpath), damaged;
  int line_no = 0, originals_line = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const bool orig = line.find("\"type\":\"originals\"") != std::string::npos;
    if (orig) originals_line = line_no;
    damaged += (orig ? "{\"type\":\"orig" : line) + "\n";
  }
  ASSERT_GT(originals_line, 0) << text;
  std::ofstream(jpath, std::ios::trunc) << damaged;  // same file: mode, owner and link count kept
  const std::string set_value = get(testing::policy_dir(s.root, 0) + "/scaling_max_freq");
  ASSERT_NE(set_value, "3500000");
  auto r = run({kHpcsens, "sweep", "--restore", s.out}, s.t.path());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("journal.jsonl: the knob values this sweep saved before changing them cannot be read (1 "
                       "damaged line(s), the first at line " + std::to_string(originals_line) + "), and it shows "
                       "knobs were changed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("by hand (or reboot the node)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("nothing to restore"), std::string::npos) << r.err;
  EXPECT_EQ(get(testing::policy_dir(s.root, 0) + "/scaling_max_freq"), set_value);  // nothing invented
  r = run({kHpcsens, "sweep", "--resume", s.out, "--no-fit"}, s.t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("journal.jsonl:" + std::to_string(originals_line) + ": the knob values this sweep saved "
                       "cannot be read"), std::string::npos) << r.err;
  r = run({kHpcsens, "sweep", s.t.path() + "/spec.yaml", "-o", s.t.path() + "/next", "--no-fit"}, s.t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("were left changed by a sweep that died"), std::string::npos) << r.err;
  EXPECT_EQ(get(testing::policy_dir(s.root, 0) + "/scaling_max_freq"), set_value);
}

TEST(SweepCli, KilledSweepResumedRunsEveryPlannedRunExactlyOnce) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, mpi_job(1), "repetitions: 2\nseed: 4\n"));
  const std::string out = t.path() + "/out";
  const auto p = spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  ASSERT_TRUE(eventually([&] { return count_type(journal(out), "run", "ok") >= 1; }, 60)) << get(p.err_path);
  ::kill(p.pid, SIGKILL);
  wait_for(p, 10);
  const int done_before = count_type(journal(out), "run", "ok");
  ASSERT_LT(done_before, 4) << "the sweep finished before it could be killed";
  // Its job ends with it (SIGTERM through PR_SET_PDEATHSIG); --resume waits for that.
  ASSERT_TRUE(eventually([&] { return processes_of_token(out).empty(); }, 20));
  // Knobs are still at the sweep's values; resume must still restore the true originals.
  const auto r = run({kHpcsens, "sweep", "--resume", out, "--no-fit"}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = journal(out);
  std::map<std::string, int> ok;
  for (const auto& e : j)
    if (e["type"] == "run" && e["status"] == "ok") ++ok[e["id"].get<std::string>()];
  EXPECT_EQ(ok.size(), 4u);
  for (const auto& [id, n] : ok) EXPECT_EQ(n, 1) << id;
  int files = 0;
  for (const auto& e : fs::directory_iterator(out + "/records")) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 4);
  EXPECT_EQ(count_type(j, "originals"), 1);
  EXPECT_EQ(count_type(j, "finished"), 1);
  expect_original_tree(root);
}

// QA: a journal "done" line whose record is gone was trusted; the resume said 36 of 36 done.
TEST(SweepCli, ResumeRerunsRunsWhoseRecordsAreMissingOrUnreadable) {
  TempDir t;
  put(t.path() + "/spec.yaml", "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, mem_gbs: 50, seed: 2}\n"
                               "knobs: {cpu_ghz: [1.0, 2.0]}\nrepetitions: 3\n");
  const std::string out = t.path() + "/out";
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 60);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> ids = {"p00-r1", "p00-r2", "p00-r3", "p01-r1", "p01-r2", "p01-r3"};
  for (const char* id : {"p00-r1", "p00-r2", "p00-r3"}) fs::remove(out + "/records/" + id + ".json");
  put(out + "/records/p01-r2.json", "{\"schema\": \"hpcsens.run");  // torn
  r = run({kHpcsens, "sweep", "--resume", out, "--no-fit"}, t.path(), 60);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("6 of 6 runs done"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("p00-r1 was journalled as done but its record"), std::string::npos) << r.err;
  const auto j = journal(out);
  EXPECT_EQ(count_type(j, "lost"), 4);
  for (const auto& id : ids) {
    std::ifstream in(out + "/records/" + id + ".json");
    ASSERT_TRUE(in.good()) << id;
    const auto rec = json::parse(in, nullptr, false);
    ASSERT_FALSE(rec.is_discarded()) << id;
    EXPECT_EQ(rec["config"]["sweep_run_id"], id);
  }
  int files = 0;
  for (const auto& e : fs::directory_iterator(out + "/records")) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 6);
  // Every planned run ran exactly once after the loss: two ok lines for the lost, one for the rest.
  std::map<std::string, int> ok;
  for (const auto& e : j)
    if (e["type"] == "run" && e["status"] == "ok") ++ok[e["id"].get<std::string>()];
  for (const auto& id : ids)
    EXPECT_EQ(ok[id], (id.rfind("p00", 0) == 0 || id == "p01-r2") ? 2 : 1) << id;
  std::ifstream csv(out + "/results.csv");
  int rows = -1;  // header
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 6);
  EXPECT_EQ(r.err.find("cannot read"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hpcsens::sweep
