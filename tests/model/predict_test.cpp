// Prediction with intervals, candidate system files, and the model JSON round trip.
#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.h"
#include "model/analysis.h"
#include "model/model_json.h"
#include "model/predict.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

ModelReport fitted(const testing::Truth& truth, const std::string& model = "cpu+mem+io") {
  Dataset d;
  d.points = testing::generate_points(truth, testing::acceptance_grid(), {0.01, 3, 1});
  AnalyzeOptions o;
  o.model = model;
  return analyze(d, o);
}

TEST(Predict, IntervalContainsTruthAtANewConfiguration) {
  const testing::Truth truth{24.0, 600.0, 3.0};
  const ModelReport m = model_from_json(to_json(fitted(truth)), "mem");
  const testing::Config c{2.6, 45};
  const Prediction p = predict(m, {"new", c.cpu_ghz, c.mem_gbs, std::nullopt, ""});
  const double t = testing::true_time(truth, c);
  EXPECT_NEAR(p.predicted_s, t, 0.02 * t);
  EXPECT_LE(p.fit_low_s, t);
  EXPECT_GE(p.fit_high_s, t);
  EXPECT_LE(p.low_s, p.fit_low_s);
  EXPECT_GE(p.high_s, p.fit_high_s);
  ASSERT_TRUE(p.overlap_low_s.has_value());
  EXPECT_LE(*p.overlap_low_s, t);
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Predict, ExtrapolationIsFlagged) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  const Prediction p = predict(m, {"far", 5.0, 300, std::nullopt, ""});
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings[0].find("extrapolating"), std::string::npos);
}

TEST(Predict, SpeedupIsAgainstTheModelledBaselineAndRankingIsFastestFirst) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  std::vector<Prediction> preds{predict(m, {"slow", 1.5, 20, std::nullopt, ""}),
                                predict(m, {"fast", 3.0, 70, std::nullopt, ""})};
  rank_predictions(preds);
  EXPECT_EQ(preds[0].system.name, "fast");
  EXPECT_GT(preds[0].speedup, 1.0);
  EXPECT_LT(preds[1].speedup, 1.0);
  const double base = model_time(m.spec, m.params, m.points[m.baseline]);
  EXPECT_NEAR(preds[0].speedup, base / preds[0].predicted_s, 1e-12);
}

// The demo's "current" candidate has the baseline's rates: it read 0.994x because the speed-up
// divided the baseline's measured time (with its run noise) by a modelled time.
TEST(Predict, ACandidateWithTheBaselinesRatesIsExactlyOneX) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  const Point& b = m.points[m.baseline];
  ASSERT_GT(std::fabs(b.time_s - model_time(m.spec, m.params, b)), 1e-6 * b.time_s) << "no noise at the baseline";
  const Prediction p = predict(m, {"same", b.cpu_ghz, b.mem_gbs, std::nullopt, ""});
  EXPECT_DOUBLE_EQ(p.speedup, 1.0);
  EXPECT_DOUBLE_EQ(p.baseline_model_s, p.predicted_s);
}

// A candidate gives only the rates it changes: one the model has a term for is required (named
// with file, line and field), one it has none for takes the baseline's value and says so.
TEST(Predict, OnlyRatesWithTermsAreRequiredAndTheRestComeFromTheBaseline) {
  const ModelReport m = fitted({24.0, 600.0, 3.0});
  const auto only_cpu = parse_systems("- name: a\n  cpu_ghz: 2\n", "t.yaml");
  try {
    predict(m, only_cpu[0]);
    FAIL() << "mem_gbs is a term of cpu+mem+io";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:1: field 'mem_gbs'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("has a term for the memory bandwidth"), std::string::npos) << e.what();
  }
  const ModelReport cpu_only = fitted({24.0, 0.0, 3.0}, "cpu+fixed");
  const Prediction p = predict(cpu_only, only_cpu[0]);
  const Point& b = cpu_only.points[cpu_only.baseline];
  EXPECT_DOUBLE_EQ(p.system.mem_gbs, b.mem_gbs);  // the baseline's, not 0
  ASSERT_EQ(p.rates.size(), 2u);
  EXPECT_EQ(p.rates[0].name, "cpu_ghz");
  EXPECT_TRUE(p.rates[0].given && p.rates[0].modelled);
  EXPECT_EQ(p.rates[1].name, "mem_gbs");
  EXPECT_FALSE(p.rates[1].given || p.rates[1].modelled);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings[0];
}

TEST(Predict, OverlapModelRoundTripsThroughJson) {
  const ModelReport a = fitted({24.0, 600.0, 2.0, 0.0, 0.3}, "overlap");
  const ModelReport b = model_from_json(to_json(a), "mem");
  EXPECT_EQ(b.spec.name(), "overlap");
  const SystemSpec s{"x", 2.2, 30, std::nullopt, ""};
  EXPECT_DOUBLE_EQ(predict(a, s).predicted_s, predict(b, s).predicted_s);
}

TEST(Predict, SystemsYamlIsValidatedWithLineAndField) {
  const auto ok = parse_systems("systems:\n  - name: a\n    cpu_ghz: 2.0\n    mem_gbs: 100\n  - name: b\n"
                                "    cpu_ghz: 3\n    mem_gbs: 50\n    lat_ns: 90\n",
                                "s.yaml");
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[1].name, "b");
  EXPECT_DOUBLE_EQ(*ok[1].lat_ns, 90);
  try {
    parse_systems("systems:\n  - name: a\n    cpu_ghz: fast\n    mem_gbs: 100\n", "s.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:3: field 'cpu_ghz'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_systems("name: a\ncpu_ghz: -1\nmem_gbs: 3\n", "u.yaml"), InputError);
  EXPECT_THROW(parse_systems("name: a\ncpu_ghz: 1\nmem_gbs: 3\nmemory: 5\n", "u.yaml"), InputError);
}

// Regression (QA): duplicate names were accepted; implausible rates went through.
TEST(Predict, SystemsYamlRefusesDuplicateNamesAndImplausibleRates) {
  try {
    parse_systems("systems:\n  - name: a\n    cpu_ghz: 2.4\n    mem_gbs: 310\n  - name: a\n"
                  "    cpu_ghz: 2.5\n    mem_gbs: 310\n",
                  "d.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("d.yaml:5: field 'name': duplicate system name 'a'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_unique_names({{"a", 2, 3, std::nullopt, "x.yaml:2"}, {"a", 2, 3, std::nullopt, "y.yaml:2"}}),
               InputError);
  EXPECT_NO_THROW(check_unique_names({{"a", 2, 3, std::nullopt, "x.yaml:2"}, {"b", 2, 3, std::nullopt, "y.yaml:2"}}));
  EXPECT_THROW(parse_systems("name: a\ncpu_ghz: 1e300\nmem_gbs: 3\n", "u.yaml"), InputError);
  EXPECT_THROW(parse_systems("name: a\ncpu_ghz: .nan\nmem_gbs: 3\n", "u.yaml"), InputError);
  EXPECT_THROW(parse_systems("name: a\ncpu_ghz: 2\nmem_gbs: 3\nlat_ns: 1e12\n", "u.yaml"), InputError);
}

TEST(Predict, LatencyModelNeedsTheTargetLatency) {
  testing::Truth truth{24.0, 300.0, 0.0, 0.05};
  std::vector<testing::Config> cfg;
  int i = 0;
  for (auto c : testing::acceptance_grid()) c.lat_ns = 80 + 25 * ((i++ * 7) % 5), cfg.push_back(c);
  Dataset d;
  d.points = testing::generate_points(truth, cfg, {0.005, 2, 1});
  AnalyzeOptions o;
  o.model = "cpu+mem+lat";
  const ModelReport m = analyze(d, o);
  EXPECT_THROW(predict(m, {"x", 2.0, 30, std::nullopt, "sys.yaml:4"}), InputError);
  const testing::Config c{2.0, 30, 100};
  EXPECT_NEAR(predict(m, {"x", 2.0, 30, 100.0, ""}).predicted_s, testing::true_time(truth, c),
              0.02 * testing::true_time(truth, c));
}

TEST(ModelJson, HasTheDesignKeys) {
  const auto j = to_json(fitted({24.0, 600.0, 3.0}));
  EXPECT_EQ(j["schema"], "hpcsens.model.v1");
  EXPECT_EQ(j["model"], "cpu+mem+io");
  ASSERT_EQ(j["terms"].size(), 3u);
  EXPECT_EQ(j["terms"][0]["name"], "cpu");
  EXPECT_EQ(j["terms"][2]["name"], "io");
  for (const auto& t : j["terms"]) {
    EXPECT_TRUE(t["work"].is_number());
    EXPECT_TRUE(t["stderr"].is_number());
    EXPECT_EQ(t["bounds"].size(), 2u);
  }
  for (const char* k : {"mape", "max_abs_err", "slope", "intercept", "r2", "loocv_mape"})
    EXPECT_TRUE(j["diagnostics"][k].is_number()) << k;
  EXPECT_LT(j["diagnostics"]["mape"].get<double>(), 0.05);  // a fraction, not percent
  EXPECT_EQ(j["points"].size(), 12u);
  EXPECT_FALSE(j["emulated"].get<bool>());
}

TEST(ModelJson, BadModelFilesNameTheField) {
  auto j = to_json(fitted({24.0, 600.0, 3.0}));
  j["parameters"] = {1.0};
  try {
    model_from_json(j, "m.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: field 'parameters'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(model_from_json(nlohmann::json{{"schema", "other"}}, "m.json"), InputError);
}

}  // namespace
}  // namespace hpcsens::model
