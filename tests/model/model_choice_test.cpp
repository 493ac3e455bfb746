// Model choice on out-of-sample evidence (issue 30 item 1): a form wins by leave-one-out beyond one
// standard error of the paired difference, and is asked to show only what its form adds to its
// competitor. Overlap without fixed time was rejected because "io = 0 is not significantly above
// zero" although it predicted left-out configurations several times better.
#include <gtest/gtest.h>

#include <cmath>

#include "model/analysis.h"
#include "tests/model/ground_truth.h"
#include "tests/model/validation_data.h"

namespace hpcsens::model {
namespace {

const CandidateScore* candidate(const ModelReport& m, const std::string& name) {
  for (const auto& c : m.candidates)
    if (c.model == name) return &c;
  return nullptr;
}

// A roofline, T = max(W_cpu / f, W_mem / m), no fixed time: both regimes inside the grid.
TEST(ModelChoice, RooflineWithoutFixedTimePicksOverlap) {
  const auto cfg = testing::grid({1.2, 1.6, 2.0, 2.4, 2.8, 3.2}, {20, 30, 45, 60, 75});
  for (unsigned seed = 1; seed <= 6; ++seed) {
    testing::NoiseSpec n;
    n.rel_sigma = 0.01, n.seed = seed;
    Dataset d;
    d.points = testing::generate_points({24.0, 500.0, 0.0, 0.0, 1.0}, cfg, n);
    const ModelReport m = analyze(d, {});
    EXPECT_EQ(m.spec.name(), "overlap") << "seed " << seed << ": " << m.selection_reason;
    const CandidateScore* o = candidate(m, "overlap");
    ASSERT_NE(o, nullptr);
    const CandidateScore* cm = candidate(m, "cpu+mem");
    ASSERT_NE(cm, nullptr);
    EXPECT_LT(o->loocv_mape, 0.5 * cm->loocv_mape) << "seed " << seed;
  }
}

// The data's own elasticity at the baseline (highest core and memory clock): the backward finite
// difference of ln T along one clock, the other held at its top setting.
double data_elasticity(const std::vector<Point>& pts, const Point& b, Rate r) {
  const Point* below = nullptr;
  for (const auto& p : pts) {
    const bool same_other = r == Rate::cpu_ghz ? p.mem_gbs == b.mem_gbs : p.cpu_ghz == b.cpu_ghz;
    const double v = rate_value(r, p);
    if (same_other && v < rate_value(r, b) && (!below || v > rate_value(r, *below))) below = &p;
  }
  if (!below) return NAN;
  return std::log(b.time_s / below->time_s) / std::log(rate_value(r, b) / rate_value(r, *below));
}

// The published 6 x 6 GPU grids whose additive fit named the wrong resource (backprop's core
// elasticity -0.55 where the data say -0.91, transpose's memory -0.75 where they say -0.98): the
// chosen form's elasticities agree with the data's finite differences within their intervals.
TEST(ModelChoice, PublishedGpuGridsPickAFormThatAgreesWithTheData) {
  for (const std::string k : {"backprop", "convolutionTexture", "transpose"}) {
    const auto file = testing::published_file("gpu-and-mpi-sweeps", "gpu_grid_hkbu-2017_" + k + ".csv");
    REQUIRE_PUBLISHED(file);
    const ModelReport m = analyze(load_dataset({file}), {});
    EXPECT_EQ(m.spec.name(), "overlap") << k << ": " << m.selection_reason;
    const Point& b = m.points[m.baseline];
    EXPECT_EQ(b.cpu_ghz, 1.0) << k;
    EXPECT_EQ(b.mem_gbs, 100.0) << k;
    ASSERT_EQ(m.elasticities.size(), 2u) << k;
    for (const auto& e : m.elasticities) {
      const double fd = data_elasticity(m.points, b, e.rate);
      EXPECT_GE(fd, e.low) << k << " " << rate_name(e.rate) << ": model " << e.elasticity << " [" << e.low << ", "
                           << e.high << "], data " << fd;
      EXPECT_LE(fd, e.high) << k << " " << rate_name(e.rate) << ": model " << e.elasticity << " [" << e.low << ", "
                            << e.high << "], data " << fd;
    }
  }
}

// The rule asks a form only for what it adds to its competitor: overlap's w, not its optional
// constant time, and io of cpu+mem+io.
TEST(ModelChoice, OverlapIsNotAskedForFixedTime) {
  const auto cfg = testing::grid({1.2, 1.6, 2.0, 2.4, 2.8, 3.2}, {20, 30, 45, 60, 75});
  testing::NoiseSpec n;
  n.rel_sigma = 0.01, n.seed = 3;
  Dataset d;
  d.points = testing::generate_points({24.0, 500.0, 0.0, 0.0, 1.0}, cfg, n);
  const ModelReport m = analyze(d, {});
  const CandidateScore* o = candidate(m, "overlap");
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->extra.size(), 1u);
  EXPECT_EQ(o->extra[0].name, "overlap w");
  const CandidateScore* io = candidate(m, "cpu+mem+io");
  ASSERT_NE(io, nullptr);
  ASSERT_EQ(io->extra.size(), 1u);
  EXPECT_EQ(io->extra[0].name, "io");
}

}  // namespace
}  // namespace hpcsens::model
