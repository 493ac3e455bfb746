// The fit reaches the global optimum of its objective: every fit_model answer is checked against
// an independent multi-start search written here (random starts, then a stochastic coordinate
// descent with a shrinking step on the true objective, nothing shared with the fitter but
// model_time). Issue 30: GPU histogram's overlap fit stopped at w 0.78 / MAPE 2.4 % where w 0.94 /
// MAPE 1.4 % was available.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "model/analysis.h"
#include "model/dataset.h"
#include "model/fitter.h"
#include "tests/model/ground_truth.h"
#include "tests/model/validation_data.h"

namespace hpcsens::model {
namespace {

double objective(const ModelSpec& spec, const std::vector<Point>& pts, const FitOptions& o,
                 const std::vector<double>& p) {
  return robust_objective(spec, pts, times_of(pts), o, p);
}

// Independent search: `starts` random points scaled from the data (each work explaining a random
// share of the median time, w uniform), each improved by random single-coordinate moves that are
// kept when they lower the objective; the step halves every `steps / 10` moves.
double independent_best(const ModelSpec& spec, const std::vector<Point>& pts, const FitOptions& o, int starts = 40,
                        int steps = 8000, unsigned seed = 11) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const size_t nt = spec.terms.size();
  std::vector<double> scale(nt);
  for (size_t k = 0; k < nt; ++k) {
    std::vector<double> r;
    for (const auto& p : pts) r.push_back(p.time_s / basis(spec.terms[k], p));
    std::sort(r.begin(), r.end());
    scale[k] = r[r.size() / 2];
  }
  double best = INFINITY;
  for (int s = 0; s < starts; ++s) {
    std::vector<double> p(spec.num_params());
    for (size_t k = 0; k < nt; ++k) p[k] = scale[k] * u(rng);
    if (spec.overlap) p[nt] = u(rng);
    double cur = objective(spec, pts, o, p), step = 0.3;
    for (int i = 0; i < steps; ++i) {
      const size_t k = i % p.size();
      std::vector<double> q = p;
      const double d = std::normal_distribution<double>(0, step)(rng);
      if (spec.overlap && k == nt)
        q[k] = std::clamp(q[k] + d, 0.0, 1.0);
      else
        q[k] = std::max(0.0, q[k] + d * scale[k]);
      if (u(rng) < 0.05) q[k] = spec.overlap && k == nt ? std::round(q[k]) : 0.0;  // try the bounds
      const double v = objective(spec, pts, o, q);
      if (v < cur) cur = v, p = q;
      if ((i + 1) % (steps / 10) == 0) step *= 0.5;
    }
    best = std::min(best, cur);
  }
  return best;
}

void expect_global(const ModelSpec& spec, const std::vector<Point>& pts, const FitOptions& o, const std::string& what) {
  const FitResult f = fit_model(spec, pts, times_of(pts), o);
  ASSERT_TRUE(f.converged) << what << ": " << f.message;
  const double ours = objective(spec, pts, o, f.params), other = independent_best(spec, pts, o);
  EXPECT_LE(ours, other * 1.001 + 1e-15) << what << ": fit objective " << ours << ", independent search " << other;
}

std::vector<Point> gpu_grid(const std::string& kernel) {
  return load_dataset({testing::published_file("gpu-and-mpi-sweeps", "gpu_grid_hkbu-2017_" + kernel + ".csv")})
      .points;
}

TEST(FitOptimum, OverlapOnThePublishedGpuGridsIsTheGlobalLeastSquaresOptimum) {
  REQUIRE_PUBLISHED(testing::published_file("gpu-and-mpi-sweeps", "gpu_grid_hkbu-2017_histogram.csv"));
  for (const std::string k : {"histogram", "backprop", "transpose", "convolutionTexture", "BlackScholes"})
    expect_global(parse_model_spec("overlap"), gpu_grid(k), {}, k);
}

// The figure the issue gives: w 0.94 and MAPE 1.4 % are available on GPU histogram.
TEST(FitOptimum, GpuHistogramReachesWOf094) {
  const auto file = testing::published_file("gpu-and-mpi-sweeps", "gpu_grid_hkbu-2017_histogram.csv");
  REQUIRE_PUBLISHED(file);
  const auto pts = gpu_grid("histogram");
  const ModelSpec spec = parse_model_spec("overlap");
  const FitResult f = fit_model(spec, pts, times_of(pts), {});
  EXPECT_NEAR(f.params.back(), 0.94, 0.01);
  double mape = 0;
  for (const auto& p : pts) mape += std::fabs(model_time(spec, f.params, p) / p.time_s - 1) / pts.size();
  EXPECT_LT(mape, 0.015);
}

// Truths with partial overlap, with and without fixed time, and rough noise.
TEST(FitOptimum, OverlapOnSyntheticGridsIsTheGlobalOptimum) {
  const auto configs = testing::grid({1.2, 1.6, 2.0, 2.4, 2.8}, {20, 35, 50, 70});
  unsigned seed = 1;
  for (double w : {0.0, 0.4, 0.8, 1.0})
    for (double io : {0.0, 3.0}) {
      const testing::Truth t{24.0, 500.0, io, 0.0, w};
      const auto pts = testing::generate_points(t, configs, {0.02, seed++, 1});
      expect_global(parse_model_spec("overlap"), pts, {}, "w " + std::to_string(w) + " io " + std::to_string(io));
    }
}

// Robust losses are non-convex (Cauchy) or combined with the overlap kink: still the best
// objective the independent search finds, with a disturbed run in the data.
TEST(FitOptimum, RobustFitsAreTheGlobalOptimum) {
  const auto configs = testing::grid({1.2, 1.8, 2.4, 3.0}, {20, 40, 60});
  testing::NoiseSpec noise{0.01, 5, 1, {{3, 1.4}, {7, 0.75}}};
  const auto pts = testing::generate_points({24.0, 500.0, 2.0, 0.0, 0.6}, configs, noise);
  for (Robust r : {Robust::huber, Robust::cauchy}) {
    FitOptions o;
    o.robust = r;
    for (const std::string m : {"cpu+mem+io", "overlap"}) expect_global(parse_model_spec(m), pts, o, m + " " + robust_name(r));
  }
}

}  // namespace
}  // namespace hpcsens::model
