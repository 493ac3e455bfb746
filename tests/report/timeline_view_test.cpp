// The report's reading of ranks[].timeline (report/timeline_view.h): checked fields with errors
// naming file, rank and field; ranks with different bin widths on one grid; phases; tidy CSV.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "report/timeline_view.h"

namespace hpcsens::report {
namespace {

using nlohmann::json;

// A rank whose bins are `pattern` ('c' compute, 'm' MPI in MPI_Bcast, 'i' I/O), each `w` s wide.
json rank_with(int rank, const std::string& pattern, double w) {
  json t = {{"bin_s", w}, {"bins", pattern.size()}, {"calls", {"MPI_Bcast"}}, {"marks", json::array()}};
  for (char c : pattern) {
    t["compute_s"].push_back(c == 'c' ? w : 0.0);
    t["mpi_s"].push_back(c == 'm' ? w : 0.0);
    t["io_s"].push_back(c == 'i' ? w : 0.0);
    t["top_mpi"].push_back(c == 'm' ? 0 : -1);
  }
  return {{"rank", rank}, {"timeline", t}};
}

TEST(TimelineView, PhasesFollowTheDominantActivityOverAllRanks) {
  json ranks = {rank_with(0, "ccccmmmmii", 0.1), rank_with(1, "cccccmmmii", 0.1)};
  ranks[0]["timeline"]["marks"] = {{{"t_s", 0.4}, {"phase", "pcontrol:1"}}};
  const auto phases = timeline_phases(timelines_of(ranks, "r.json"));
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].activity, "compute");
  EXPECT_DOUBLE_EQ(phases[0].start_s, 0.0);
  EXPECT_NEAR(phases[0].end_s, 0.5, 1e-12);  // bin 4 is half compute, half MPI: compute wins ties
  EXPECT_EQ(phases[1].activity, "MPI");
  EXPECT_EQ(phases[1].top_mpi, "MPI_Bcast");
  EXPECT_NEAR(phases[1].end_s, 0.8, 1e-12);
  EXPECT_EQ(phases[2].activity, "I/O");
  EXPECT_NEAR(phases[2].end_s, 1.0, 1e-12);
  EXPECT_EQ(phases[0].marks, std::vector<std::string>{"pcontrol:1"});
  EXPECT_NEAR(phases[1].mpi_s, 0.6, 1e-12);
}

TEST(TimelineView, AOneBinBurstThatStandsOutIsItsOwnPhase) {
  // Issue 33: a whole bin of MPI among compute was folded into the compute phase.
  const auto phases = timeline_phases(timelines_of(json{rank_with(0, "ccccmccccc", 0.1)}, "r.json"));
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[1].activity, "MPI");
  EXPECT_NEAR(phases[1].start_s, 0.4, 1e-12);
  EXPECT_NEAR(phases[1].end_s, 0.5, 1e-12);
  EXPECT_EQ(phases[1].top_mpi, "MPI_Bcast");
}

TEST(TimelineView, AOneBinBlipAtAPhaseBoundaryJoinsAPhase) {
  // Rank 1 switches one bin later than rank 0: the bin between is half compute, half MPI.
  const auto phases = timeline_phases(
      timelines_of(json{rank_with(0, "ccccmmmmmm", 0.1), rank_with(1, "cccccmmmmm", 0.1)}, "r.json"));
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_FALSE(phases[0].burst || phases[1].burst);
}

TEST(TimelineView, RanksWithDifferentBinWidthsShareTheWidestGrid) {
  // Rank 1's run crossed one more doubling: its bins are twice as wide.
  const auto g = common_grid(timelines_of(json{rank_with(0, "ccmm", 0.1), rank_with(1, "cm", 0.2)}, "r.json"));
  EXPECT_DOUBLE_EQ(g.cell_s, 0.2);
  ASSERT_EQ(g.mpi.size(), 2u);
  EXPECT_NEAR(g.compute[0], 0.4, 1e-12);
  EXPECT_NEAR(g.mpi[1], 0.4, 1e-12);
  EXPECT_NEAR(g.mpi[0], 0.0, 1e-12);
}

TEST(TimelineView, CsvHasOneRowPerRankAndBin) {
  EXPECT_EQ(timeline_csv(timelines_of(json{rank_with(3, "cm", 0.5)}, "r.json")),
            "rank,bin,start_s,end_s,compute_s,mpi_s,io_s,top_mpi,rss_kib\n"
            "3,0,0,0.5,0.5,0,0,,\n"
            "3,1,0.5,1,0,0.5,0,MPI_Bcast,\n");
  // With memory sampled: each bin's resident KiB, as the record has it.
  json sampled = rank_with(4, "cm", 0.5);
  sampled["timeline"]["rss_kib"] = {2048, 3072};
  EXPECT_EQ(timeline_csv(timelines_of(json{sampled}, "r.json")),
            "rank,bin,start_s,end_s,compute_s,mpi_s,io_s,top_mpi,rss_kib\n"
            "4,0,0,0.5,0.5,0,0,,2048\n"
            "4,1,0.5,1,0,0.5,0,MPI_Bcast,3072\n");
}

TEST(TimelineView, MalformedFieldsAreNamedWithFileRankAndField) {
  auto expect_error = [](json rank, const std::string& field) {
    try {
      timelines_of(json{rank}, "run.json");
      ADD_FAILURE() << "accepted " << rank.dump();
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("run.json"), std::string::npos) << what;
      EXPECT_NE(what.find("rank 2"), std::string::npos) << what;
      EXPECT_NE(what.find(field), std::string::npos) << what;
    }
  };
  json r = rank_with(2, "cm", 0.1);
  r["timeline"]["mpi_s"] = {0.1};  // one value for two bins
  expect_error(r, "timeline.mpi_s");
  r = rank_with(2, "cm", 0.1);
  r["timeline"]["top_mpi"][1] = 5;  // no such call
  expect_error(r, "timeline.top_mpi");
  r = rank_with(2, "cm", 0.1);
  r["timeline"]["bin_s"] = -1;
  expect_error(r, "timeline.bin_s");
  r = rank_with(2, "cm", 0.1);
  r["timeline"]["io_s"][0] = "x";
  expect_error(r, "timeline.io_s");
}

}  // namespace
}  // namespace hpcsens::report
