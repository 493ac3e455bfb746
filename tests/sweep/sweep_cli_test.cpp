// The real `hpcsens sweep` binary end to end: emulated sweep -> fit recovers the truth; a real
// MPI sweep with STREAM calibration; knobs on a fake sysfs restored after a normal end, after
// SIGTERM mid-run and after kill -9 + --restore; kill -9 + --resume runs everything exactly
// once; bad specs exit 2; --dry-run touches nothing.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sweep_process.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace hpcsens::sweep {
namespace {

using testing::get;
using testing::put;
using testing::TempDir;
using testing::Proc;
using testing::Result;
using testing::run;
using testing::spawn;
using testing::wait_for;
using testing::eventually;

const std::string kHpcsens = HPCSENS_EXE;
const std::string kStream = HPCSENS_STREAM_EXE;

std::vector<json> journal(const std::string& dir) {
  std::vector<json> out;
  std::ifstream in(dir + "/journal.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

int count_type(const std::vector<json>& j, const std::string& type, const std::string& status = "") {
  int n = 0;
  for (const auto& e : j)
    if (e.value("type", "") == type && (status.empty() || e.value("status", "") == status)) ++n;
  return n;
}

// Pids of processes below `root` whose command name is `comm`.
std::vector<pid_t> descendants_named(pid_t root, const std::string& comm) {
  std::multimap<pid_t, pid_t> kids;
  std::map<pid_t, std::string> names;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const auto n = e.path().filename().string();
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto l = stat.find('('), r = stat.rfind(')');
    if (l == std::string::npos || r == std::string::npos) continue;
    std::istringstream rest(stat.substr(r + 2));
    char state;
    pid_t ppid;
    rest >> state >> ppid;
    kids.emplace(ppid, std::stoi(n));
    names[std::stoi(n)] = stat.substr(l + 1, r - l - 1);
  }
  std::vector<pid_t> out, todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    auto [b, e] = kids.equal_range(p);
    for (auto it = b; it != e; ++it) {
      if (names[it->second] == comm) out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

std::string mpi_job(int np) {
  return "[mpirun, -np, '" + std::to_string(np) + "', --oversubscribe, '" + kStream +
         "', --array-bytes, '4000000', --ntimes, '3']";
}

const std::string kPolicy = "/devices/system/cpu/cpufreq/policy0/";

// ---------------------------------------------------------------------------------------------

TEST(SweepCli, EmulatedSweepFitRecoversTheGroundTruthAndSaysEmulated) {
  TempDir t;
  put(t.path() + "/spec.yaml", R"(job: {command: [mpirun, -np, 4, ./app]}
emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, overlap: 0, noise_pct: 1, seed: 11, ranks: 4}
knobs:
  cpu_ghz: [1.0, 1.6, 2.2, 2.8]
  memory:
    - {name: slow, emulated_gbs: 40}
    - {name: mid, emulated_gbs: 80}
    - {name: fast, emulated_gbs: 160}
repetitions: 3
seed: 3
)");
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fs::directory_iterator(out + "/records") == fs::directory_iterator(), false);
  int records = 0;
  std::map<std::string, std::vector<double>> times;  // point label -> job_s of its repetitions
  for (const auto& e : fs::directory_iterator(out + "/records")) {
    ++records;
    std::ifstream in(e.path());
    const auto rec = json::parse(in);
    EXPECT_EQ(rec["emulated"], true) << e.path();
    EXPECT_EQ(rec["config"]["cpu_ghz_source"], "emulated");
    times[rec["config"]["label"].get<std::string>()].push_back(rec["timing"]["job_s"].get<double>());
  }
  EXPECT_EQ(records, 36);
  // The summary shows each point's median (what hpcsens fit uses), not the mean.
  int medians = 0;
  std::istringstream summary(r.out);
  for (std::string line; std::getline(summary, line);) {
    std::istringstream cols(line);
    std::string label, cpu, source, mem;
    int n = 0;
    double median = 0;
    if (!(cols >> label >> cpu >> source >> mem >> n >> median) || !times.count(label) || n != 3) continue;
    auto v = times[label];
    std::sort(v.begin(), v.end());
    EXPECT_NEAR(median, v[1], 1e-3) << line;
    ++medians;
  }
  EXPECT_EQ(medians, 12) << r.out;
  // Every output says emulated: the progress on stderr, every summary row, the fit, the model.
  EXPECT_NE(r.err.find("EMULATED launcher"), std::string::npos);
  EXPECT_NE(r.out.find("Sweep summary (EMULATED)"), std::string::npos) << r.out;
  int rows = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("cpu", 0) == 0 && line.find("_") != std::string::npos && line.find("GB/s") == std::string::npos &&
        line.find("emulated") != std::string::npos) {
      ++rows;
      EXPECT_NE(line.find("EMULATED"), std::string::npos) << line;
    }
  EXPECT_EQ(rows, 12);
  std::ifstream min(out + "/model.json");
  ASSERT_TRUE(min.good()) << "hpcsens fit wrote no model:\n" << r.err;
  const auto model = json::parse(min);
  EXPECT_EQ(model["emulated"], true);
  const std::map<std::string, double> truth = {{"cpu", 60}, {"mem", 2000}, {"io", 5}};
  int checked = 0;
  for (const auto& term : model["terms"]) {
    const std::string name = term["name"];
    if (!truth.count(name)) continue;
    const double w = term["work"], se = term["stderr"], want = truth.at(name);
    EXPECT_LE(std::abs(w - want), std::max(3 * se, 0.02 * want)) << name << " work " << w << " stderr " << se;
    EXPECT_LE(term["bounds"][0].get<double>(), want * 1.02) << name;
    EXPECT_GE(term["bounds"][1].get<double>(), want * 0.98) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 3) << model["model"];
}

TEST(SweepCli, RealMpiSweepWithoutKnobsCalibratesStreamPerRun) {
  TempDir t;
  put(t.path() + "/spec.yaml", "job:\n  command: " + mpi_job(2) + "\n  timeout_s: 60\nrepetitions: 3\n"
                               "calibration: {stream_array_mb: 16, stream_ntimes: 4}\n");
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* id : {"p00-r1", "p00-r2", "p00-r3"}) {
    std::ifstream in(out + "/records/" + id + ".json");
    ASSERT_TRUE(in.good()) << id << "\n" << r.err;
    const auto rec = json::parse(in);
    EXPECT_EQ(rec["emulated"], false);
    EXPECT_EQ(rec["job"]["nranks"], 2);
    EXPECT_GT(rec["timing"]["job_s"].get<double>(), 0);
    const auto& c = rec["config"];
    EXPECT_GT(c["mem_gbs"].get<double>(), 0.1) << c;
    EXPECT_EQ(c["mem_gbs_source"], "stream-triad");
    EXPECT_EQ(c["stream"]["ranks"], 2);  // the calibrator ran over the job's ranks
    EXPECT_EQ(c["label"], "default");
    EXPECT_TRUE(c["cpu_ghz_source"] == "nominal") << c;
  }
  EXPECT_EQ(r.out.find("EMULATED"), std::string::npos);
  EXPECT_EQ(count_type(journal(out), "run", "ok"), 3);
}

std::string knob_spec(const std::string& root, const std::string& command, const std::string& extra = "") {
  return "job:\n  command: " + command + "\n  timeout_s: 60\nknobs:\n  cpu_ghz: [1.0, 2.0]\n  uncore_ghz: [1.5]\n"
         "backends: {sysfs_root: '" + root + "'}\ncalibration: {stream: false}\nretries: 0\n" + extra;
}

void make_tree(const std::string& root) {
  testing::make_intel_pstate(root, 2);
  testing::make_uncore(root, 1);
}

void expect_original_tree(const std::string& root) {
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(get(testing::policy_dir(root, p) + "/scaling_min_freq"), "800000");
    EXPECT_EQ(get(testing::policy_dir(root, p) + "/scaling_max_freq"), "3500000");
  }
  EXPECT_EQ(get(testing::uncore_dir(root, 0) + "/min_freq_khz"), "800000");
  EXPECT_EQ(get(testing::uncore_dir(root, 0) + "/max_freq_khz"), "2500000");
}

TEST(SweepCli, KnobsAreAppliedPerRunAndRestoredAfterANormalEnd) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, mpi_job(1), "order: sequential\n"));
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 120);
  ASSERT_EQ(r.status, 0) << r.err;
  expect_original_tree(root);
  // The record carries the requested setting (no counters here, so "requested").
  std::ifstream in(out + "/records/p01-r1.json");
  const auto rec = json::parse(in);
  EXPECT_EQ(rec["config"]["cpu_ghz"], 2.0);
  EXPECT_EQ(rec["config"]["cpu_ghz_source"], "requested");
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

TEST(SweepCli, SigtermMidRunEndsTheJobRestoresKnobsAndExits143) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, "[sleep, '30']"));
  const std::string out = t.path() + "/out";
  const auto p = spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  std::vector<pid_t> sleeps;
  ASSERT_TRUE(eventually([&] { return !(sleeps = descendants_named(p.pid, "sleep")).empty(); }, 20))
      << get(p.err_path);
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
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, "[sleep, '30']"));
  const std::string out = t.path() + "/out";
  const auto p = spawn({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  std::vector<pid_t> sleeps;
  ASSERT_TRUE(eventually([&] { return !(sleeps = descendants_named(p.pid, "sleep")).empty(); }, 20));
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

// QA: `--resume D --restore D` silently restored; `SPEC --resume D` ignored nothing visibly.
TEST(SweepCli, ExclusiveModesAreRefusedWithExit2) {
  TempDir t;
  put(t.path() + "/spec.yaml", "emulated: {W_cpu: 6, W_mem: 20, T_io: 1, mem_gbs: 50}\nknobs: {cpu_ghz: [1.0]}\n");
  const std::string out = t.path() + "/out";
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 60);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto lines_before = journal(out).size();
  const std::vector<std::vector<std::string>> bad = {
      {"--resume", out, "--restore", out},
      {t.path() + "/spec.yaml", "--resume", out},
      {"--restore", out, t.path() + "/spec.yaml"},
      {"--resume", out, "-o", t.path() + "/other"},
  };
  for (const auto& args : bad) {
    std::vector<std::string> argv = {kHpcsens, "sweep"};
    argv.insert(argv.end(), args.begin(), args.end());
    r = run(argv, t.path());
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1] << " " << args[2];
    EXPECT_NE(r.err.find("hpcsens sweep: --"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 0) << r.err;  // one line (get() trims the end)
  }
  EXPECT_EQ(journal(out).size(), lines_before);  // nothing was restored or resumed
  EXPECT_FALSE(fs::exists(t.path() + "/other"));
}

// QA: only the records' config.stream.meets_4x_llc said the STREAM arrays were too small.
TEST(SweepCli, SummaryWarnsWhenStreamArraysAreBelowFourTimesTheLlc) {
  TempDir t;
  put(t.path() + "/spec.yaml", "job:\n  command: " + mpi_job(1) + "\n  timeout_s: 60\n"
                               "calibration: {stream_array_mb: 0.5, stream_ntimes: 3}\n");
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path(), 60);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(out + "/records/p00-r1.json");
  ASSERT_EQ(json::parse(in)["config"]["stream"]["meets_4x_llc"], false);
  EXPECT_NE(r.out.find("warning: 1 records have STREAM arrays not shown to be >= 4x the last-level cache"),
            std::string::npos) << r.out;
}

TEST(SweepCli, FailedRunsAreRetriedThenSkippedAndTheSweepGoesOn) {
  TempDir t;
  put(t.path() + "/spec.yaml", "job: {command: ['false']}\nrepetitions: 2\nretries: 1\ncalibration: {stream: false}\n");
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  EXPECT_EQ(r.status, 1) << r.err;
  const auto j = journal(out);
  EXPECT_EQ(count_type(j, "run", "failed"), 4);  // 2 runs x (1 + 1 retry)
  EXPECT_EQ(count_type(j, "skipped"), 2);
  EXPECT_EQ(count_type(j, "finished"), 1);
  EXPECT_NE(r.err.find("skipped after 2 attempts"), std::string::npos) << r.err;
}

TEST(SweepCli, PerRunTimeoutEndsTheJobAndCountsAsAFailure) {
  TempDir t;
  put(t.path() + "/spec.yaml", "job: {command: [sleep, '20'], timeout_s: 0.5}\nretries: 0\ncalibration: {stream: false}\n");
  const std::string out = t.path() + "/out";
  const auto start = std::chrono::steady_clock::now();
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--no-fit"}, t.path());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 15);
  EXPECT_EQ(r.status, 1) << r.err;
  const auto j = journal(out);
  ASSERT_EQ(count_type(j, "run", "failed"), 1);
  for (const auto& e : j) {
    if (e["type"] == "run") {
      EXPECT_EQ(e["timed_out"], true) << e;
    }
  }
}

TEST(SweepCli, PerNodeApplySavesThisNodesOriginalsAndRestoreFindsThem) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, "[srun, ./a]", "order: sequential\n"));
  const std::string dir = t.path() + "/shared";
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "--apply-point", "1", "--dir", dir}, t.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(get(testing::policy_dir(root, 1) + "/scaling_max_freq"), "2000000");
  EXPECT_EQ(get(testing::uncore_dir(root, 0) + "/min_freq_khz"), "1500000");
  r = run({kHpcsens, "sweep", "--restore", dir}, t.path());
  EXPECT_EQ(r.status, 0) << r.err;
  expect_original_tree(root);
}

TEST(SweepCli, DryRunPrintsThePlanAndTouchesNothing) {
  TempDir t;
  const std::string root = t.path() + "/sys";
  make_tree(root);
  put(t.path() + "/spec.yaml", knob_spec(root, "[srun, -n, '4', ./app]", "order: sequential\n"));
  const std::string out = t.path() + "/out";
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", out, "--dry-run"}, t.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out));
  expect_original_tree(root);
  const std::string pol = testing::policy_dir(root, 0);
  EXPECT_NE(r.out.find("write " + pol + "/scaling_min_freq <- 1000000\n        write " + pol +
                       "/scaling_max_freq <- 1000000"), std::string::npos) << r.out;
  // Up from 1.0 to 2.0: max first.
  EXPECT_NE(r.out.find("write " + pol + "/scaling_max_freq <- 2000000\n        write " + pol +
                       "/scaling_min_freq <- 2000000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("command srun -n 4 ./app"), std::string::npos);
  EXPECT_NE(r.out.find("runs: 2 = 2 points x 1 repetitions"), std::string::npos);
  // The guide promises the files that will be saved.
  EXPECT_NE(r.out.find("knob files saved to the journal before the first change, restored at the end"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  " + pol + "/scaling_max_freq\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output files: " + out + "/journal.jsonl (journal)"), std::string::npos) << r.out;
}

TEST(SweepCli, SlurmBackendPutsCpuFreqOnTheJobsSrunLine) {
  TempDir t;
  put(t.path() + "/spec.yaml", "job: {command: [srun, -n, '4', ./app]}\nknobs: {cpu_ghz: [1.2, 2.4], cpu_backend: slurm}\n"
                               "order: sequential\n");
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "--dry-run"}, t.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("command srun --cpu-freq=1200000 -n 4 ./app"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("command srun --cpu-freq=2400000 -n 4 ./app"), std::string::npos);
  EXPECT_NE(r.out.find("calibrate srun --cpu-freq=2400000 -n 4 "), std::string::npos);
  EXPECT_EQ(r.out.find("write "), std::string::npos);  // Slurm needs no sysfs access
}

TEST(SweepCli, BadSpecsExit2NamingFileLineAndField) {
  TempDir t;
  const std::string spec = t.path() + "/bad.yaml";
  put(spec, "job:\n  command: [mpirun, ./a]\nknobs:\n  cpu_ghz: [1.2, fast]\n");
  auto r = run({kHpcsens, "sweep", spec, "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(spec + ":4: knobs.cpu_ghz[1]: must be a number, got 'fast'"), std::string::npos) << r.err;
  put(spec, "job:\n  command: [mpirun, ./a]\nrepetitions: 3\ntimeout: 5\n");
  r = run({kHpcsens, "sweep", spec}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(spec + ":4: timeout: unknown field"), std::string::npos) << r.err;
  r = run({kHpcsens, "sweep", t.path() + "/missing.yaml"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.yaml: cannot read"), std::string::npos) << r.err;
  // A knob the machine does not have (no cpufreq under this root) is bad input too.
  put(spec, "job: {command: [mpirun, ./a]}\nknobs: {cpu_ghz: [1.2]}\nbackends: {sysfs_root: " + t.path() + "}\n");
  r = run({kHpcsens, "sweep", spec, "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(spec + ":2: knobs.cpu_ghz: no cpufreq policies under"), std::string::npos) << r.err;
  r = run({kHpcsens, "sweep", "--resume", t.path() + "/nothing"}, t.path());
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(fs::exists(t.path() + "/nothing"));
}

}  // namespace
}  // namespace hpcsens::sweep
