// The power model and energy decisions against a known truth (issue 31, tests/model/power_truth.h):
// power = static + a dynamic part growing like f V(f)^2, run time = W / f + fixed, with noise.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/core.h>

#include "model/analysis.h"
#include "model/dataset.h"
#include "model/energy_decision.h"
#include "model/energy_power.h"
#include "common/errors.h"
#include "tests/model/power_truth.h"

namespace hpcsens::model {
namespace {

using namespace power_truth;

// The grid index of the truth's optimum under `cost`, optionally within a slowdown.
size_t truth_best(const PowerTruth& t, double (*cost)(const PowerTruth&, double), double max_slowdown = INFINITY) {
  const auto g = grid();
  size_t best = g.size() - 1;
  for (size_t i = 0; i < g.size(); ++i)
    if (t.time(g[i]) <= t.time(3.0) * (1 + max_slowdown) + 1e-12 && cost(t, g[i]) < cost(t, g[best])) best = i;
  return best;
}

size_t index_of(const EnergyReport& e, const EnergyDecision& d) {
  const auto g = grid();
  for (size_t i = 0; i < g.size(); ++i)
    if (std::fabs(g[i] - e.points[d.point].cfg.cpu_ghz) < 0.05) return i;
  return 99;
}

TEST(PowerModel, ExactCubeAndStaticAreRecoveredWithoutNoise) {
  std::vector<PowerSample> s;
  for (double f : grid()) s.push_back({f, std::nullopt, {50 + 2 * f * f * f}});
  const PowerFit fit = fit_power(s);
  ASSERT_TRUE(fit.ok) << fit.reason;
  ASSERT_EQ(fit.form, (PowerForm{PowerTerm::fixed, PowerTerm::core_lin, PowerTerm::core_cub}));
  EXPECT_NEAR(fit.params[0], 50, 1e-6);
  EXPECT_NEAR(fit.params[1], 0, 1e-6);
  EXPECT_NEAR(fit.params[2], 2, 1e-8);
  EXPECT_LT(fit.diag.mape, 1e-9);
  EXPECT_EQ(fit.verdict.word, "ok");
}

TEST(PowerModel, SmallDesignsGetOneTermPerClockAndUncoreIsLinear) {
  // The Cuttlefish cross: core {1.2, 1.8, 2.3} at uncore 3.0, uncore {1.2, 2.1, 3.0} at core 2.3.
  std::vector<PowerSample> s{{2.3, 3.0, {178}}, {2.3, 2.1, {149}}, {2.3, 1.2, {123}}, {1.8, 3.0, {159}}, {1.2, 3.0, {146}}};
  EXPECT_EQ(choose_power_form(s), (PowerForm{PowerTerm::fixed, PowerTerm::core_cub, PowerTerm::uncore_lin}));
  s.resize(3);  // only the uncore varied: core held
  EXPECT_EQ(choose_power_form(s), (PowerForm{PowerTerm::fixed, PowerTerm::uncore_lin}));
  s = {{1.2, std::nullopt, {100}}};
  EXPECT_FALSE(fit_power(s).ok);
}

TEST(EnergyDecisions, RecoverTheTruthsOptimaWithinOneGridStepAndCoverIt) {
  const PowerTruth t;
  const size_t e_best = truth_best(t, [](const PowerTruth& x, double f) { return x.energy(f); });
  const size_t w_best = truth_best(t, [](const PowerTruth& x, double f) { return x.energy(f); }, 0.05);
  const size_t edp_best = truth_best(t, [](const PowerTruth& x, double f) { return x.energy(f) * x.time(f); });
  ASSERT_LT(e_best, grid().size() - 1) << "the truth must have an inner optimum for this test to mean anything";
  int covered_saving = 0, covered_energy = 0, seeds = 20;
  for (int seed = 1; seed <= seeds; ++seed) {
    const ModelReport rep = fit(sweep(t, seed));
    const EnergyReport& e = rep.energy;
    ASSERT_TRUE(e.available) << e.reason;
    EXPECT_LE(std::abs(int(index_of(e, e.energy_optimal)) - int(e_best)), 1) << "seed " << seed;
    EXPECT_LE(std::abs(int(index_of(e, e.within_slowdown)) - int(w_best)), 1) << "seed " << seed;
    EXPECT_LE(std::abs(int(index_of(e, e.edp)) - int(edp_best)), 1) << "seed " << seed;
    const EnergyPoint& p = e.points[e.energy_optimal.point];
    const double f = p.cfg.cpu_ghz, truth_saving = 1 - t.energy(f) / t.energy(3.0);
    covered_saving += e.energy_optimal.saving_low <= truth_saving && truth_saving <= e.energy_optimal.saving_high;
    covered_energy += p.energy_low <= t.energy(f) && t.energy(f) <= p.energy_high;
  }
  // 95 % intervals: at least 17 of 20 seeds (a binomial 95 % coverage falls below that in 1.6 % of runs).
  EXPECT_GE(covered_saving, 17);
  EXPECT_GE(covered_energy, 17);
}

TEST(EnergyDecisions, TheSentenceStatesSavingAndSlowdownWithIntervals) {
  const ModelReport rep = fit(sweep(PowerTruth{}, 7), 0.10);
  const EnergyReport& e = rep.energy;
  ASSERT_TRUE(e.available);
  EXPECT_EQ(e.baseline, rep.points[rep.baseline].label);
  const EnergyDecision& d = e.within_slowdown;
  EXPECT_LE(d.slowdown, 0.10 + 1e-12);
  EXPECT_GT(d.saving, 0);
  EXPECT_NE(d.sentence.find("running at " + fmt::format("{:g}", e.points[d.point].cfg.cpu_ghz) + " GHz"),
            std::string::npos) << d.sentence;
  EXPECT_NE(d.sentence.find(" energy for "), std::string::npos) << d.sentence;
  EXPECT_NE(d.sentence.find("more time (the lowest energy within 10 % slowdown)"), std::string::npos) << d.sentence;
  EXPECT_EQ(e.sentence, d.sentence);
  // The Pareto front: the baseline (fastest) and the energy optimum are on it, a point slower and
  // costlier than the optimum is not.
  // The front is of the shown (measured) values: the least measured energy and the fastest run are on it.
  size_t least = 0, fastest = 0;
  for (size_t i = 0; i < e.points.size(); ++i) {
    if (e.points[i].shown_energy() < e.points[least].shown_energy()) least = i;
    if (e.points[i].shown_time() < e.points[fastest].shown_time()) fastest = i;
  }
  EXPECT_TRUE(e.points[least].pareto);
  EXPECT_TRUE(e.points[fastest].pareto);
  size_t slowest = 0;
  for (size_t i = 0; i < e.points.size(); ++i)
    if (e.points[i].cfg.cpu_ghz < e.points[slowest].cfg.cpu_ghz) slowest = i;
  if (slowest != least) {
    EXPECT_FALSE(e.points[slowest].pareto);
  }
}

TEST(EnergyDecisions, NoSlowdownAllowedKeepsTheBaseline) {
  const ModelReport rep = fit(sweep(PowerTruth{}, 3), 0.0);
  EXPECT_EQ(rep.energy.points[rep.energy.within_slowdown.point].cfg.label, rep.points[rep.baseline].label);
  EXPECT_NE(rep.energy.within_slowdown.sentence.find("no configuration saves energy within 0 % slowdown"),
            std::string::npos) << rep.energy.within_slowdown.sentence;
}

TEST(EnergyDecisions, AConfigurationWithoutEnergyMakesItUnavailableSayingWhy) {
  Dataset d = sweep(PowerTruth{}, 5);
  d.points[2].power_reps_w.clear();
  d.points[2].energy_reason = "not available: no RAPL powercap zones under /sys/class/powercap (a virtual machine)";
  const ModelReport rep = fit(d);
  EXPECT_FALSE(rep.energy.available);
  EXPECT_NE(rep.energy.reason.find("1 of 11 configurations have no energy; '" + d.points[2].label + "': not available: "
                                   "no RAPL"), std::string::npos) << rep.energy.reason;
}

TEST(MaxSlowdown, PercentagesAreReadAndNonsenseNamesTheOption) {
  EXPECT_DOUBLE_EQ(parse_max_slowdown("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_max_slowdown("2.5 %"), 0.025);
  EXPECT_DOUBLE_EQ(parse_max_slowdown("10"), 0.10);
  for (const char* bad : {"", "-1%", "101%", "nan", "five", "0x5", "5%%"}) {
    try {
      parse_max_slowdown(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--max-slowdown"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace hpcsens::model
