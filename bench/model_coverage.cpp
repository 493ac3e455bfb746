// Coverage of the 95 % elasticity intervals on misspecified truths (prints, not a timed test):
// 4 kinds of model error x 60 random truths each (240 truths, 480 elasticities), fitted with --model auto on the 4 x 3 acceptance
// design with 1 % time noise and 0.5 % measured-rate jitter. For each varied rate, is the truth's
// local elasticity d ln T / d ln R at the baseline inside the interval? Both methods are printed:
// the jackknife over configurations (what the model reports) and the covariance of a model
// assumed right. Truths come from the pure-function generator in tests/model/ground_truth.h.
#include <fmt/core.h>

#include <random>

#include "model/analysis.h"
#include "tests/model/ground_truth.h"

namespace hm = hpcsens::model;

namespace {

struct Tally {
  int n = 0, jk = 0, cov = 0;
  double jk_width = 0, cov_width = 0;
};

hm::testing::MisspecTruth draw(int kind, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  hm::testing::MisspecTruth t;
  t.w_cpu = 10 + 30 * u(rng);
  t.w_mem = 100 + 500 * u(rng);
  t.t_io = 3 * u(rng);
  if (kind == 0) t.w_curve = (0.1 + 0.4 * u(rng)) * t.w_cpu;  // cache in the core clock domain
  if (kind == 1) t.knee_gbs = 40 + 40 * u(rng);               // bandwidth knee near the top of 15-60 GB/s
  if (kind == 2) t.overlap = 0.2 + 0.6 * u(rng);              // partial overlap
  if (kind == 3) t.w_curve = 0.1 * t.w_cpu, t.overlap = 0.2;  // mild mix, plus the jitter all kinds have
  return t;
}

void count(Tally& tl, const hm::Elasticity& e, double truth) {
  ++tl.n;
  tl.jk += e.low <= truth && truth <= e.high;
  const double cl = std::isfinite(e.cov_low) ? e.cov_low : e.low, ch = std::isfinite(e.cov_high) ? e.cov_high : e.high;
  tl.cov += cl <= truth && truth <= ch;
  tl.jk_width += e.high - e.low, tl.cov_width += ch - cl;
}

}  // namespace

int main() {
  const char* kinds[] = {"curvature (cache in the core clock domain)", "bandwidth knee", "partial overlap",
                         "mild curvature + overlap", "none (the model is right; not in 'all')"};
  const auto cfg = hm::testing::acceptance_grid();
  std::mt19937 rng(2026);
  Tally all;
  fmt::print("coverage of 95 % elasticity intervals, 60 truths per kind, 12 configurations, 1 % noise, 0.5 % rate "
             "jitter\n");
  fmt::print("{:<44} {:>6} {:>16} {:>16} {:>12} {:>12}\n", "misspecification", "n", "jackknife cover", "covariance cover",
             "jk width", "cov width");
  for (int kind = 0; kind < 5; ++kind) {
    Tally tl;
    for (int i = 0; i < 60; ++i) {
      const auto truth = draw(kind, rng);
      hm::Dataset d;
      d.points = hm::testing::misspec_points(truth, cfg, 0.01, 0.005, 100 * kind + i);
      hm::ModelReport m;
      try {
        m = hm::analyze(d, {});
      } catch (const std::exception& e) {
        fmt::print("  truth {} of kind {}: {}\n", i, kind, e.what());
        continue;
      }
      // The truth at the baseline's nominal rates (the measured ones carry the jitter).
      const auto& c = cfg[m.baseline];
      for (const auto& e : m.elasticities) count(tl, e, hm::testing::true_elasticity(truth, e.rate, c.cpu_ghz, c.mem_gbs));
    }
    fmt::print("{:<44} {:>6} {:>15.1f}% {:>15.1f}% {:>12.4f} {:>12.4f}\n", kinds[kind], tl.n, 100.0 * tl.jk / tl.n,
               100.0 * tl.cov / tl.n, tl.jk_width / tl.n, tl.cov_width / tl.n);
    if (kind == 4) break;
    all.n += tl.n, all.jk += tl.jk, all.cov += tl.cov, all.jk_width += tl.jk_width, all.cov_width += tl.cov_width;
  }
  fmt::print("{:<44} {:>6} {:>15.1f}% {:>15.1f}% {:>12.4f} {:>12.4f}\n", "all misspecified", all.n, 100.0 * all.jk / all.n,
             100.0 * all.cov / all.n, all.jk_width / all.n, all.cov_width / all.n);
  fmt::print("target: the jackknife (reported) interval covers the truth in at least 90 % of cases\n");
  return 0;
}
