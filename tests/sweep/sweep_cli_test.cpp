// The real `hpcsens sweep` binary end to end: emulated sweep -> fit recovers the truth; a real
// MPI sweep with STREAM calibration; exclusive modes, retries, timeouts, per-node apply, dry
// run, bad specs (exit 2). Knob restores and resume: sweep_knob_cli_test.cpp.
#include <unistd.h>

#include <algorithm>

#include "sweep_cli_helpers.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace hpcsens::sweep {
namespace {


using namespace testing;

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

// (The clock calibration, on by default, is switched off: this test checks the nominal fallback.)
TEST(SweepCli, RealMpiSweepWithoutKnobsCalibratesStreamPerRun) {
  TempDir t;
  put(t.path() + "/spec.yaml", "job:\n  command: " + mpi_job(2) + "\n  timeout_s: 60\nrepetitions: 3\n"
                               "calibration: {stream_array_mb: 16, stream_ntimes: 4, clock: false}\n");
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
  // Nothing calibrated (the clock calibration is on by default): the time bound is the job's.
  put(t.path() + "/spec.yaml", "job: {command: [sleep, '20'], timeout_s: 0.5}\nretries: 0\n"
                               "calibration: {stream: false, clock: false}\n");
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
  testing::make_acpi_cpufreq(t.path() + "/sys", 2);  // a node where srun --cpu-freq can take effect
  put(t.path() + "/spec.yaml", "job: {command: [srun, -n, '4', ./app]}\nknobs: {cpu_ghz: [1.2, 2.4], cpu_backend: slurm}\n"
                               "order: sequential\nbackends: {sysfs_root: '" + t.path() + "/sys'}\n");
  const auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "--dry-run"}, t.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("command srun --cpu-freq=1200000 -n 4 ./app"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("command srun --cpu-freq=2400000 -n 4 ./app"), std::string::npos);
  EXPECT_NE(r.out.find("calibrate srun --cpu-freq=2400000 -n 4 "), std::string::npos);
  EXPECT_EQ(r.out.find("write "), std::string::npos);  // Slurm needs no sysfs access
}

// A slurm-array spec's dry run shows the sbatch command line the controller will use, the
// spec's sbatch options included; a bad option is exit 2 on one line naming file, line, field.
TEST(SweepCli, SlurmArrayDryRunShowsTheSbatchArgvAndBadOptionsExit2) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path() + "/sys", 2);  // a node where srun --cpu-freq can take effect
  const std::string head = "execution: slurm-array\narray_max_running: 2\njob: {command: [srun, -n, '4', ./app]}\n"
                           "knobs: {cpu_ghz: [1.2, 2.4], cpu_backend: slurm}\n";
  const std::string node = "backends: {sysfs_root: '" + t.path() + "/sys'}\n";
  put(t.path() + "/spec.yaml", head + "sbatch:\n  partition: batch\n  time_limit: '10'\n  extra: [--exclusive]\n" + node);
  auto r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "-o", t.path() + "/out", "--dry-run"}, t.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("sbatch --parsable --job-name=hpcsens-TOKEN-0 --array=0-1%2 --output=" + t.path() +
                       "/out/array/task-0-%a.out --chdir=" + t.path() + "/out --ntasks=4 --partition=batch --time=10 "
                       "--exclusive /run/hpcsens/" + std::to_string(::geteuid()) + "/sbatch.RANDOM/task-0.sh"),
            std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(t.path() + "/out"));
  put(t.path() + "/spec.yaml", head + "sbatch:\n  extra: [--exclusive, '--wrap=sh -c id']\n" + node);
  r = run({kHpcsens, "sweep", t.path() + "/spec.yaml", "--dry-run"}, t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(t.path() + "/spec.yaml:6: sbatch.extra[1]: '--wrap' is (or abbreviates) --wrap"),
            std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 0) << r.err;  // one line
}

// The array directory is the sweep's own: a task reads its plan file there only if it is a regular
// file of ours, never through a link planted in its place (the plan decides which knob values the
// task sets as root). The task stops with exit 2 naming the file, before it touches any knob.
TEST(SweepCli, ArrayTaskRefusesAPlanFileThatIsALink) {
  TempDir t;
  testing::make_acpi_cpufreq(t.path() + "/sys", 2);
  put(t.path() + "/spec.yaml", "execution: slurm-array\njob: {command: [srun, -n, '2', ./app]}\n"
                               "knobs: {cpu_ghz: [1.2, 2.4], cpu_backend: slurm}\n"
                               "backends: {sysfs_root: '" + t.path() + "/sys'}\n");
  const std::string out = t.path() + "/out";
  fs::create_directories(out + "/records");
  fs::create_directories(out + "/array");
  put(t.path() + "/elsewhere.json", R"({"submission": 0, "tasks": [{"point": 0, "repetition": 0}]})");
  fs::create_symlink(t.path() + "/elsewhere.json", out + "/array/plan-0.json");
  const auto r = run({"/usr/bin/env", "SLURM_ARRAY_TASK_ID=0", kHpcsens, "sweep", t.path() + "/spec.yaml",
                      "--array-task", "0", "--dir", out}, t.path());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(out + "/array/plan-0.json: is a symlink; refusing to read it"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(out + "/records"));
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
