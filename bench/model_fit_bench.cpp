// Speed of the model fitter (prints figures; targets: one fit with its jackknife intervals < 5 ms,
// per-rank fits for 10,000 ranks x 24 configurations < 1 s, `hpcsens fit` on 2,000 distinct
// configurations < 2 s and 20,000 < 30 s). Data from the test ground-truth generator.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "model/analysis.h"
#include "model/jackknife.h"
#include "model/per_rank.h"
#include "model/validation.h"
#include "tests/model/ground_truth.h"

namespace hm = hpcsens::model;

namespace {

std::vector<hm::Point> twelve_points() {
  return hm::testing::generate_points({24.0, 600.0, 4.0}, hm::testing::acceptance_grid(), {0.01, 1, 1});
}

// One Ceres fit of cpu+mem+io to 12 configurations.
void BM_SingleFit(benchmark::State& state) {
  const auto pts = twelve_points();
  const auto t = hm::times_of(pts);
  const auto spec = hm::parse_model_spec("cpu+mem+io");
  for (auto _ : state) benchmark::DoNotOptimize(hm::fit_model(spec, pts, t, {}));
}
BENCHMARK(BM_SingleFit)->Unit(benchmark::kMillisecond);

// One fit with the resampled intervals: the fit, its 12 leave-one-out refits, the jackknife.
void BM_SingleFitWithJackknife(benchmark::State& state) {
  const auto pts = twelve_points();
  const auto t = hm::times_of(pts);
  const auto spec = hm::parse_model_spec("cpu+mem+io");
  for (auto _ : state) {
    const auto f = hm::fit_model(spec, pts, t, {});
    const auto loo = hm::leave_one_out(spec, pts, t, {}, f.params);
    benchmark::DoNotOptimize(hm::jackknife_covariance(loo.params));
  }
}
BENCHMARK(BM_SingleFitWithJackknife)->Unit(benchmark::kMillisecond);

// `hpcsens fit` (--model auto, everything analyze does) on N distinct configurations: random
// clocks in 1-3 GHz and bandwidths in 20-120 GB/s, 1 % noise.
void BM_FitDistinctConfigs(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> cpu(1.0, 3.0), mem(20.0, 120.0);
  std::vector<hm::testing::Config> cfg;
  for (int i = 0; i < n; ++i) cfg.push_back({cpu(rng), mem(rng)});
  hm::Dataset d;
  d.points = hm::testing::generate_points({24.0, 600.0, 2.0}, cfg, {0.01, 3, 1});
  for (auto _ : state) benchmark::DoNotOptimize(hm::analyze(d, {}));
  state.counters["configs"] = n;
}
BENCHMARK(BM_FitDistinctConfigs)->Arg(100)->Arg(2000)->Arg(20000)->Iterations(1)->Unit(benchmark::kSecond);

// Everything `hpcsens fit --model auto` does: candidates, LOOCV, covariance, GLPK bounds.
void BM_FullAnalysisAuto(benchmark::State& state) {
  hm::Dataset d;
  d.points = twelve_points();
  for (auto _ : state) benchmark::DoNotOptimize(hm::analyze(d, {}));
}
BENCHMARK(BM_FullAnalysisAuto)->Unit(benchmark::kMillisecond);

// Per-rank fits: 10,000 ranks x 24 configurations (6 CPU x 4 memory rates).
void BM_PerRank10000x24(benchmark::State& state) {
  const auto cfg = hm::testing::grid({1.0, 1.4, 1.8, 2.2, 2.6, 3.0}, {10, 20, 40, 60});
  const auto pts = hm::testing::generate_points({24.0, 600.0, 2.0}, cfg, {0.0, 1, 1});
  const int nranks = static_cast<int>(state.range(0));
  std::vector<int> ranks;
  std::vector<std::vector<double>> times;
  for (int r = 0; r < nranks; ++r) {
    ranks.push_back(r);
    const hm::testing::Truth t{20.0 + (r % 7), 500.0 + 10 * (r % 11), 1.0 + 0.1 * (r % 5)};
    times.push_back(hm::times_of(hm::testing::generate_points(t, cfg, {0.01, static_cast<unsigned>(r), 1})));
  }
  const auto spec = hm::parse_model_spec("cpu+mem+io");
  const size_t base = hm::pick_baseline(pts);
  for (auto _ : state) {
    auto shares = hm::fit_per_rank(spec, pts, ranks, times, base, {});
    benchmark::DoNotOptimize(hm::group_ranks(shares));
  }
  state.counters["ranks"] = nranks;
  state.counters["fits_per_s"] = benchmark::Counter(nranks, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PerRank10000x24)->Arg(10000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace

BENCHMARK_MAIN();
