// Names cut to fit a fixed field inside a UTF-8 character (issue 22): the region names of a C and
// a Fortran program, in full and partial records, and a long non-ASCII event name in the counter
// status. Before, two cut names became one duplicate key (every rank's data refused) and the event
// name made the writer throw (no record at all). Each record must now load with the strict reader,
// which refuses duplicate keys and invalid UTF-8.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "mpirun_fixture.h"
#include "record/run_record.h"

namespace {

namespace fs = std::filesystem;
using hpcsens::test::MpirunFixture;

class CutNames : public MpirunFixture {
 protected:
  // Every rank's regions: the 62 a's twice (é and € cut off), and extra keys as given.
  void expect_regions(const hpcsens::record::RunRecord& run, const nlohmann::json& loaded, int nranks) {
    ASSERT_EQ(static_cast<int>(run.ranks.size()), nranks);
    for (const auto& r : loaded.at("ranks")) {
      const auto& regions = r.at("regions");
      ASSERT_TRUE(regions.contains(std::string(62, 'a'))) << regions.dump();
      EXPECT_EQ(regions.at(std::string(62, 'a')).at("count"), 2) << regions.dump();
    }
  }
};

TEST_F(CutNames, CRegionNamesCutInsideACharacterKeepTheRecord) {
  ASSERT_EQ(mpirun(2, PROG_CUT_C), 0) << log();
  const auto path = run_file(dir_, "m1", ".json");
  ASSERT_FALSE(path.empty()) << log();
  const auto run = hpcsens::record::load_run_record(path);  // strict: throws on a duplicate key
  expect_regions(run, record(), 2);
  for (const auto& r : record().at("ranks")) EXPECT_EQ(r.at("regions").at("caf\\xe9").at("count"), 1);
}

TEST_F(CutNames, FortranRegionNamesCutInsideACharacterKeepTheRecord) {
  ASSERT_EQ(mpirun(2, PROG_CUT_F), 0) << log();
  const auto path = run_file(dir_, "m1", ".json");
  ASSERT_FALSE(path.empty()) << log();
  expect_regions(hpcsens::record::load_run_record(path), record(), 2);
}

// One rank: with several, Open MPI kills the others while they may still be writing theirs.
TEST_F(CutNames, PartialRecordsWithCutNamesLoad) {
  mpirun(1, std::string(PROG_CUT_C) + " abort");  // MPI_Abort: its status is mpirun's business
  for (int rank = 0; rank < 1; ++rank) {
    const auto path = run_file(dir_, "m1.rank" + std::to_string(rank), ".partial.json");
    ASSERT_FALSE(path.empty()) << "rank " << rank << ": " << log();
    const auto part = hpcsens::record::load_run_record(path);
    ASSERT_EQ(part.ranks.size(), 1u);
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("ranks").at(0).at("regions").at(std::string(62, 'a')).at("count"), 2);
  }
}

// A 300-byte event name of two-byte characters reaches the counter status, which travels in a
// 255-byte field: cut on a character, the record is written and loads.
TEST_F(CutNames, LongNonAsciiEventNameDoesNotLoseTheRecord) {
  std::string name;
  while (name.size() < 300) name += "\xc3\x84";  // Ä
  ASSERT_EQ(mpirun(2, PROG_CUT_C, true, "-x 'HPCSENS_EVENTS=perf::TASK-CLOCK," + name + "'"), 0) << log();
  const auto path = run_file(dir_, "m1", ".json");
  ASSERT_FALSE(path.empty()) << log();
  const auto run = hpcsens::record::load_run_record(path);
  EXPECT_EQ(run.ranks.size(), 2u);
  EXPECT_NE(run.counters_status, "ok");
}

}  // namespace
