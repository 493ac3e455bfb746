// The real binary on this machine: `hpcsens doctor`, and `hpcsens run --events topdown` around a
// real 2-rank mpirun. This VM has no hardware PMU, so Top-Down must be reported unavailable with
// a reason while the job and the rest of the record stay intact. Every command runs under
// coreutils `timeout` so a hang fails the test instead of the suite.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "record/run_record.h"
#include "tests/integration/process.h"

namespace fs = std::filesystem;

namespace {

// stdout and stderr together, as a user sees them; a hang fails the test, not the suite.
struct Result {
  int status = -1;
  std::string out;
};

Result run(const std::string& cmd) {
  // Open MPI refuses root without these (ctest sets them too; direct runs need them here).
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const auto r = hpcsens::testing::run_words(cmd, 60);
  return {r.exit_status, r.out + r.err};
}

bool has_pmu() {
  // The doctor's own verdict decides which expectations apply.
  return run(std::string(HPCSENS_BIN) + " doctor").out.find("[ok     ] hardware events") != std::string::npos;
}

}  // namespace

TEST(DoctorCli, ReportsPapiAndMissingCapabilitiesWithExitZero) {
  const Result r = run(std::string(HPCSENS_BIN) + " doctor");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("PAPI 7.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Open MPI"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("perf_event_paranoid = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Top-Down set"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libhpcsens_preload.so"), std::string::npos) << r.out;
  if (!has_pmu()) {
    EXPECT_NE(r.out.find("hardware events unavailable"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fix: VM: enable PMU passthrough"), std::string::npos) << r.out;
    // The Top-Down set cannot be "ok" where its events cannot be counted.
    EXPECT_NE(r.out.find("[missing] Top-Down set"), std::string::npos) << r.out;
  }
  if (!fs::exists("/sys/devices/system/cpu/cpu0/cpufreq")) {
    EXPECT_NE(r.out.find("[missing] cpufreq"), std::string::npos) << r.out;
  }
}

TEST(DoctorCli, JsonFormat) {
  const Result r = run(std::string(HPCSENS_BIN) + " doctor --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "hpcsens.doctor.v1");
  EXPECT_FALSE(j.at("broken").get<bool>());
  bool papi = false;
  for (const auto& c : j.at("checks"))
    if (c.at("name") == "PAPI") papi = c.at("detail").get<std::string>().rfind("PAPI 7.", 0) == 0;
  EXPECT_TRUE(papi) << r.out;
  EXPECT_EQ(run(std::string(HPCSENS_BIN) + " doctor --format yaml").status, 2);
}

TEST(RunTopdown, UnavailableWithReasonJobAndRecordIntact) {
  if (has_pmu()) GTEST_SKIP() << "machine has a PMU: this test covers the no-PMU case";
  const fs::path out = fs::temp_directory_path() / ("hpcsens_td_run_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const Result r = run(std::string(HPCSENS_BIN) + " run --out " + out.string() +
                       " --events topdown -- " + MPIRUN + " -np 2 --oversubscribe " + TOPDOWN_MPI_PROBE);
  EXPECT_EQ(r.status, 0) << r.out;  // the job's exit status, not a counter problem
  EXPECT_NE(r.out.find("Top-Down unavailable"), std::string::npos) << r.out;

  std::vector<fs::path> records;
  if (fs::exists(out))
    for (const auto& e : fs::directory_iterator(out))
      if (e.path().extension() == ".json" && e.path().string().find(".partial") == std::string::npos)
        records.push_back(e.path());
  ASSERT_EQ(records.size(), 1u) << r.out;
  const auto rec = hpcsens::record::load_run_record(records[0].string());
  EXPECT_NE(rec.counters_status, "ok");
  // The reason names what was refused: a Top-Down event of this CPU's table.
  EXPECT_TRUE(rec.counters_status.find("refused") != std::string::npos ||
              rec.counters_status.find("not supported") != std::string::npos)
      << rec.counters_status;
  ASSERT_EQ(rec.ranks.size(), 2u);
  for (const auto& rk : rec.ranks) {
    EXPECT_EQ(rk.event_set.rfind("topdown", 0), 0u) << rk.event_set;
    EXPECT_GT(rk.wall_s, 0.0);
    EXPECT_TRUE(rk.complete);
    EXPECT_EQ(rk.mpi_calls.count("MPI_Allreduce"), 1u);
    if (rk.mpi_calls.count("MPI_Allreduce")) {
      EXPECT_EQ(rk.mpi_calls.at("MPI_Allreduce").count, 1u);
    }
  }
  EXPECT_GT(rec.timing.job_s, 0.0);
  EXPECT_EQ(rec.job.nranks, 2);

  // The report says the same, in one line, and still exits 0.
  const Result rep = run(std::string(HPCSENS_BIN) + " report " + records[0].string());
  EXPECT_EQ(rep.status, 0) << rep.out;
  EXPECT_NE(rep.out.find("Top-Down unavailable"), std::string::npos) << rep.out;
  fs::remove_all(out);
}
