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
                                         points_at(testing::grid({2.0, 2.06, 2.12}, {10, 20, 40})));
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


std::string refusal(const std::vector<Point>& pts) {
  Dataset d;
  d.points = pts;
  try {
    analyze(d, {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Issue 30: a core-only sweep of one or two clocks was refused with what model 'cpu+mem' needs.
TEST(Identifiability, ATooShortCoreSweepNamesTheOneRateModelAndWhatToAdd) {
  const std::string two = refusal(points_at({{2.0, 100}, {3.0, 100}}));
  EXPECT_NE(two.find("cpu+fixed"), std::string::npos) << two;
  EXPECT_NE(two.find("add at least 1 more"), std::string::npos) << two;
  EXPECT_EQ(two.find("'cpu+mem'"), std::string::npos) << two;
  const std::string one = refusal(points_at({{3.0, 100}}));
  EXPECT_NE(one.find("1 distinct configuration"), std::string::npos) << one;
  EXPECT_NE(one.find("at least 3 clocks for model cpu+fixed"), std::string::npos) << one;
  EXPECT_EQ(one.find("'cpu+mem'"), std::string::npos) << one;
}

// `--model mem+fixed` on a full grid: the rates were varied independently; the model chose to lump
// the core clock's time into 'fixed', and the verdict says so instead of "could not be separated".
TEST(Identifiability, AOneRateModelOnAFullGridSaysTheOtherRateWasVariedIndependently) {
  Dataset d;
  d.points = points_at(testing::acceptance_grid());
  AnalyzeOptions o;
  o.model = "mem+fixed";
  const ModelReport m = analyze(d, o);
  std::string reasons;
  for (const auto& r : m.verdict.reasons) reasons += r + "\n";
  EXPECT_EQ(reasons.find("could not be separated"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("cpu_ghz was also varied, independently of mem_gbs"), std::string::npos) << reasons;
  EXPECT_NE(m.verdict.word, "ok") << reasons;
}

// A range of exactly 5 % is not "more than 5 %": 2.1 / 2.0 - 1 is 0.050000000000000044 in doubles.
TEST(Identifiability, ARangeOfExactlyFivePercentIsNotVaried) {
  std::vector<Point> pts;
  for (double f : {2.0, 2.1, 2.0, 2.1}) {
    Point p;
    p.cpu_ghz = f, p.mem_gbs = 100, p.time_s = 10 / f;
    pts.push_back(p);
  }
  ASSERT_GT(2.1 / 2.0 - 1, 0.05);  // the accident this guards against
  EXPECT_FALSE(rate_variation(Rate::cpu_ghz, pts).varied);
  pts[1].cpu_ghz = pts[3].cpu_ghz = 2.1001;
  EXPECT_TRUE(rate_variation(Rate::cpu_ghz, pts).varied);
}

}  // namespace
}  // namespace hpcsens::model
