#include "mpi/timing_bounds.h"

#include <gtest/gtest.h>

#include <vector>

namespace hpcsens::mpi {
namespace {

TEST(TimingBounds, JobTimeIsMinOverRanksOfT3MinusT0) {
  // Rank 1 starts late (t0 = 1.0) and so has the tightest bound: 10.5 - 1.0 = 9.5.
  std::vector<RankClock> r = {{0.0, 1.2, 10.0, 10.4}, {1.0, 1.2, 10.1, 10.5}, {0.5, 1.2, 9.0, 10.3}};
  const auto b = barrier_corrected_bounds(r, /*one_clock=*/false);
  EXPECT_DOUBLE_EQ(b.job_s, 9.5);
  EXPECT_FALSE(b.job_sync_s.has_value());
  EXPECT_FALSE(b.barrier_s.has_value());
}

TEST(TimingBounds, OneClockGivesWorkSpanAndBarrierCost) {
  std::vector<RankClock> r = {{0.0, 1.0, 10.0, 10.4}, {0.9, 1.1, 10.2, 10.4}};
  const auto b = barrier_corrected_bounds(r, /*one_clock=*/true);
  EXPECT_DOUBLE_EQ(b.job_s, 9.5);                 // min(10.4, 9.5)
  EXPECT_DOUBLE_EQ(*b.job_sync_s, 10.2 - 1.0);    // max t2 - min t1
  EXPECT_NEAR(*b.barrier_s, 9.5 - 9.2, 1e-12);
}

TEST(TimingBounds, EmptyInputGivesZero) {
  EXPECT_EQ(barrier_corrected_bounds({}, true).job_s, 0.0);
}

TEST(TimingBounds, FillTimingUsesHostsToDecideClock) {
  record::RunRecord rec;
  rec.ranks.resize(2);
  rec.ranks[0].host = "a";
  rec.ranks[1].host = "b";
  rec.ranks[0].t0 = 0; rec.ranks[0].t1 = 1; rec.ranks[0].t2 = 5; rec.ranks[0].t3 = 6;
  rec.ranks[1].t0 = 100; rec.ranks[1].t1 = 101; rec.ranks[1].t2 = 105; rec.ranks[1].t3 = 105.5;
  fill_timing(rec);
  EXPECT_DOUBLE_EQ(rec.timing.job_s, 5.5);
  EXPECT_FALSE(rec.timing.job_sync_s.has_value());
  rec.ranks[1].host = "a";
  fill_timing(rec);
  EXPECT_TRUE(rec.timing.job_sync_s.has_value());
}

// QA found "job time bound" 0.0002 s below the work span when a rank stopped early: an
// incomplete rank's t3 bounds nothing, so the record reports the longest span, labelled.
TEST(TimingBounds, IncompleteRanksGiveTheLongestSpanAsALowerBound) {
  record::RunRecord rec;
  rec.ranks.resize(3);
  for (auto& r : rec.ranks) r.host = "a";
  rec.ranks[0].t0 = 0; rec.ranks[0].t1 = 0.1; rec.ranks[0].t2 = 0.3; rec.ranks[0].t3 = 0.3;
  rec.ranks[1].t0 = 0; rec.ranks[1].t1 = 0.1; rec.ranks[1].t2 = 1.0; rec.ranks[1].t3 = 1.0;
  rec.ranks[2].t0 = 0; rec.ranks[2].t1 = 0.1; rec.ranks[2].t2 = 0.2; rec.ranks[2].t3 = 0.2;
  for (auto& r : rec.ranks) r.complete = false;
  fill_timing(rec);
  EXPECT_DOUBLE_EQ(rec.timing.job_s, 1.0);          // max(0.3, 1.0, 0.2), not min = 0.2
  EXPECT_DOUBLE_EQ(*rec.timing.job_sync_s, 0.9);    // 1.0 - 0.1
  EXPECT_GE(rec.timing.job_s, *rec.timing.job_sync_s);
  EXPECT_EQ(rec.timing.barrier_s, 0.0);
  EXPECT_EQ(rec.timing.method.rfind("incomplete", 0), 0u) << rec.timing.method;
}

}  // namespace
}  // namespace hpcsens::mpi
