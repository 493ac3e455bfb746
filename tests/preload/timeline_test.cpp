// The timeline's bins (preload/timeline.h) without MPI: calls split across bins exactly, pairs
// merged when the run outlasts the bins, the dominant call of a bin, marks, and the record's
// "timeline" object in seconds.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <random>

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

// What the wrappers do: add the call's ticks to the thread's totals, then the timeline hook.
struct Feed {
  CallTotals totals{};
  Timeline t;
  Feed(std::uint64_t t0, int shift) { t.start(t0, shift, &totals); }
  void call(int id, std::uint64_t start, std::uint64_t elapsed) {
    totals[id].ticks += elapsed;
    t.call_ended(id, start, elapsed);
  }
};

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

TEST(TimelineFromTotals, CallsInsideABinAreTakenFromTheTotalsWhenTheBinCloses) {
  Feed f(1000, kShift);
  f.call(call::MPI_Send, 1001, 3);      // calls cross until one ends after t0 (it may begin before)
  EXPECT_EQ(f.t.limit(), 1016u);        // then only a call ending after the current bin does
  f.call(call::MPI_Recv, 1005, 5);
  f.call(call::write, 1011, 2);
  EXPECT_EQ(f.t.bin(0).mpi, 3u);        // not yet: bin 0 is still open
  f.call(call::MPI_Barrier, 1014, 10);  // 2 ticks in bin 0, 8 in bin 1: closes bin 0
  EXPECT_EQ(f.t.bin(0).mpi, 3u + 5u + 2u);
  EXPECT_EQ(f.t.bin(0).io, 2u);
  EXPECT_EQ(f.t.top_call(0), call::MPI_Recv);
  EXPECT_EQ(f.t.limit(), 1032u);
  f.call(call::MPI_Wait, 1025, 4);
  f.t.stop(1030);  // closes bin 1 too
  EXPECT_EQ(f.t.bin(1).mpi, 8u + 4u);
  EXPECT_EQ(f.t.top_call(1), call::MPI_Barrier);
  f.call(call::MPI_Send, 1031, 50);  // after the end: nothing
  EXPECT_EQ(total_mpi(f.t), 3u + 5u + 2u + 8u + 4u);
}

TEST(TimelineFromTotals, ACallBegunBeforeTheStartCountsFromTheStart) {
  Feed f(100, kShift);
  f.call(call::MPI_Send, 80, 5);  // over before the start: not in any bin
  f.call(call::MPI_Barrier, 90, 20);
  EXPECT_EQ(f.t.bin(0).mpi, 10u);
  f.t.stop(120);
  EXPECT_EQ(total_mpi(f.t), 10u);
}

TEST(TimelineFromTotals, TheEntriesAreTheExactHeaviestCallsOfTheBin) {
  Feed f(0, 10);                        // 1024-tick bins
  f.call(call::MPI_Allreduce, 1000, 30);  // 24 in bin 0, 6 in bin 1
  // Bin 1: five more calls; Allreduce's 6 + 20 makes it the heaviest, offered among lighter ones.
  f.call(call::MPI_Send, 1100, 15);
  f.call(call::MPI_Recv, 1200, 14);
  f.call(call::MPI_Allreduce, 1300, 20);
  f.call(call::MPI_Bcast, 1400, 13);
  f.call(call::MPI_Reduce, 1500, 12);
  f.t.stop(2048);
  EXPECT_EQ(f.t.bin(1).mpi, 6u + 15u + 14u + 20u + 13u + 12u);
  EXPECT_EQ(f.t.top_call(1), call::MPI_Allreduce);
  std::map<int, std::uint64_t> top;
  for (int k = 0; k < kTimelineTop; ++k) top[f.t.bin(1).top_call[k]] = f.t.bin(1).top_ticks[k];
  EXPECT_EQ(top, (std::map<int, std::uint64_t>{
                     {call::MPI_Allreduce, 26}, {call::MPI_Send, 15}, {call::MPI_Recv, 14}, {call::MPI_Bcast, 13}}));
}

// The same random run two ways: every call split into its bins (the reference) and through the
// totals. Bin times must agree to the tick, before and after merging, and at the finest width
// the dominant call must be the reference's heaviest.
TEST(TimelineFromTotals, AgreesWithSplittingEveryCallOnARandomRun) {
  const int ids[] = {call::MPI_Send, call::MPI_Recv, call::MPI_Wait, call::MPI_Allreduce, call::MPI_Barrier,
                     call::MPI_Test, call::write, call::read};
  for (const std::uint64_t span_bins : {200u, 3000u}) {
    std::mt19937_64 rng(span_bins);
    Feed f(5000, kShift);
    Timeline ref;
    ref.start(5000, kShift);
    std::map<std::pair<std::uint64_t, int>, std::uint64_t> exact;  // (bin, id) -> ticks, finest width
    std::uint64_t now = 4990;
    const std::uint64_t end = 5000 + 16 * span_bins;
    while (true) {
      now += rng() % 12;  // compute
      const std::uint64_t len = 1 + rng() % (rng() % 8 == 0 ? 60 : 7);
      if (now + len > end) break;
      const int id = ids[rng() % std::size(ids)];
      f.call(id, now, len);
      ref.add(id, now, len);
      for (std::uint64_t t = std::max<std::uint64_t>(now, 5000); t < now + len; ++t) ++exact[{(t - 5000) / 16, id}];
      now += len;
    }
    f.t.stop(end);
    ref.stop(end);
    ASSERT_EQ(f.t.shift(), ref.shift());
    for (int i = 0; i < kTimelineBins; ++i) {
      ASSERT_EQ(f.t.bin(i).mpi, ref.bin(i).mpi) << "bin " << i;
      ASSERT_EQ(f.t.bin(i).io, ref.bin(i).io) << "bin " << i;
    }
    if (f.t.shift() != kShift) continue;
    for (int i = 0; i < f.t.used_bins(); ++i) {
      std::uint64_t best = 0;
      for (const int id : ids)
        if (id != call::write && id != call::read) best = std::max(best, exact[{std::uint64_t(i), id}]);
      if (best == 0) continue;
      const std::pair<std::uint64_t, int> winner{std::uint64_t(i), f.t.top_call(i)};
      EXPECT_EQ(exact[winner], best) << "bin " << i;
    }
  }
}

}  // namespace
}  // namespace hpcsens::preload
