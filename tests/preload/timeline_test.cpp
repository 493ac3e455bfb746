// The timeline's bins (preload/timeline.h) without MPI: calls split across bins exactly, pairs
// merged when the run outlasts the bins, the dominant call of a bin, marks, and the record's
// "timeline" object in seconds.
#include <gtest/gtest.h>

#include <numeric>

#include "preload/account/timeline.h"
#include "preload/rank_record/timeline_report.h"

namespace hpcsens::preload {
namespace {

constexpr int kShift = 4;  // 16-tick bins

std::uint64_t total_mpi(const Timeline& t) {
  std::uint64_t s = 0;
  for (int i = 0; i < kTimelineBins; ++i) s += t.bin(i).mpi;
  return s;
}

const char* region_names(int i) { return i == 0 ? "pcontrol:1" : i == 1 ? "solve" : ""; }

TEST(Timeline, ACallSpanningBinsIsSplitExactly) {
  Timeline t;
  t.start(1000, kShift);
  t.add(call::MPI_Barrier, 1000 + 10, 30);  // ticks 10..40: 6 in bin 0, 16 in bin 1, 8 in bin 2
  EXPECT_EQ(t.bin(0).mpi, 6u);
  EXPECT_EQ(t.bin(1).mpi, 16u);
  EXPECT_EQ(t.bin(2).mpi, 8u);
  EXPECT_EQ(t.bin(3).mpi, 0u);
  EXPECT_EQ(t.top_call(1), call::MPI_Barrier);
  EXPECT_EQ(t.top_call(3), kNoCall);
}

TEST(Timeline, IoIsKeptApartFromMpi) {
  Timeline t;
  t.start(0, kShift);
  t.add(call::write, 2, 5);
  t.add(call::MPI_Send, 8, 4);
  EXPECT_EQ(t.bin(0).io, 5u);
  EXPECT_EQ(t.bin(0).mpi, 4u);
  EXPECT_EQ(t.top_call(0), call::MPI_Send);
}

TEST(Timeline, CallsBeforeStartOrAfterStopAreClipped) {
  Timeline t;
  t.start(100, kShift);
  t.add(call::MPI_Barrier, 90, 20);  // only 100..110 counts
  EXPECT_EQ(t.bin(0).mpi, 10u);
  t.stop(100 + 40);
  t.add(call::MPI_Barrier, 100 + 35, 20);  // only 135..140
  EXPECT_EQ(t.bin(2).mpi, 5u);
  EXPECT_EQ(t.used_bins(), 3);
}

TEST(Timeline, OutlastingTheBinsMergesPairsAndDoublesTheWidth) {
  Timeline t;
  t.start(0, kShift);
  for (std::uint64_t b = 0; b < kTimelineBins; ++b) t.add(b % 2 ? call::MPI_Send : call::MPI_Recv, b * 16, 3);
  EXPECT_EQ(total_mpi(t), 3u * kTimelineBins);
  t.add(call::MPI_Allreduce, 16 * kTimelineBins + 1, 2);  // one bin past the end: width doubles
  EXPECT_EQ(t.shift(), kShift + 1);
  EXPECT_EQ(t.bin(0).mpi, 6u);  // bins 0 and 1
  EXPECT_EQ(t.bin(kTimelineBins / 2).mpi, 2u);
  EXPECT_EQ(t.bin(kTimelineBins / 2 + 1).mpi, 0u);
  EXPECT_EQ(total_mpi(t), 3u * kTimelineBins + 2);
  // A call far beyond: merged as often as needed, nothing lost.
  t.add(call::MPI_Barrier, std::uint64_t{16} * kTimelineBins * 10, 7);
  EXPECT_EQ(t.shift(), kShift + 4);  // 10x the span: 16 times the width
  EXPECT_EQ(total_mpi(t), 3u * kTimelineBins + 9);
}

TEST(Timeline, TheDominantCallIsTheHeaviestEvenBeyondTheEntries) {
  Timeline t;
  t.start(0, 10);  // one 1024-tick bin
  t.add(call::MPI_Send, 0, 10);
  t.add(call::MPI_Recv, 10, 10);
  t.add(call::MPI_Bcast, 20, 10);
  t.add(call::MPI_Reduce, 30, 10);
  t.add(call::MPI_Allreduce, 40, 300);  // a fifth call, the heaviest
  t.add(call::MPI_Send, 340, 5);
  EXPECT_EQ(t.top_call(0), call::MPI_Allreduce);
  EXPECT_EQ(t.bin(0).mpi, 345u);
}

TEST(Timeline, MergedBinsKeepTheDominantCallOfTheirSum) {
  Timeline t;
  t.start(0, kShift);
  t.add(call::MPI_Send, 0, 10);   // bin 0: Send 10
  t.add(call::MPI_Recv, 16, 6);   // bin 1: Recv 6, Wait 6
  t.add(call::MPI_Wait, 22, 6);
  t.add(call::MPI_Recv, 16 * 300, 1);  // forces merging: bin 0 is now Send 10, Recv 6, Wait 6
  EXPECT_EQ(t.top_call(0), call::MPI_Send);
}

TEST(Timeline, RepeatedMarksAreOneAndOverflowIsCounted) {
  Timeline t;
  t.start(0, kShift);
  t.mark(5, 1);
  t.mark(9, 1);  // a loop re-entering "solve"
  t.mark(12, 0);
  EXPECT_EQ(t.marks(), 2);
  for (int i = 0; i < kTimelineMarks; ++i) t.mark(20 + i, (i + 1) % 2);  // alternating, none repeats
  EXPECT_EQ(t.marks(), kTimelineMarks);
  EXPECT_EQ(t.marks_dropped(), 2u);
}

TEST(Timeline, RecordObjectIsInSecondsWithComputeAsTheRest) {
  Timeline t;
  t.start(0, kShift);
  t.add(call::MPI_Barrier, 4, 8);
  t.add(call::read, 20, 4);
  t.mark(16, 0);
  t.stop(40);  // bins 0, 1 and half of 2
  const auto j = timeline_json(t, 0.5, region_names);
  EXPECT_EQ(j.at("bins"), 3);
  EXPECT_DOUBLE_EQ(j.at("bin_s").get<double>(), 8.0);
  EXPECT_EQ(j.at("mpi_s"), nlohmann::json({4.0, 0.0, 0.0}));
  EXPECT_EQ(j.at("io_s"), nlohmann::json({0.0, 2.0, 0.0}));
  EXPECT_EQ(j.at("compute_s"), nlohmann::json({4.0, 6.0, 4.0}));
  EXPECT_EQ(j.at("calls"), nlohmann::json({"MPI_Barrier"}));
  EXPECT_EQ(j.at("top_mpi"), nlohmann::json({0, -1, -1}));
  EXPECT_EQ(j.at("marks"), nlohmann::json::parse(R"([{"t_s": 8.0, "phase": "pcontrol:1"}])"));
  EXPECT_EQ(j.at("marks_dropped"), 0);
}

}  // namespace
}  // namespace hpcsens::preload
