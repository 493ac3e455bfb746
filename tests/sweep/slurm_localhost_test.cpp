// A real single-node Slurm (Debian's slurmctld, slurmd, munged) brought up on localhost by
// slurm_localhost.sh for each test: srun hands the requested --cpu-freq to the job step, and a
// `hpcsens sweep` with the slurm cpu backend runs every point through srun at its frequency,
// with STREAM calibration through the same srun line. The tests skip only when slurmctld is not
// installed; an installed Slurm that does not come up fails them.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
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
using testing::Result;
using testing::run;

const std::string kHpcsens = HPCSENS_EXE;
const std::string kStream = HPCSENS_STREAM_EXE;
const std::string kScript = HPCSENS_SOURCE_DIR "/tests/sweep/slurm_localhost.sh";

long khz(double ghz) { return std::lround(ghz * 1e6); }

class SlurmLocalhost : public ::testing::Test {
 protected:
  void SetUp() override {
    // munged wants its socket's directory (and the way there) searchable by everyone.
    fs::permissions(tmp_.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
    slurm_dir_ = tmp_.path() + "/slurm";
    const auto r = run({"/bin/bash", kScript, "start", slurm_dir_}, tmp_.path(), 40);
    if (r.status == 77) GTEST_SKIP() << "slurmctld is not installed: " << r.err;
    ASSERT_EQ(r.status, 0) << "single-node Slurm did not come up:\n" << r.out << r.err;
    started_ = true;
    ::setenv("SLURM_CONF", (slurm_dir_ + "/slurm.conf").c_str(), 1);
  }
  void TearDown() override {
    if (!started_) return;
    if (HasFailure()) {
      for (const char* log : {"slurmctld.log", "slurmd.log"})
        std::cerr << "--- " << log << "\n" << get(slurm_dir_ + "/" + log);
    }
    const auto r = run({"/bin/bash", kScript, "stop", slurm_dir_}, tmp_.path(), 30);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(fs::exists(slurm_dir_));
    ::unsetenv("SLURM_CONF");
  }

  TempDir tmp_;
  std::string slurm_dir_;
  bool started_ = false;
};

TEST_F(SlurmLocalhost, SrunHandsTheRequestedCpuFreqToTheJobStep) {
  const auto r = run({"/usr/bin/srun", "-N", "1", "-n", "1", "--cpu-freq=2000000", "printenv", "SLURM_CPU_FREQ_REQ"},
                     tmp_.path(), 20);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2000000") << r.err;  // get() drops the newline
  // The step ran on the slurmd, not in srun's own process.
  EXPECT_NE(get(slurm_dir_ + "/slurmd.log").find("launch task StepId="), std::string::npos);
}

// The job is a real MPI program (Open MPI through srun's PMIx plugin) started by a shell that
// first notes, per task, which Slurm job it is in and which frequency srun requested.
TEST_F(SlurmLocalhost, SweepRunsEveryPointThroughSrunAtItsFrequency) {
  const std::string dir = tmp_.path(), out = dir + "/out", freqs = dir + "/freqs.txt";
  put(dir + "/job.sh", "#!/bin/sh\necho \"$SLURM_JOB_ID $SLURM_PROCID $SLURM_CPU_FREQ_REQ\" >> " + freqs +
                           "\nexec " + kStream + " --array-bytes 4000000 --ntimes 3\n");
  fs::permissions(dir + "/job.sh", fs::perms::owner_all);
  testing::make_acpi_cpufreq(dir + "/sys", 2);
  put(dir + "/spec.yaml", "job:\n  command: [srun, --mpi=pmix, -N, '1', -n, '2', '" + dir +
                              "/job.sh']\n  timeout_s: 20\n"
                              "knobs:\n  cpu_ghz: [1.2, 2.0]\n  cpu_backend: slurm\n"
                              "repetitions: 2\nseed: 3\nretries: 0\noutput: " + out + "\n" +
                              // This VM has no cpufreq, where srun --cpu-freq cannot take effect and
                              // the backend is refused: the node is declared as one with a userspace
                              // governor (acpi-cpufreq), where Slurm's request does reach the driver.
                              "backends: {sysfs_root: '" + dir + "/sys'}\n" +
                              "calibration: {stream_array_mb: 8, stream_ntimes: 3, clock: false}\n");
  const auto r = run({kHpcsens, "sweep", dir + "/spec.yaml"}, dir, 60);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 of 4 runs done"), std::string::npos) << r.out;

  // Runs in the order they were executed, with the frequency each one asked for.
  std::map<int, long> point_khz;
  std::vector<std::string> run_ids;
  std::vector<long> run_khz;
  std::ifstream jin(out + "/journal.jsonl");
  for (std::string line; std::getline(jin, line);) {
    const auto e = json::parse(line);
    if (e["type"] == "header")
      for (const auto& p : e["points"]) point_khz[p["point"].get<int>()] = khz(p["cpu_ghz_requested"].get<double>());
    if (e["type"] == "run") {
      ASSERT_EQ(e["status"], "ok") << e;
      run_ids.push_back(e["id"]);
      const int point = std::stoi(e["id"].get<std::string>().substr(1));
      run_khz.push_back(point_khz.at(point));
    }
  }
  ASSERT_EQ(run_ids.size(), 4u);

  // Every run is its own srun job whose two tasks saw the frequency of that run's point (the
  // calibrator's sruns run hpcsens-stream directly, so they leave no lines here).
  std::map<long, std::vector<std::pair<int, long>>> tasks_by_job;  // job id -> (rank, kHz)
  std::ifstream fin(freqs);
  long job = 0, req = 0;
  int rank = 0;
  while (fin >> job >> rank >> req) tasks_by_job[job].push_back({rank, req});
  ASSERT_EQ(tasks_by_job.size(), 4u) << get(freqs);
  std::size_t i = 0;
  for (const auto& [job_id, tasks] : tasks_by_job) {
    ASSERT_EQ(tasks.size(), 2u) << "job " << job_id;
    for (const auto& [task_rank, task_khz] : tasks)
      EXPECT_EQ(task_khz, run_khz[i]) << "run " << run_ids[i] << " (Slurm job " << job_id << ", task " << task_rank
                                      << ")";
    ++i;
  }

  for (std::size_t k = 0; k < run_ids.size(); ++k) {
    std::ifstream rin(out + "/records/" + run_ids[k] + ".json");
    ASSERT_TRUE(rin) << run_ids[k];
    const auto rec = json::parse(rin);
    EXPECT_EQ(rec["job"]["launcher"], "slurm");
    EXPECT_EQ(rec["job"]["command"][1], "--cpu-freq=" + std::to_string(run_khz[k])) << rec["job"];
    EXPECT_EQ(rec["job"]["nranks"], 2);
    EXPECT_EQ(rec["complete"], true);
    EXPECT_EQ(rec["emulated"], false);
    EXPECT_EQ(khz(rec["config"]["cpu_ghz"].get<double>()), run_khz[k]);
    EXPECT_EQ(rec["config"]["cpu_ghz_source"], "requested");
    EXPECT_EQ(rec["config"]["mem_gbs_source"], "stream-triad");
    EXPECT_EQ(rec["config"]["stream"]["ranks"], 2);  // the calibrator ran through the same srun
    EXPECT_GT(rec["config"]["mem_gbs"].get<double>(), 0.0);
  }
}

}  // namespace
}  // namespace hpcsens::sweep
