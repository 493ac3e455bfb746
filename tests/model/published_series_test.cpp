// Published core-clock sweeps of real applications (../shared/validation-data/project-published/
// README.md gives each one's source and how it was transcribed; the tests skip, naming the path,
// only when that folder is absent). Each is fitted by analyze() and checked against an
// independent fit computed here: the CSV read line by line, the median of each clock's runs,
// and the closed-form solution of the normal equations of the same objective the product states
// (relative residuals, fixed >= 0), so the test does not reuse the product's loader or fitter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/dataset.h"
#include "tests/model/published_series.h"

namespace hpcsens::model {
namespace {

using published::CpuFixed;
using published::fixture;
using published::read_medians;
using published::weighted_cpu_fixed;

struct Case {
  const char* file;
  std::size_t clocks;
};

class PublishedSeries : public ::testing::TestWithParam<Case> {};

// The fitted terms equal the independent least-squares fit, and the one-rate model is chosen.
TEST_P(PublishedSeries, FitsCpuPlusFixedExactlyAsTheNormalEquationsDo) {
  const Case c = GetParam();
  REQUIRE_PUBLISHED(fixture(c.file));
  const auto medians = read_medians(fixture(c.file));
  ASSERT_EQ(medians.size(), c.clocks);
  const CpuFixed direct = weighted_cpu_fixed(medians);
  const ModelReport m = analyze(load_dataset({fixture(c.file)}), {});
  ASSERT_EQ(m.spec.name(), "cpu+fixed");
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_NEAR(m.params[0], direct.w_cpu, 1e-4 * direct.w_cpu);
  const double t_top = medians.rbegin()->second;
  EXPECT_NEAR(m.params[1], direct.fixed, 1e-4 * t_top);
  // The in-sample error is the one of the direct fit (both minimise the same sum).
  double mape = 0;
  for (const auto& [f, t] : medians) mape += std::fabs((direct.w_cpu / f + direct.fixed) / t - 1) / medians.size();
  EXPECT_NEAR(m.diag.mape, mape, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PublishedSeries,
                         ::testing::Values(Case{"lulesh_s120_core_clock_sweep.csv", 15},
                                           Case{"community_detection_core_clock_sweep.csv", 6},
                                           Case{"lulesh_desktop_core_clock_sweep.csv", 9}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find("_core_clock"));
                         });

// LULESH on a 2-socket Xeon: 15 clocks, 5-20 runs each. A quarter of the run at 2.7 GHz does not
// shrink with the clock (memory-bound phases): fixed = 105 s of 414 s. The model describes the
// series within the run-to-run noise (spread up to 9 %, fit error 1.5 %), so the data supports `ok`.
TEST(PublishedVerdict, LuleshServerSeriesIsOkWithAQuarterFixed) {
  REQUIRE_PUBLISHED(fixture("lulesh_s120_core_clock_sweep.csv"));
  const ModelReport m = analyze(load_dataset({fixture("lulesh_s120_core_clock_sweep.csv")}), {});
  EXPECT_EQ(m.verdict.word, "ok") << (m.verdict.reasons.empty() ? "" : m.verdict.reasons.front());
  EXPECT_NEAR(m.params[1] / m.points[m.baseline].time_s, 0.25, 0.02);
  ASSERT_EQ(m.elasticities.size(), 1u);
  EXPECT_EQ(m.elasticities[0].rate, Rate::cpu_ghz);
}

// Community detection: 6 clocks, 5 runs each, mostly clock-bound (fixed about 10 % at 2.7 GHz),
// fit error 0.7 % against a run-to-run spread of about 9 %: `ok`.
TEST(PublishedVerdict, CommunityDetectionSeriesIsOkAndMostlyClockBound) {
  REQUIRE_PUBLISHED(fixture("community_detection_core_clock_sweep.csv"));
  const ModelReport m = analyze(load_dataset({fixture("community_detection_core_clock_sweep.csv")}), {});
  EXPECT_EQ(m.verdict.word, "ok") << (m.verdict.reasons.empty() ? "" : m.verdict.reasons.front());
  EXPECT_LT(m.params[1] / m.points[m.baseline].time_s, 0.15);
}

// LULESH on a desktop: one run per clock, so the run-to-run noise is unknown; every clock is
// described within 4 % (fit error 1.9 %, below the 5 % the verdict allows without repetitions) and
// the leave-one-out error (3.2 %) is what leaving one of 9 points out costs: `ok`. The points
// table still shows what a reader must see: the split rests on the one run at 1.197 GHz (the only
// clock below 2.26 GHz): without it the fit misses that run by 12 %.
TEST(PublishedVerdict, LuleshDesktopSeriesIsOkButItsSplitRestsOnTheLowestClock) {
  REQUIRE_PUBLISHED(fixture("lulesh_desktop_core_clock_sweep.csv"));
  const ModelReport m = analyze(load_dataset({fixture("lulesh_desktop_core_clock_sweep.csv")}), {});
  EXPECT_EQ(m.verdict.word, "ok") << (m.verdict.reasons.empty() ? "" : m.verdict.reasons.front());
  EXPECT_TRUE(std::isnan(m.noise));
  EXPECT_NEAR(m.diag.loocv_mape, 0.032, 0.002);
  ASSERT_EQ(m.points.front().cpu_ghz, 1.197);
  EXPECT_LT(m.loocv_err.front(), -0.10);
}

// LULESH's longest region ('Loop 2') on the same server: it speeds up MORE than the clock (time x
// clock falls from 281 to 255 Gcycles), which T = W/f + fixed with fixed >= 0 cannot follow: the
// fixed part sits at its bound 0, exactly as in the normal-equations fit (checked above).
TEST(PublishedVerdict, LuleshRegionThatOutpacesTheClockPinsFixedAtZero) {
  REQUIRE_PUBLISHED(fixture("lulesh_s120_loop2_core_clock_sweep.csv"));
  const ModelReport m = analyze(load_dataset({fixture("lulesh_s120_loop2_core_clock_sweep.csv")}), {});
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_EQ(m.params[1], 0.0);
  EXPECT_LT(m.points.back().time_s * m.points.back().cpu_ghz, 0.95 * m.points.front().time_s * m.points.front().cpu_ghz);
}

// The published LULESH region whose fixed part sits at its bound 0: the fitted work is the
// least-squares optimum with fixed = 0 (W = sum u / sum u^2, u = 1/(f T)), as for the other series.
TEST(PublishedSeriesAtABound, FitsTheNormalEquationsOptimumWithFixedAtZero) {
  const std::string file = "lulesh_s120_loop2_core_clock_sweep.csv";
  REQUIRE_PUBLISHED(fixture(file));
  const auto direct = weighted_cpu_fixed(read_medians(fixture(file)));
  ASSERT_EQ(direct.fixed, 0.0);
  const ModelReport m = analyze(load_dataset({fixture(file)}), {});
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_NEAR(m.params[0], direct.w_cpu, 1e-4 * direct.w_cpu);
  EXPECT_EQ(m.params[1], 0.0);
}


// The same region's verdict: the model misses in a systematic way (every clock below 1.7 GHz
// under-predicted, every one above 2.1 GHz over-predicted; observed against modelled time has slope
// 1.11), although each error is small. The data supports `caution`, not `ok`: the work and the
// sensitivity are a straight line through a curve (docs/user-guide.md shows this series).
TEST(PublishedVerdict, LuleshRegionThatOutpacesTheClockIsCaution) {
  REQUIRE_PUBLISHED(fixture("lulesh_s120_loop2_core_clock_sweep.csv"));
  const ModelReport m = analyze(load_dataset({fixture("lulesh_s120_loop2_core_clock_sweep.csv")}), {});
  EXPECT_EQ(m.verdict.word, "caution");
  bool systematic = false;
  for (const auto& r : m.verdict.reasons)
    systematic = systematic || r.find("slope") != std::string::npos || r.find("trend") != std::string::npos;
  EXPECT_TRUE(systematic) << ::testing::PrintToString(m.verdict.reasons);
  EXPECT_LT(m.diag.mape, 0.03);  // small errors: caution comes from their pattern, not their size
}

}  // namespace
}  // namespace hpcsens::model
