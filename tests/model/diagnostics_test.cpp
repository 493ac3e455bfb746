#include <gtest/gtest.h>

#include "model/diagnostics.h"

namespace hpcsens::model {
namespace {

TEST(Diagnostics, PerfectFit) {
  const auto d = diagnose({1, 2, 4}, {1, 2, 4});
  EXPECT_DOUBLE_EQ(d.mape, 0);
  EXPECT_DOUBLE_EQ(d.slope, 1);
  EXPECT_NEAR(d.intercept, 0, 1e-12);
  EXPECT_DOUBLE_EQ(d.r2, 1);
}

TEST(Diagnostics, ErrorsAreRelativeFractions) {
  const auto d = diagnose({10, 20}, {11, 19});
  EXPECT_NEAR(d.rel_err[0], 0.1, 1e-12);
  EXPECT_NEAR(d.rel_err[1], -0.05, 1e-12);
  EXPECT_NEAR(d.mape, 0.075, 1e-12);
  EXPECT_NEAR(d.max_abs_err, 0.1, 1e-12);
}

TEST(Diagnostics, SlopeOfObservedAgainstPredicted) {
  // observed = 2 x predicted + 1
  const auto d = diagnose({3, 5, 7}, {1, 2, 3});
  EXPECT_NEAR(d.slope, 2, 1e-12);
  EXPECT_NEAR(d.intercept, 1, 1e-12);
}

TEST(Diagnostics, ResidualTrendSignificance) {
  const std::vector<double> rate{1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_TRUE(residual_trend("cpu_ghz", rate, {-0.04, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03}).significant);
  EXPECT_FALSE(residual_trend("cpu_ghz", rate, {0.01, -0.01, 0.01, -0.01, 0.01, -0.01, 0.01, -0.01}).significant);
}

TEST(Diagnostics, StudentCriticalValues) {
  EXPECT_NEAR(t_critical_95(10), 2.228, 1e-9);
  EXPECT_NEAR(t_critical_95(1000), 1.96, 0.01);
}

}  // namespace
}  // namespace hpcsens::model
