// Issue 16's acceptance cases, rebuilt from the published series (../shared/validation-data) plus the
// measured-rate jitter real sweeps carry: no memory sensitivity from a core-only sweep, no core
// sensitivity from an uncore/memory-only sweep, no `ok` for a fit with 2 degrees of freedom and a
// 10 % leave-one-out error, and a marked, widened prediction far outside the measured clocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/dataset.h"
#include "model/predict.h"
#include "tests/model/ground_truth.h"
#include "tests/model/published_series.h"

namespace hpcsens::model {
namespace {

using published::fixture;
using published::read_medians;
using published::read_runs;
using published::weighted_cpu_fixed;

// Deterministic standard normal draws (Box-Muller on mt19937_64: the same on every library).
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : rng_(seed) {}
  double operator()() {
    const double u1 = (double(rng_() >> 11) + 1.0) / 9007199254740993.0, u2 = double(rng_() >> 11) / 9007199254740992.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

 private:
  std::mt19937_64 rng_;
};

// The fixture's runs with every run's measured mem_gbs / cpu_ghz scattered by the given relative
// sigma, as a sweep that re-measures STREAM and the clock at every point records them.
Dataset with_jitter(const std::string& file, double mem_sigma, double cpu_sigma, std::uint64_t seed) {
  Normal z(seed);
  std::vector<Observation> obs;
  for (const auto& r : read_runs(fixture(file))) {
    Observation o;
    o.label = r.label;
    o.cpu_ghz = r.cpu_ghz * (1 + cpu_sigma * z());
    o.mem_gbs = r.mem_gbs * (1 + mem_sigma * z());
    o.time_s = r.time_s;
    o.group = r.label;  // one configuration per label, whatever its measured rates
    obs.push_back(o);
  }
  return assemble(obs);
}

bool states_sensitivity_to(const ModelReport& m, Rate r) {
  for (const auto& e : m.elasticities)
    if (e.rate == r) return true;
  return false;
}

// Fits the fixture with jittered measured rates under five seeds: the one-rate model of the
// varied rate, a sensitivity to it and none to the rate that only jittered.
void expect_one_rate(const std::string& file, double mem_sigma, double cpu_sigma, const std::string& model,
                     Rate varied, Rate jittered) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    const ModelReport m = analyze(with_jitter(file, mem_sigma, cpu_sigma, seed), {});
    EXPECT_EQ(m.spec.name(), model) << "seed " << seed;
    EXPECT_FALSE(states_sensitivity_to(m, jittered)) << "seed " << seed << ": " << m.sensitivity;
    EXPECT_TRUE(states_sensitivity_to(m, varied)) << "seed " << seed;
  }
}

// Core-only published sweep (LULESH, 15 clocks) whose STREAM was "measured" at every run with a
// 1.5 % scatter: memory was not varied, so the model is cpu+fixed with no memory sensitivity, and
// its core-clock work is the one fitted without the jitter.
TEST(JudgementAcceptance, CoreOnlySweepWithStreamJitterStatesNoMemorySensitivity) {
  const std::string file = "lulesh_s120_core_clock_sweep.csv";
  REQUIRE_PUBLISHED(fixture(file));
  expect_one_rate(file, 0.015, 0, "cpu+fixed", Rate::cpu_ghz, Rate::mem_gbs);
  const ModelReport m = analyze(with_jitter(file, 0.015, 0, 1), {});
  const auto direct = weighted_cpu_fixed(read_medians(fixture(file)));
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_NEAR(m.params[0], direct.w_cpu, 1e-3 * direct.w_cpu);
}

// The other way round: a memory-only sweep (no published one was found: the SYNTHETIC fixture,
// labelled so) whose core clock was measured with a 0.004 % scatter (2.3999 vs 2.4001 GHz):
// the clock was not varied, so no core-clock sensitivity is stated.
TEST(JudgementAcceptance, MemoryOnlySweepWithClockJitterStatesNoCoreSensitivity) {
  expect_one_rate("synthetic_memory_only_sweep.csv", 0, 0.00004, "mem+fixed", Rate::mem_gbs, Rate::cpu_ghz);
}

// Five configurations of a two-rate design fitted with three terms (2 degrees of freedom left),
// from a known truth with 5 % run noise (test double, tests/model/ground_truth.h): with so few
// configurations the fit cannot be checked, and its leave-one-out error is near 10 %. Never `ok`.
TEST(JudgementAcceptance, TwoDegreesOfFreedomWithATenPercentLoocvIsNeverOk) {
  testing::Truth truth;
  truth.w_cpu = 40, truth.w_mem = 900, truth.t_io = 3;
  const std::vector<testing::Config> five = {{1.2, 60}, {3.0, 60}, {1.2, 120}, {3.0, 120}, {2.1, 90}};
  int checked = 0;
  for (unsigned seed = 1; seed <= 400 && checked < 3; ++seed) {
    testing::NoiseSpec noise;
    noise.rel_sigma = 0.05, noise.seed = seed;
    AnalyzeOptions o;
    o.model = "cpu+mem+io";
    const ModelReport m = analyze(assemble(testing::generate(truth, five, noise)), o);
    if (!(m.diag.loocv_mape > 0.08 && m.diag.loocv_mape < 0.20)) continue;  // the case of the issue
    ++checked;
    EXPECT_NE(m.verdict.word, "ok") << "seed " << seed << " loocv " << m.diag.loocv_mape;
  }
  EXPECT_EQ(checked, 3) << "no seed gave a leave-one-out error between 8 and 20 %";
}

// A model measured at 1.2-2.7 GHz asked about 9.5 GHz: the prediction is marked as an
// extrapolation, its interval is wider (relative to the time) than at a measured clock, and it
// is not `ok`.
TEST(JudgementAcceptance, PredictionFarOutsideTheMeasuredClocksIsMarkedAndWidened) {
  REQUIRE_PUBLISHED(fixture("lulesh_s120_core_clock_sweep.csv"));
  const ModelReport m = analyze(load_dataset({fixture("lulesh_s120_core_clock_sweep.csv")}), {});
  const double held_mem = held_rate(m, Rate::mem_gbs);
  const auto at = [&](const char* name, double ghz) {
    SystemSpec s;
    s.name = name, s.cpu_ghz = ghz, s.mem_gbs = held_mem;
    return predict(m, s);
  };
  const Prediction inside = at("measured-top", 2.7), far = at("far", 9.5);
  bool marked = false;
  for (const auto& w : far.warnings) marked = marked || w.find("extrapolat") != std::string::npos;
  EXPECT_TRUE(marked);
  EXPECT_FALSE(far.extrapolated.empty());
  EXPECT_TRUE(inside.extrapolated.empty());
  EXPECT_NE(far.verdict, "ok");
  EXPECT_GT(far.fit_high_s - far.fit_low_s, far.cov_high_s - far.cov_low_s);  // widened beyond the covariance
  const double width_inside = (inside.high_s - inside.low_s) / inside.predicted_s;
  const double width_far = (far.high_s - far.low_s) / far.predicted_s;
  EXPECT_GT(width_far, 2 * width_inside);
  EXPECT_GE(far.high_s, far.predicted_s);
  EXPECT_LE(far.low_s, far.predicted_s);
}

}  // namespace
}  // namespace hpcsens::model
