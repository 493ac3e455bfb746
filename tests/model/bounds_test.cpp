// Overlap bounds (GLPK) against data with known partial overlap.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/glpk_guard.h"
#include "model/overlap_bounds.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

using testing::Truth;

const std::vector<Term> kTerms{Term::cpu, Term::mem, Term::io};

// Acceptance: data generated with 30 % overlap; the bounds contain the true W of every component.
TEST(OverlapBounds, ContainTrueWorkUnderThirtyPercentOverlap) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Truth truth{24.0, 600.0, 3.0, 0.0, 0.3};
    const auto pts = testing::generate_points(truth, testing::acceptance_grid(), {0.01, seed, 1});
    const OverlapBounds b = overlap_bounds(kTerms, pts);
    ASSERT_TRUE(b.feasible);
    const double truth_w[3] = {truth.w_cpu, truth.w_mem, truth.t_io};
    for (int k = 0; k < 3; ++k) {
      EXPECT_LE(b.terms[k].lo, truth_w[k]) << term_name(kTerms[k]) << " seed " << seed;
      EXPECT_GE(b.terms[k].hi, truth_w[k]) << term_name(kTerms[k]) << " seed " << seed;
      EXPECT_LE(b.terms[k].lo, b.terms[k].hi);
      // The LP can only tighten the "no component longer than the run" bound.
      EXPECT_LE(b.terms[k].hi, b.terms[k].closed_form_hi * (1 + 1e-9));
    }
  }
}

TEST(OverlapBounds, FullOverlapAndNoOverlapAreInside) {
  for (double w : {0.0, 1.0}) {
    const Truth truth{24.0, 600.0, 0.0, 0.0, w};
    const auto pts = testing::generate_points(truth, testing::acceptance_grid(), {0.0, 1, 1});
    const OverlapBounds b = overlap_bounds({Term::cpu, Term::mem}, pts, 0.001);
    ASSERT_TRUE(b.feasible);
    EXPECT_LE(b.terms[0].lo, 24.0 + 1e-6);
    EXPECT_GE(b.terms[0].hi, 24.0 - 1e-6);
    EXPECT_LE(b.terms[1].lo, 600.0 + 1e-4);
    EXPECT_GE(b.terms[1].hi, 600.0 - 1e-4);
  }
}

TEST(OverlapBounds, ClosedFormUpperBoundIsMinOfTimeTimesRate) {
  std::vector<Point> pts(2);
  pts[0].cpu_ghz = 2.0, pts[0].mem_gbs = 10.0, pts[0].time_s = 10.0;
  pts[1].cpu_ghz = 1.0, pts[1].mem_gbs = 40.0, pts[1].time_s = 12.0;
  const OverlapBounds b = overlap_bounds({Term::cpu, Term::mem}, pts, 0.0);
  ASSERT_TRUE(b.feasible);
  EXPECT_DOUBLE_EQ(b.terms[0].closed_form_hi, 12.0);   // min(10 x 2, 12 x 1)
  EXPECT_DOUBLE_EQ(b.terms[1].closed_form_hi, 100.0);  // min(10 x 10, 12 x 40)
  EXPECT_NEAR(b.terms[0].hi, 12.0, 1e-9);
  EXPECT_LE(b.terms[1].hi, 100.0 + 1e-9);
}

TEST(OverlapBounds, InconsistentTimesWidenTheSlackAndSayHowMuch) {
  // Same rates, times 10 s and 25 s: two components in series last at most twice the longer
  // one, so only a slack s with 2 x 10 (1 + s) >= 25 (1 - s), s >= 11 %, makes them consistent.
  std::vector<Point> pts(2);
  for (auto& p : pts) p.cpu_ghz = 2.0, p.mem_gbs = 20.0;
  pts[0].time_s = 10.0, pts[1].time_s = 25.0;
  const OverlapBounds b = overlap_bounds({Term::cpu, Term::mem}, pts, 0.02);
  ASSERT_TRUE(b.feasible);
  EXPECT_NEAR(b.slack, 0.16, 1e-12);  // 2 % doubled until feasible
  pts[1].time_s = 100.0;
  EXPECT_FALSE(overlap_bounds({Term::cpu, Term::mem}, pts, 0.02).feasible);
}

TEST(OverlapBounds, TimeRangeAtNewConfigurationContainsTruth) {
  const Truth truth{24.0, 600.0, 3.0, 0.0, 0.3};
  const auto pts = testing::generate_points(truth, testing::acceptance_grid(), {0.01, 2, 1});
  for (testing::Config c : {testing::Config{2.0, 25}, testing::Config{3.5, 80}}) {
    const auto r = overlap_time_range(kTerms, pts, kDefaultBoundsSlack, c.cpu_ghz, c.mem_gbs, std::nullopt);
    ASSERT_TRUE(r.has_value());
    EXPECT_LE(r->lo, testing::true_time(truth, c));
    EXPECT_GE(r->hi, testing::true_time(truth, c));
  }
}

// A machine at least as fast in every rate cannot be slower than a measured run (and one at most
// as fast cannot be quicker), whatever overlap the LP would allow between configurations.
TEST(OverlapBounds, TimeRangeIsMonotoneInTheRates) {
  const Truth truth{24.0, 600.0, 3.0, 0.0, 0.3};
  const auto pts = testing::generate_points(truth, testing::acceptance_grid(), {0.01, 2, 1});
  double fastest_measured = 1e300, slowest_measured = 0;
  for (const auto& p : pts) {
    fastest_measured = std::min(fastest_measured, p.time_s);
    slowest_measured = std::max(slowest_measured, p.time_s);
  }
  // Faster than every grid point (3.0 GHz, 60 GB/s at most): capped by the quickest run.
  const auto fast = overlap_time_range(kTerms, pts, kDefaultBoundsSlack, 3.5, 80, std::nullopt);
  ASSERT_TRUE(fast.has_value());
  EXPECT_LE(fast->hi, fastest_measured * (1 + kDefaultBoundsSlack) + 1e-9);
  EXPECT_GE(fast->hi, testing::true_time(truth, {3.5, 80}));
  // Slower than every grid point (1.2 GHz, 15 GB/s at least): floored by the slowest run.
  const auto slow = overlap_time_range(kTerms, pts, kDefaultBoundsSlack, 1.0, 10, std::nullopt);
  ASSERT_TRUE(slow.has_value());
  EXPECT_GE(slow->lo, slowest_measured * (1 - kDefaultBoundsSlack) - 1e-9);
  EXPECT_LE(slow->lo, testing::true_time(truth, {1.0, 10}));
}

// Regression (QA): a time of 1e300 made GLPK's scaling fail, and GLPK then called abort().
// The dataset now refuses such times, but a GLPK failure must still only cost the bounds.
TEST(OverlapBounds, GlpkFailureIsReportedInsteadOfAborting) {
  const Truth truth{24.0, 600.0, 3.0};
  auto pts = testing::generate_points(truth, testing::acceptance_grid(), {0.01, 1, 1});
  auto huge = pts;
  huge[2].time_s = 1e300;
  const OverlapBounds b = overlap_bounds(kTerms, huge);
  EXPECT_FALSE(b.feasible);
  EXPECT_NE(b.unavailable.find("glp_"), std::string::npos) << b.unavailable;
  EXPECT_THROW(overlap_time_range(kTerms, huge, 0.02, 2.0, 50.0, std::nullopt), GlpkError);
  // GLPK works again afterwards (its environment was freed and recreated).
  EXPECT_TRUE(overlap_bounds(kTerms, pts).feasible);
  EXPECT_TRUE(overlap_time_range(kTerms, pts, 0.02, 2.0, 50.0, std::nullopt).has_value());
}

}  // namespace
}  // namespace hpcsens::model
