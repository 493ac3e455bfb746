// Designs that cannot identify the terms are refused with a message saying what to add.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "model/analysis.h"
#include "model/identifiability.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

std::vector<Point> points_at(const std::vector<testing::Config>& cfg) {
  return testing::generate_points({24.0, 600.0, 2.0}, cfg, {0.01, 1, 1});
}

TEST(Identifiability, AcceptanceGridIsFine) {
  const auto rep = check_identifiability(parse_model_spec("cpu+mem+io"), points_at(testing::acceptance_grid()));
  EXPECT_TRUE(rep.ok());
  EXPECT_TRUE(rep.warnings.empty()) << rep.warnings.front();
  EXPECT_EQ(rep.distinct_configs, 12);
  EXPECT_LT(rep.condition_number, kConditionWarn);
}

TEST(Identifiability, CollinearRatesAreRefusedNamingTheCause) {
  // CPU and memory rate scaled together (e.g. a single "power level" knob).
  std::vector<testing::Config> cfg;
  for (double f : {1.0, 1.4, 1.8, 2.2, 2.6}) cfg.push_back({f, 20 * f});
  const auto pts = points_at(cfg);
  const auto rep = check_identifiability(parse_model_spec("cpu+mem"), pts);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.errors.front().find("collinear"), std::string::npos) << rep.errors.front();
  EXPECT_NE(rep.errors.front().find("holding"), std::string::npos);
  Dataset d;
  d.points = pts;
  AnalyzeOptions o;
  o.model = "cpu+mem";
  EXPECT_THROW(analyze(d, o), InputError);
  // --model auto fits the largest identifiable model and says why the two rates were not separated.
  o.model = "auto";
  const ModelReport m = analyze(d, o);
  EXPECT_EQ(m.spec.name(), "cpu+fixed");
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes.front().find("collinear"), std::string::npos) << m.notes.front();
  EXPECT_EQ(m.verdict.word, "caution");
  bool said = false;
  for (const auto& r : m.verdict.reasons) said = said || r.find("could not be separated") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Identifiability, TooFewConfigurationsForTheTerms) {
  const auto rep = check_identifiability(parse_model_spec("cpu+mem+io"), points_at({{1.0, 10}, {2.0, 20}, {2.0, 10}}));
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.errors.front().find("3 parameters"), std::string::npos) << rep.errors.front();
  EXPECT_NE(rep.errors.front().find("add at least 1 more"), std::string::npos);
}

TEST(Identifiability, RateNotVariedIsAnError) {
  const auto rep = check_identifiability(parse_model_spec("cpu+mem"), points_at({{2.0, 10}, {2.0, 20}, {2.0, 40}}));
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.errors.front().find("cpu_ghz was not varied"), std::string::npos) << rep.errors.front();
}

TEST(Identifiability, RateVariedTooLittleIsAWarning) {
  const auto rep = check_identifiability(parse_model_spec("cpu+mem"),
                                         points_at(testing::grid({2.0, 2.05, 2.1}, {10, 20, 40})));
  ASSERT_TRUE(rep.ok());
  ASSERT_FALSE(rep.warnings.empty());
  EXPECT_NE(rep.warnings.front().find("cpu_ghz varied only"), std::string::npos) << rep.warnings.front();
}

TEST(Identifiability, LatencyModelNeedsLatencies) {
  const auto rep = check_identifiability(parse_model_spec("cpu+mem+lat"), points_at(testing::acceptance_grid()));
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.errors.front().find("lat_ns"), std::string::npos);
}

TEST(Identifiability, RepeatedConfigurationsDoNotCount) {
  auto pts = points_at({{1.0, 10}, {2.0, 20}});
  pts.push_back(pts[0]);
  pts.back().label = "again";
  const auto rep = check_identifiability(parse_model_spec("cpu+mem"), pts);
  EXPECT_EQ(rep.distinct_configs, 2);
  EXPECT_FALSE(rep.ok());
}

}  // namespace
}  // namespace hpcsens::model
