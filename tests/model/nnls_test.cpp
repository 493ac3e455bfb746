// The active-set polish against problems whose constrained optimum is known by hand.
#include "model/nnls.h"

#include <gtest/gtest.h>

namespace hpcsens::model {
namespace {

// Fitting b = (3, 2, 1) by x1 + x2 t at t = 1, 2, 3: unconstrained x = (4, -1); with x >= 0 the
// slope sits at 0 and x1 is the mean, 2 (KKT: A_2^T (b - A x) = 1 - 3 = -2 < 0).
const std::vector<std::vector<double>> kRows{{1, 1}, {1, 2}, {1, 3}};
const std::vector<double> kFalling{3, 2, 1};

TEST(NonnegLeastSquares, PinsTheSlopeAtItsBoundAndSolvesTheRest) {
  const auto x = nonneg_least_squares(kRows, kFalling, {});
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 2.0, 1e-12);
  EXPECT_EQ((*x)[1], 0.0);
}

// From a feasible start short of the optimum (as Ceres may stop), the polish reaches the same point.
TEST(NonnegLeastSquares, PolishesAFeasibleStartToTheConstrainedOptimum) {
  const auto x = nonneg_least_squares(kRows, kFalling, {1.5, 0.2});
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 2.0, 1e-12);
  EXPECT_EQ((*x)[1], 0.0);
}

// An interior optimum is the unconstrained one: b = 1 + 2 t exactly.
TEST(NonnegLeastSquares, InteriorOptimumIsTheUnconstrainedSolution) {
  const auto x = nonneg_least_squares(kRows, {3, 5, 7}, {0.0, 0.0});
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 1.0, 1e-12);
  EXPECT_NEAR((*x)[1], 2.0, 1e-12);
}

// Two identical columns cannot be separated: no answer rather than an arbitrary split.
TEST(NonnegLeastSquares, InseparableColumnsGiveNoAnswer) {
  EXPECT_FALSE(nonneg_least_squares({{1, 1}, {2, 2}, {3, 3}}, {1, 2, 3}, {0.5, 0.5}).has_value());
}

}  // namespace
}  // namespace hpcsens::model
