// The run record is a public format: what we write must read back identically, and every
// malformed record must be refused with the file and the field named.
#include "record/run_record.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/errors.h"

namespace hpcsens::record {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

RunRecord sample() {
  RunRecord r;
  r.job.command = {"mpirun", "-np", "2", "./app"};
  r.job.nranks = 2;
  r.job.launcher = "openmpi";
  r.job.hosts = {"n1"};
  r.config = {{"cpu_ghz", 2.4}, {"mem_gbs", 95.5}, {"label", "c2.4"}};
  r.timing.job_s = 9.5;
  r.timing.job_sync_s = 9.2;
  r.timing.barrier_s = 0.3;
  for (int k = 0; k < 2; ++k) {
    RankRecord rk;
    rk.rank = k;
    rk.host = "n1";
    rk.wall_s = 9.0;
    rk.mpi_s = 1.0 + k;
    rk.io_s = 0.5;
    rk.compute_s = rk.wall_s - rk.mpi_s - rk.io_s;
    rk.mpi_calls["MPI_Send"] = {10, 0.25, 4096};
    rk.io_calls["write"] = {3, 0.5, 300};
    rk.counters["perf::TASK-CLOCK"] = 8.9e9;
    r.ranks.push_back(rk);
  }
  r.imbalance.lbe = 0.93;
  r.imbalance.slowest = {0, 1};
  r.extra["topdown"] = {{"set", "topdown-skx"}};
  return r;
}

TEST(RunRecord, RoundTripKeepsEveryField) {
  const RunRecord a = sample();
  const json j = to_json(a);
  const RunRecord b = run_from_json(j, "mem");
  EXPECT_EQ(to_json(b), j);
  EXPECT_EQ(b.ranks[1].mpi_calls.at("MPI_Send").bytes, 4096u);
  EXPECT_DOUBLE_EQ(*b.timing.job_sync_s, 9.2);
  EXPECT_EQ(b.extra.at("topdown").at("set"), "topdown-skx");
}

TEST(RunRecord, DesignKeysArePresent) {
  const json j = to_json(sample());
  for (const char* k : {"schema", "job", "config", "timing", "ranks", "imbalance", "counters_status"})
    EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"command", "nranks", "launcher", "mpi_library", "hosts", "start_utc"})
    EXPECT_TRUE(j["job"].contains(k)) << k;
  for (const char* k : {"job_s", "job_sync_s", "method"}) EXPECT_TRUE(j["timing"].contains(k)) << k;
  for (const char* k : {"rank", "host", "wall_s", "mpi_s", "io_s", "compute_s", "mpi_calls", "counters"})
    EXPECT_TRUE(j["ranks"][0].contains(k)) << k;
  for (const char* k : {"max_over_mean", "lbe", "cov"}) EXPECT_TRUE(j["imbalance"].contains(k)) << k;
  EXPECT_EQ(j["schema"], "hpcsens.run.v1");
}

std::string error_of(const json& j) {
  try {
    run_from_json(j, "rec.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Not known is written as null with why, never as {} (which reads as "never descheduled"); the
// reason survives the round trip; a rank that counted nothing says "no counters: why".
TEST(RunRecord, UnknownRunningFractionIsNullWithItsReason) {
  RunRecord a = sample();
  a.ranks[0].counter_running_fraction_reason = "multiplexed: PAPI returns no fraction";
  a.ranks[1].counters.clear();
  a.ranks[1].counters_status = "counters unavailable: no PMU";
  const json j = to_json(a);
  EXPECT_TRUE(j["ranks"][0]["counter_running_fraction"].is_null()) << j["ranks"][0];
  EXPECT_EQ(j["ranks"][0]["counter_running_fraction_reason"], "multiplexed: PAPI returns no fraction");
  EXPECT_EQ(j["ranks"][1]["counter_running_fraction_reason"], "no counters: counters unavailable: no PMU");
  const RunRecord b = run_from_json(j, "mem");
  EXPECT_TRUE(b.ranks[0].counter_running_fraction.empty());
  EXPECT_EQ(b.ranks[0].counter_running_fraction_reason, "multiplexed: PAPI returns no fraction");
  EXPECT_EQ(to_json(b), j);
}

TEST(RunRecord, KnownRunningFractionIsAnObjectWithHowItIsKnown) {
  RunRecord a = sample();
  a.ranks[0].counter_running_fraction = {{"perf::TASK-CLOCK", 1.0}};
  a.ranks[0].counter_running_fraction_reason = "pinned group";
  const json j = to_json(a);
  EXPECT_EQ(j["ranks"][0]["counter_running_fraction"], json({{"perf::TASK-CLOCK", 1.0}}));
  EXPECT_EQ(j["ranks"][0]["counter_running_fraction_reason"], "pinned group");
  EXPECT_EQ(run_from_json(j, "mem").ranks[0].counter_running_fraction.at("perf::TASK-CLOCK"), 1.0);
}

// Records written before the reason existed carry {} (or an object) and no reason: they still
// read, and what they say is "not recorded", not "counted all the time".
TEST(RunRecord, OldEmptyRunningFractionStillReads) {
  json j = to_json(sample());
  j["ranks"][0]["counter_running_fraction"] = json::object();
  j["ranks"][0].erase("counter_running_fraction_reason");
  j["ranks"][1]["counter_running_fraction"] = {{"perf::TASK-CLOCK", 0.75}};
  j["ranks"][1].erase("counter_running_fraction_reason");
  const RunRecord b = run_from_json(j, "old.json");
  EXPECT_TRUE(b.ranks[0].counter_running_fraction.empty());
  EXPECT_EQ(running_fraction_reason(b.ranks[0]), "not recorded (the writer of this record gave no fraction)");
  EXPECT_EQ(b.ranks[1].counter_running_fraction.at("perf::TASK-CLOCK"), 0.75);
  EXPECT_EQ(running_fraction_reason(b.ranks[1]), "");
  json bad = j;
  bad["ranks"][0]["counter_running_fraction_reason"] = 3;
  EXPECT_EQ(error_of(bad), "rec.json: ranks[0]: field 'counter_running_fraction_reason' has the wrong type");
}

TEST(RunRecord, ErrorsNameTheFileAndField) {
  json j = to_json(sample());
  json no_job_s = j;
  no_job_s["timing"].erase("job_s");
  EXPECT_EQ(error_of(no_job_s), "rec.json: timing: missing field 'job_s'");

  json bad_wall = j;
  bad_wall["ranks"][1]["wall_s"] = "slow";
  EXPECT_EQ(error_of(bad_wall), "rec.json: ranks[1]: field 'wall_s' has the wrong type");

  json bad_schema = j;
  bad_schema["schema"] = "other.v9";
  EXPECT_NE(error_of(bad_schema).find("'schema' is 'other.v9'"), std::string::npos);

  json bad_calls = j;
  bad_calls["ranks"][0]["mpi_calls"]["MPI_Send"].erase("count");
  EXPECT_NE(error_of(bad_calls).find("mpi_calls.MPI_Send: missing field 'count'"), std::string::npos);
}

std::string validation_error(const RunRecord& r) {
  try {
    validate(r, "rec.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// QA edited good records into impossible ones and `hpcsens report` printed them as if fine.
TEST(RunRecord, ValidateRefusesImpossibleRecords) {
  EXPECT_EQ(validation_error(sample()), "");

  RunRecord dup = sample();
  dup.ranks[1].rank = 0;
  EXPECT_EQ(validation_error(dup), "rec.json: ranks[1]: field 'rank': rank 0 appears twice");

  RunRecord outside = sample();
  outside.ranks[1].rank = 99;
  EXPECT_EQ(validation_error(outside), "rec.json: ranks[1]: field 'rank' is 99, outside 0..1 (job.nranks)");

  RunRecord negative = sample();
  negative.ranks[0].wall_s = -5;
  EXPECT_EQ(validation_error(negative), "rec.json: ranks[0]: field 'wall_s' must be a finite, non-negative time");

  RunRecord missing = sample();
  missing.job.nranks = 5;
  EXPECT_NE(validation_error(missing).find("job.nranks is 5 but 'ranks' has only 2"), std::string::npos);
  missing.complete = false;  // an incomplete record may lack ranks that never reported
  EXPECT_EQ(validation_error(missing), "");

  RunRecord extra = sample();
  extra.job.nranks = 1;
  EXPECT_NE(validation_error(extra).find("job.nranks is 1 but 'ranks' has 2"), std::string::npos);
}

class RecordFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hpcsens-record-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::chmod(dir_.c_str(), 0755);
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(RecordFiles, AtomicWriteLeavesOnlyTheRecord) {
  const std::string path = (dir_ / "run.json").string();
  std::string err;
  ASSERT_TRUE(write_json_atomic(path, to_json(sample()), &err)) << err;
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);  // no temp file left behind
  EXPECT_EQ(load_run_record(path).ranks.size(), 2u);
}

TEST_F(RecordFiles, UnwritableDirectoryIsReportedNotThrown) {
  if (::geteuid() == 0) {
    // root ignores directory permissions; a path under a regular file fails for everyone.
    std::ofstream(dir_ / "plain") << "x";
    std::string err;
    EXPECT_FALSE(write_json_atomic((dir_ / "plain" / "run.json").string(), json::object(), &err));
    EXPECT_NE(err.find("plain: is not a directory"), std::string::npos) << err;
    return;
  }
  ::chmod(dir_.c_str(), 0555);
  std::string err;
  EXPECT_FALSE(write_json_atomic((dir_ / "run.json").string(), json::object(), &err));
  EXPECT_NE(err.find("cannot create"), std::string::npos) << err;
}

TEST_F(RecordFiles, ADirectoryIsNotARecord) {
  try {
    load_run_record(dir_.string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": is a directory, not a run record file");
  }
}

TEST_F(RecordFiles, LoadNamesFileForMissingAndInvalidJson) {
  const std::string missing = (dir_ / "nope.json").string();
  try {
    load_run_record(missing);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(missing + ": cannot read", 0), 0u) << e.what();
  }
  const std::string torn = (dir_ / "torn.json").string();
  std::ofstream(torn) << R"({"schema": "hpcsens.run.v1", "job": {)";
  try {
    load_run_record(torn);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(torn + ": not valid JSON"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hpcsens::record
