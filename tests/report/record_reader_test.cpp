#include "report/record_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/errors.h"

namespace hpcsens::report {
namespace {
namespace fs = std::filesystem;

class RecordReader : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::temp_directory_path() / ("hpcsens-reader-" + std::to_string(::getpid()) + ".json")).string();
  }
  void TearDown() override { fs::remove(path_); }
  void write(const nlohmann::json& j) { std::ofstream(path_) << j.dump(1); }
  std::string path_;
};

// Every field set to something other than its default, so a field the fast reader forgot
// (or mistyped) makes the two readers disagree.
record::RunRecord everything() {
  record::RunRecord rec;
  rec.job = {{"mpirun", "-np", "2", "./a b"}, 2, "openmpi", "Open MPI v4.1.4", {"n1", "n2"}, "2026-01-01T00:00:00Z"};
  rec.config = {{"cpu_ghz", 2.1}, {"label", "base"}, {"nested", {{"a", {1, 2}}}}};
  rec.timing = {3.25, 3.0, 0.25, "m"};
  for (int i = 0; i < 2; ++i) {
    record::RankRecord r;
    r.rank = i;
    r.host = "n" + std::to_string(i + 1);
    r.pid = 100 + i;
    r.t0 = 1.5, r.t1 = 1.75, r.t2 = 4.5, r.t3 = 4.75;
    r.wall_s = 2.75, r.mpi_s = 1.0 + i, r.io_s = 0.125, r.compute_s = 1.625 - i;
    r.io_bytes_read = 1ull << 40;
    r.io_bytes_written = 12345;
    r.mpi_calls["MPI_Send"] = {10, 0.5, 18446744073709551615ull};
    r.mpi_calls["MPI_Wait"] = {3, 0.25, 0};
    r.io_calls["write"] = {4, 0.125, 4096};
    r.counters["PAPI_TOT_INS"] = 1.5e12;
    r.counters_status = "no PMU";
    r.event_set = "default";
    r.multiplexed = true;
    r.counter_running_fraction["PAPI_TOT_INS"] = 0.5;
    r.complete = i == 0;
    rec.ranks.push_back(r);
  }
  rec.imbalance = {1.5, 0.66, 0.9, 0.2, 1.1, 1.625, 0.625, {0, 1}};
  rec.counters_status = "rank 0: no PMU";
  rec.complete = false;
  rec.emulated = true;
  rec.extra["topdown"] = {{"verdict", "backend bound"}, {"levels", {0.1, 0.2}}};
  return rec;
}

TEST_F(RecordReader, AgreesWithTheRecordModuleOnEveryField) {
  write(record::to_json(everything()));
  const auto fast = read_run_record(path_);
  const auto careful = record::load_run_record(path_);
  EXPECT_EQ(record::to_json(fast), record::to_json(careful));
  EXPECT_EQ(fast.ranks[0].mpi_calls.at("MPI_Send").bytes, 18446744073709551615ull);
  EXPECT_EQ(fast.extra.at("topdown").at("verdict"), "backend bound");
}

TEST_F(RecordReader, NullOneClockBoundStaysAbsent) {
  auto rec = everything();
  rec.timing.job_sync_s.reset();
  write(record::to_json(rec));
  EXPECT_FALSE(read_run_record(path_).timing.job_sync_s.has_value());
}

TEST_F(RecordReader, BadRecordsGiveTheRecordModulesErrors) {
  auto j = record::to_json(everything());
  j["ranks"][1].erase("mpi_s");
  write(j);
  try {
    read_run_record(path_);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mpi_s"), std::string::npos) << e.what();
  }
  j = record::to_json(everything());
  j["job"]["nranks"] = "two";
  write(j);
  EXPECT_THROW(read_run_record(path_), InputError);
  std::ofstream(path_) << "{\"schema\": ";
  EXPECT_THROW(read_run_record(path_), InputError);
  EXPECT_THROW(read_run_record(path_ + ".missing"), InputError);
}

}  // namespace
}  // namespace hpcsens::report
