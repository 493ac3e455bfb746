// The fitter against data generated from a known model: recovery of W, held-out prediction,
// slope, uncertainty calibration, robust loss, automatic model choice.
#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.h"
#include "model/analysis.h"
#include "model/validation.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

using testing::acceptance_grid;
using testing::Config;
using testing::Truth;

double rel(double got, double want) { return std::fabs(got - want) / want; }

Dataset dataset_of(const std::vector<Point>& pts) {
  Dataset d;
  d.points = pts;
  return d;
}

// Acceptance: 4 CPU x 3 memory rates, 1 % noise, each W within 3 %. Checked for ten noise
// seeds so a lucky draw cannot pass it.
TEST(FitRecovery, TwelveConfigsOnePercentNoiseEachWorkWithinThreePercent) {
  const Truth truth{24.0, 600.0, 0.0};
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const auto pts = testing::generate_points(truth, acceptance_grid(), {0.01, seed, 1});
    ASSERT_EQ(pts.size(), 12u);
    const FitResult f = fit_model(parse_model_spec("cpu+mem"), pts, times_of(pts), {});
    ASSERT_TRUE(f.converged) << f.message;
    EXPECT_LT(rel(f.params[0], truth.w_cpu), 0.03) << "seed " << seed << " W_cpu " << f.params[0];
    EXPECT_LT(rel(f.params[1], truth.w_mem), 0.03) << "seed " << seed << " W_mem " << f.params[1];
  }
}

// Acceptance: held-out configurations predicted with MAPE < 2 %, slope within 1 % of 1.
TEST(FitRecovery, HeldOutPredictionAndSlope) {
  const Truth truth{24.0, 600.0, 3.0};
  const auto train = testing::generate_points(truth, acceptance_grid(), {0.01, 3, 1});
  const auto held = testing::generate_points(truth, testing::grid({1.5, 2.1, 2.7}, {25, 45}), {0.01, 99, 1});
  Dataset d = dataset_of(train);
  AnalyzeOptions opts;
  opts.model = "cpu+mem+io";
  const ModelReport rep = analyze(d, opts);
  EXPECT_NEAR(rep.diag.slope, 1.0, 0.01);
  EXPECT_LT(rep.diag.mape, 0.02);
  EXPECT_GT(rep.diag.r2, 0.99);
  double mape = 0;
  for (const auto& p : held) mape += rel(model_time(rep.spec, rep.params, p), p.time_s) / held.size();
  EXPECT_LT(mape, 0.02);
  EXPECT_LT(rep.diag.loocv_mape, 0.03);
  EXPECT_EQ(rep.stderr_method, "covariance");
}

// With an io term the same design determines W less tightly; the reported standard errors
// must say so: the truth lies within 3 stderr for (almost) every seed, and errors are not tiny.
TEST(FitRecovery, StandardErrorsAreCalibratedWithIoTerm) {
  const Truth truth{24.0, 600.0, 4.0};
  int outside = 0, total = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto pts = testing::generate_points(truth, acceptance_grid(), {0.01, seed, 1});
    AnalyzeOptions opts;
    opts.model = "cpu+mem+io";
    const ModelReport rep = analyze(dataset_of(pts), opts);
    const double want[3] = {truth.w_cpu, truth.w_mem, truth.t_io};
    for (int k = 0; k < 3; ++k) {
      ++total;
      ASSERT_GT(rep.terms[k].stderr_, 0);
      outside += std::fabs(rep.terms[k].work - want[k]) > 3 * rep.terms[k].stderr_;
    }
  }
  EXPECT_LE(outside, 2) << "of " << total;
}

TEST(FitRecovery, NoiseFreeDataIsRecoveredExactly) {
  const Truth truth{30.0, 200.0, 1.5};
  const auto pts = testing::generate_points(truth, acceptance_grid(), {0.0, 1, 1});
  const FitResult f = fit_model(parse_model_spec("cpu+mem+io"), pts, times_of(pts), {});
  EXPECT_NEAR(f.params[0], 30.0, 1e-6);
  EXPECT_NEAR(f.params[1], 200.0, 1e-5);
  EXPECT_NEAR(f.params[2], 1.5, 1e-7);
}

TEST(FitRecovery, WorkStaysNonNegative) {
  // Times that fall with slower memory would need a negative memory work: the bound holds it at 0.
  std::vector<Point> pts;
  for (double c : {1.0, 2.0, 3.0})
    for (double m : {10.0, 20.0, 40.0}) {
      Point p;
      p.cpu_ghz = c, p.mem_gbs = m;
      p.time_s = 20.0 / c - 20.0 / m + 5.0;
      pts.push_back(p);
    }
  const FitResult f = fit_model(parse_model_spec("cpu+mem+io"), pts, times_of(pts), {});
  ASSERT_TRUE(f.converged);
  EXPECT_GE(f.params[1], 0.0);
  EXPECT_NEAR(f.params[1], 0.0, 1e-6);
}

TEST(FitRecovery, RobustLossHandlesAnOutlierRun) {
  const Truth truth{24.0, 600.0, 0.0};
  // One run disturbed by another job.
  const auto pts = testing::generate_points(truth, acceptance_grid(), {0.01, 5, 1, {{0, 2.0}}});
  const auto t = times_of(pts);
  const ModelSpec spec = parse_model_spec("cpu+mem");
  const FitResult plain = fit_model(spec, pts, t, {});
  const double plain_err = std::max(rel(plain.params[0], truth.w_cpu), rel(plain.params[1], truth.w_mem));
  EXPECT_GT(plain_err, 0.05) << "the outlier should hurt the plain fit, or the test shows nothing";
  for (Robust r : {Robust::huber, Robust::cauchy}) {
    FitOptions o;
    o.robust = r;
    const FitResult f = fit_model(spec, pts, t, o);
    ASSERT_TRUE(f.converged);
    const double err = std::max(rel(f.params[0], truth.w_cpu), rel(f.params[1], truth.w_mem));
    EXPECT_LT(err, plain_err / 2) << robust_name(r);
    if (r == Robust::cauchy) {
      EXPECT_LT(err, 0.04);
    }
  }
}

TEST(FitRecovery, AutoPicksIoModelWhenThereIsFixedTime) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const auto pts = testing::generate_points(Truth{24.0, 600.0, 8.0}, acceptance_grid(), {0.01, seed, 1});
    const ModelReport rep = analyze(dataset_of(pts), {});
    EXPECT_EQ(rep.spec.name(), "cpu+mem+io") << "seed " << seed << ": " << rep.selection_reason;
    EXPECT_NE(rep.selection_reason.find("LOOCV"), std::string::npos);
    EXPECT_GE(rep.candidates.size(), 3u);
  }
}

// Without fixed time the extra io term is noise: the parsimony rule (LOOCV margin and a
// significance test on the extra term) keeps cpu+mem. At 2 standard errors a false pick
// happens in about 1 of 20 noise draws, so the test counts over 20 seeds.
TEST(FitRecovery, AutoKeepsCpuMemWhenThereIsNoFixedTime) {
  int kept = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto pts = testing::generate_points(Truth{24.0, 600.0, 0.0}, acceptance_grid(), {0.01, seed, 1});
    kept += analyze(dataset_of(pts), {}).spec.name() == "cpu+mem";
  }
  EXPECT_GE(kept, 18);
}

TEST(FitRecovery, OverlapVariantEstimatesTheOverlapFraction) {
  const Truth truth{24.0, 600.0, 2.0, 0.0, 0.3};
  const auto pts = testing::generate_points(truth, acceptance_grid(), {0.002, 4, 1});
  AnalyzeOptions opts;
  opts.model = "overlap";
  const ModelReport rep = analyze(dataset_of(pts), opts);
  ASSERT_TRUE(rep.overlap_w.has_value());
  EXPECT_NEAR(*rep.overlap_w, 0.3, 0.05);
  EXPECT_LT(rep.diag.mape, 0.005);
  // The no-overlap model fits the same data visibly worse.
  opts.model = "cpu+mem+io";
  EXPECT_GT(analyze(dataset_of(pts), opts).diag.mape, 2 * rep.diag.mape);
}

TEST(FitRecovery, LatencyTermIsRecovered) {
  Truth truth{24.0, 300.0, 0.0, 0.05};
  std::vector<Config> cfg;
  int i = 0;
  for (auto c : acceptance_grid()) {
    c.lat_ns = 80 + 25 * ((i * 7) % 5);  // latency varied independently of bandwidth
    cfg.push_back(c);
    ++i;
  }
  const auto pts = testing::generate_points(truth, cfg, {0.002, 2, 1});
  const FitResult f = fit_model(parse_model_spec("cpu+mem+lat"), pts, times_of(pts), {});
  EXPECT_LT(rel(f.params[2], truth.w_lat), 0.05) << f.params[2];
}

TEST(FitRecovery, MedianOfRepetitionsAbsorbsAnOutlierRun) {
  const Truth truth{24.0, 600.0, 0.0};
  const auto pts = testing::generate_points(truth, acceptance_grid(), {0.01, 5, 3, {{0, 2.0}, {7, 1.8}}});
  ASSERT_EQ(pts[0].reps, 3);
  EXPECT_GT(pts[0].max_s, 1.5 * pts[0].time_s);  // the spread keeps the outlier visible
  const FitResult f = fit_model(parse_model_spec("cpu+mem"), pts, times_of(pts), {});
  EXPECT_LT(rel(f.params[0], truth.w_cpu), 0.03);
  EXPECT_LT(rel(f.params[1], truth.w_mem), 0.03);
}

TEST(FitRecovery, BootstrapStandardErrorsWhenCovarianceIsRankDeficient) {
  // No memory work: in the overlap model w then has no effect on any time, so the Jacobian
  // loses rank and ceres::Covariance refuses; the bootstrap still gives finite errors.
  const auto pts = testing::generate_points(Truth{24.0, 0.0, 2.0}, acceptance_grid(), {0.01, 3, 1});
  AnalyzeOptions opts;
  opts.model = "overlap";
  const ModelReport rep = analyze(dataset_of(pts), opts);
  EXPECT_EQ(rep.stderr_method, "bootstrap");
  for (const auto& t : rep.terms) EXPECT_TRUE(std::isfinite(t.stderr_));
  EXPECT_GT(rep.terms[0].stderr_, 0);
  EXPECT_NEAR(rep.terms[0].work, 24.0, 0.05 * 24.0);
}

TEST(FitRecovery, ResidualTrendIsFlaggedWhenTheModelMissesARateDependence) {
  // Time that scales with the CPU rate squared cannot be described by W/R: the residuals
  // trend with cpu_ghz and the fit says so.
  auto pts = testing::generate_points(Truth{24.0, 600.0, 0.0}, acceptance_grid(), {0.0, 1, 1});
  for (auto& p : pts) p.time_s = 60.0 / (p.cpu_ghz * p.cpu_ghz) + 600.0 / p.mem_gbs;
  AnalyzeOptions opts;
  opts.model = "cpu+mem";
  const ModelReport rep = analyze(dataset_of(pts), opts);
  ASSERT_EQ(rep.diag.trends.size(), 2u);
  EXPECT_TRUE(rep.diag.trends[0].significant);
  bool warned = false;
  for (const auto& w : rep.warnings) warned = warned || w.find("residuals trend with cpu_ghz") != std::string::npos;
  EXPECT_TRUE(warned);
  // Data the model does describe raises no trend warning.
  const auto clean = testing::generate_points(Truth{24.0, 600.0, 0.0}, acceptance_grid(), {0.01, 1, 1});
  for (const auto& w : analyze(dataset_of(clean), opts).warnings)
    EXPECT_EQ(w.find("residuals trend"), std::string::npos) << w;
}

TEST(FitRecovery, LoocvErrorsAreLargerThanInSampleErrors) {
  const auto pts = testing::generate_points(Truth{24.0, 600.0, 3.0}, acceptance_grid(), {0.01, 6, 1});
  const ModelSpec spec = parse_model_spec("cpu+mem+io");
  const auto loo = loocv_errors(spec, pts, times_of(pts), {});
  AnalyzeOptions opts;
  opts.model = "cpu+mem+io";
  const ModelReport rep = analyze(dataset_of(pts), opts);
  EXPECT_GT(mean_abs(loo), rep.diag.mape);
}

}  // namespace
}  // namespace hpcsens::model
