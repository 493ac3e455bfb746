// A candidate's uncore clock (SYSTEMS file `uncore_ghz`, issue 31): a power model fitted to a core x
// uncore sweep against a truth (P = 50 + 3 f^3 + 25 u W, T = 60 / f + 20 s; the time does not see
// the uncore) predicts each candidate's power at its own uncore clock, in predict and in a mix;
// without one it takes the baseline's and says so; bad values name file, line and field.
#include <gtest/gtest.h>

#include <random>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "model/energy_analysis.h"
#include "model/mix.h"
#include "tests/model/cli_fixture.h"

namespace hpcsens::model {
namespace {

double truth_power(double f, double u) { return 50 + 3 * f * f * f + 25 * u; }
double truth_time(double f) { return 60 / f + 20; }

ModelReport uncore_model() {
  std::mt19937 rng(4);
  std::normal_distribution<double> z(0, 0.005);
  std::vector<Observation> obs;
  for (double f : {1.2, 1.6, 2.0, 2.4, 2.8})
    for (double u : {1.2, 2.0, 2.8})
      for (int r = 0; r < 2; ++r) {
        Observation o;
        o.label = fmt::format("C{}_U{}", f, u);
        o.cpu_ghz = f, o.mem_gbs = NAN, o.uncore_ghz = u;
        o.time_s = truth_time(f) * (1 + z(rng));
        o.power_w = truth_power(f, u) * (1 + z(rng));
        o.energy_j = *o.power_w * o.time_s;
        o.energy_domains = "package", o.energy_source = "powercap", o.energy_nodes = 1;
        obs.push_back(o);
      }
  AnalyzeOptions opts;
  opts.model = "cpu+fixed";
  return analyze(assemble(obs), opts);
}

SystemSpec candidate(const std::string& name, double f, std::optional<double> u) {
  SystemSpec s;
  s.name = name, s.cpu_ghz = f, s.uncore_ghz = u, s.nodes = 10;
  return s;
}

TEST(UncoreCandidate, ThePowerModelTakesTheCandidatesUncoreClock) {
  const ModelReport m = uncore_model();
  ASSERT_TRUE(m.energy.available) << m.energy.reason;
  const double base_u = *m.points[m.baseline].uncore_ghz;  // one of the 2.8 GHz core points
  for (double u : {1.2, 1.6, 2.4, 2.8}) {
    const Prediction p = predict(m, candidate("c", 2.0, u));
    const auto cp = candidate_power(m, p);
    ASSERT_TRUE(cp);
    EXPECT_NEAR(cp->power_w / truth_power(2.0, u), 1, 0.01) << u;  // stated tolerance: 1 % (0.5 % noise)
    EXPECT_NEAR(cp->energy_j / (truth_power(2.0, u) * truth_time(2.0)), 1, 0.015) << u;
    EXPECT_EQ(candidate_uncore_note(m, p), "");
  }
  const Prediction none = predict(m, candidate("c", 2.0, std::nullopt));
  EXPECT_NEAR(candidate_power(m, none)->power_w / truth_power(2.0, base_u), 1, 0.01);
  EXPECT_EQ(candidate_uncore_note(m, none),
            fmt::format("the candidate names no uncore_ghz: the power model takes the baseline's uncore {:g} GHz", base_u));
  const auto far = candidate_power_doubts(m, predict(m, candidate("c", 2.0, 0.6)));
  ASSERT_EQ(far.size(), 1u);
  EXPECT_EQ(far[0], "the power model is extrapolated: uncore 0.6 GHz lies beyond the measured 1.2-2.8 GHz");
}

TEST(UncoreCandidate, AMixRanksPerWattByEachCandidatesUncoreClock) {
  Mix mix;
  mix.path = "mix.yaml";
  MixApp app;
  app.name = "a", app.weight = 1, app.model = uncore_model();
  mix.apps.push_back(app);
  // Same core clock, only the uncore differs: the time is the same, the lower uncore uses less power.
  const MixResult r = evaluate_mix(mix, {candidate("u2.6", 2.0, 2.6), candidate("u1.4", 2.0, 1.4),
                                         candidate("u2.0", 2.0, 2.0)}, RankBy::per_watt);
  ASSERT_EQ(r.power_basis, PowerBasis::measured);
  std::vector<std::string> order;
  for (const auto& s : r.systems) {
    order.push_back(s.system.name);
    EXPECT_NEAR(*s.node_power_w / truth_power(2.0, *s.system.uncore_ghz), 1, 0.01) << s.system.name;
  }
  EXPECT_EQ(order, (std::vector<std::string>{"u1.4", "u2.0", "u2.6"}));
  const auto j = nlohmann::json::parse(render_mix(r, "json"));
  EXPECT_EQ(j["systems"][0]["uncore_ghz"].get<double>(), 1.4);
}

std::string system_error(const std::string& yaml) {
  try {
    parse_systems(yaml, "sys.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(UncoreCandidate, TheSystemsFieldIsReadAndBadValuesNameFileLineAndField) {
  EXPECT_EQ(*parse_systems("systems:\n  - {name: a, cpu_ghz: 2, uncore_ghz: 1.8}\n", "sys.yaml")[0].uncore_ghz, 1.8);
  EXPECT_FALSE(parse_systems("systems:\n  - {name: a, cpu_ghz: 2}\n", "sys.yaml")[0].uncore_ghz);
  EXPECT_EQ(system_error("systems:\n  - {name: a, cpu_ghz: 2, uncore_ghz: -1}\n"),
            "sys.yaml:2: field 'uncore_ghz': must be a finite number greater than zero");
  EXPECT_EQ(system_error("systems:\n  - name: a\n    uncore_ghz: fast\n"),
            "sys.yaml:3: field 'uncore_ghz': 'fast' is not a number");
  EXPECT_NE(system_error("systems:\n  - {name: a, uncore_ghz: 500}\n").find("sys.yaml:2: field 'uncore_ghz'"),
            std::string::npos);
}

class UncoreCli : public CliTest {};

TEST_F(UncoreCli, ABadUncoreClockExitsTwoNamingFileLineAndField) {
  ASSERT_EQ(run("fit " + good_csv({24.0, 600.0, 2.0}) + " --model cpu+mem+io -o " + path("m.json")).exit_status, 0);
  const std::string sys = file("sys.yaml", "systems:\n  - {name: a, cpu_ghz: 2, mem_gbs: 40, uncore_ghz: [1, 2]}\n");
  const auto r = run("predict " + path("m.json") + " --system " + sys);
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_NE(r.err.find(sys + ":2: field 'uncore_ghz': not a number (a list or mapping)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hpcsens::model
