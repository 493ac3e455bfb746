#include "run/collect_record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "record/run_record.h"
#include "run/run_files.h"

namespace hpcsens::run {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

class CollectRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hpcsens-collect-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const json& j) { std::ofstream(dir_ / name) << j.dump(); }
  record::RankRecord rank(int r, double compute, bool with_stop) {
    record::RankRecord k;
    k.rank = r;
    k.host = "h";
    k.t0 = 10;
    k.t1 = 10.1;
    if (with_stop) {
      k.t2 = 12;
      k.t3 = 12.1;
    }
    k.wall_s = compute + 0.5;
    k.mpi_s = 0.5;
    k.compute_s = compute;
    k.mpi_calls["MPI_Barrier"] = {1, 0.5, 0};
    k.complete = false;
    return k;
  }
  fs::path dir_;
  JobFacts facts_{{"mpirun", "-np", "3", "./app"}, "openmpi", "2026-01-01T00:00:00Z"};
};

TEST_F(CollectRecord, MergesConfigIntoFullRecordKeepingOtherKeys) {
  record::RunRecord rec;
  rec.job.nranks = 1;
  rec.ranks.push_back(rank(0, 1.0, true));
  rec.ranks[0].complete = true;
  rec.config = {{"label", "old"}, {"keep", 1}};
  json j = record::to_json(rec);
  j["topdown"] = {{"verdict", "memory bound"}};  // a section added by a later stage
  write("R1.0123456789abcdef.json", j);
  const auto c = collect_record(dir_.string(), "R1", facts_, {{"label", "new"}, {"cpu_ghz", 2.0}});
  EXPECT_TRUE(c.error.empty()) << c.error;
  EXPECT_TRUE(c.complete);
  EXPECT_EQ(c.record_path, (dir_ / "R1.0123456789abcdef.json").string()) << "the preload's file, updated in place";
  const auto back = record::load_run_record(c.record_path);
  EXPECT_EQ(back.config.at("label"), "new");
  EXPECT_EQ(back.config.at("keep"), 1);
  EXPECT_DOUBLE_EQ(back.config.at("cpu_ghz").get<double>(), 2.0);
  EXPECT_EQ(back.extra.at("topdown").at("verdict"), "memory bound");
}

TEST_F(CollectRecord, AssemblesIncompleteRecordFromPartialFiles) {
  write("R2.rank2.0123456789abcdef.partial.json", record::to_json(rank(2, 3.0, true)));
  write("R2.rank0.0123456789abcdef.partial.json", record::to_json(rank(0, 1.0, true)));
  write("OTHER.rank1.0123456789abcdef.partial.json", record::to_json(rank(1, 9.0, true)));  // another run
  std::ofstream(dir_ / ".R2.rank1.partial.json.tmp.999.0.1") << "{ killed while writ";
  const auto c = collect_record(dir_.string(), "R2", facts_, {{"label", "x"}});
  EXPECT_EQ(c.partial_ranks, 2);
  EXPECT_FALSE(c.complete);
  ASSERT_FALSE(c.record_path.empty()) << c.error;
  const auto rec = record::load_run_record(c.record_path);
  EXPECT_FALSE(rec.complete);
  ASSERT_EQ(rec.ranks.size(), 2u);
  EXPECT_EQ(rec.ranks[0].rank, 0);
  EXPECT_EQ(rec.ranks[1].rank, 2);
  EXPECT_FALSE(rec.ranks[0].complete);
  EXPECT_EQ(rec.job.nranks, 3);
  EXPECT_EQ(rec.job.launcher, "openmpi");
  EXPECT_EQ(rec.job.command, facts_.command);
  EXPECT_EQ(rec.config.at("label"), "x");
  ASSERT_FALSE(rec.imbalance.slowest.empty());
  EXPECT_EQ(rec.imbalance.slowest[0], 2);
  EXPECT_NEAR(rec.timing.job_s, 2.1, 1e-9);
  EXPECT_NE(rec.timing.method.find("incomplete"), std::string::npos);
  // The partial files of this run are folded in and removed; the other run's stays.
  EXPECT_TRUE(partial_rank_files(dir_.string(), "R2").empty());
  EXPECT_EQ(partial_rank_files(dir_.string(), "OTHER").size(), 1u);
  EXPECT_FALSE(fs::exists(dir_ / ".R2.rank1.partial.json.tmp.999.0.1"));
  EXPECT_TRUE(is_run_file(fs::path(c.record_path).filename().string(), "R2", RunFile::kRecord)) << c.record_path;
}

TEST_F(CollectRecord, NoStopTimesMeansNoJobTime) {
  write("R3.rank0.0123456789abcdef.partial.json", record::to_json(rank(0, 1.0, false)));
  const auto c = collect_record(dir_.string(), "R3", facts_, json::object());
  const auto rec = record::load_run_record(c.record_path);
  EXPECT_EQ(rec.timing.job_s, 0.0);
  EXPECT_NE(rec.timing.method.find("unavailable"), std::string::npos);
}

TEST_F(CollectRecord, WrappedPartialFormatsAreAccepted) {
  write("R4.rank0.0123456789abcdef.partial.json", json{{"rank", record::to_json(rank(0, 1.0, true))}});
  write("R4.rank1.0123456789abcdef.partial.json", json{{"ranks", json::array({record::to_json(rank(1, 2.0, true))})}});
  // What the preload writes: a run record holding the one rank, with the job's size.
  record::RunRecord one;
  one.job.nranks = 4;
  one.job.mpi_library = "Open MPI v4.1.4";
  one.ranks.push_back(rank(3, 1.0, true));
  one.complete = false;
  one.extra["preload"] = {{"note", "abort"}};
  write("R4.rank3.0123456789abcdef.partial.json", record::to_json(one));
  const auto c = collect_record(dir_.string(), "R4", facts_, json::object());
  EXPECT_EQ(c.partial_ranks, 3);
  const auto rec = record::load_run_record(c.record_path);
  EXPECT_EQ(rec.job.nranks, 4);
  EXPECT_EQ(rec.job.mpi_library, "Open MPI v4.1.4");
  EXPECT_EQ(rec.extra.at("preload").at("note"), "abort");
}

TEST_F(CollectRecord, NothingWrittenSaysSo) {
  const auto c = collect_record(dir_.string(), "R5", facts_, json::object());
  EXPECT_TRUE(c.record_path.empty());
  EXPECT_EQ(c.error, "no MPI ranks reported (was this an MPI program?)");
}

TEST_F(CollectRecord, BrokenRecordIsReportedWithFileAndField) {
  write("R6.0123456789abcdef.json", json{{"schema", "hpcsens.run.v1"}, {"job", json::object()}});
  const auto c = collect_record(dir_.string(), "R6", facts_, json::object());
  EXPECT_NE(c.error.find("R6.0123456789abcdef.json"), std::string::npos);
  EXPECT_NE(c.error.find("nranks"), std::string::npos);
}

TEST_F(CollectRecord, UnreadablePartialIsNamedButOthersAreUsed) {
  std::ofstream(dir_ / "R7.rank1.0123456789abcdef.partial.json") << "{ truncated";
  write("R7.rank0.0123456789abcdef.partial.json", record::to_json(rank(0, 1.0, true)));
  const auto c = collect_record(dir_.string(), "R7", facts_, json::object());
  EXPECT_EQ(c.partial_ranks, 1);
  EXPECT_NE(c.error.find("R7.rank1.0123456789abcdef.partial.json"), std::string::npos);
  EXPECT_FALSE(c.record_path.empty());
}

// Names another user planted in a shared directory (a directory called like the record, links,
// files of theirs under our patterns) neither replace nor pose as the run's files (issue 22).
TEST_F(CollectRecord, PlantedNamesAreNeitherUsedNorInTheWay) {
  fs::create_directory(dir_ / "R8.json");
  fs::create_directory(dir_ / "R8.write-error");
  fs::create_directory(dir_ / "R8.rank0.fedcba9876543210.partial.json");
  fs::create_symlink("/etc/passwd", dir_ / "R8.aaaaaaaaaaaaaaaa.json");
  write("R8.rank1.0000000000000001.partial.json", record::to_json(rank(1, 1.0, true)));
  const auto c = collect_record(dir_.string(), "R8", facts_, json::object());
  ASSERT_FALSE(c.record_path.empty()) << c.error;
  EXPECT_TRUE(c.error.empty()) << c.error;
  EXPECT_EQ(c.partial_ranks, 1);
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(c.record_path)));
  EXPECT_TRUE(fs::is_directory(dir_ / "R8.json")) << "left alone";
}

TEST(RunFiles, NamesFollowThePatternExactly) {
  EXPECT_TRUE(is_run_file("R.0123456789abcdef.json", "R", RunFile::kRecord));
  EXPECT_FALSE(is_run_file("R.json", "R", RunFile::kRecord));
  EXPECT_FALSE(is_run_file("R.2.0123456789abcdef.json", "R", RunFile::kRecord)) << "run R.2's, not R's";
  EXPECT_FALSE(is_run_file("R.0123456789ABCDEF.json", "R", RunFile::kRecord));
  EXPECT_TRUE(is_run_file("R.rank12.0123456789abcdef.partial.json", "R", RunFile::kPartial));
  EXPECT_FALSE(is_run_file("R.rank.0123456789abcdef.partial.json", "R", RunFile::kPartial));
  EXPECT_FALSE(is_run_file("R.rank1x.0123456789abcdef.partial.json", "R", RunFile::kPartial));
  EXPECT_TRUE(is_run_file("R.0123456789abcdef.write-error", "R", RunFile::kNote));
  EXPECT_FALSE(is_run_file("R.write-error", "R", RunFile::kNote));
}

}  // namespace
}  // namespace hpcsens::run
