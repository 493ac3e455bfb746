#include "mpi/imbalance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace hpcsens::mpi {
namespace {

TEST(Imbalance, StatisticsOfFourRanks) {
  // compute = 1, 2, 3, 6: mean 3, max 6, population sd = sqrt((4+1+0+9)/4) = sqrt(3.5).
  std::vector<RankTimes> r = {{0, 10, 1}, {1, 10, 2}, {2, 10, 3}, {3, 8, 6}};
  const auto im = imbalance_of(r, 2);
  EXPECT_DOUBLE_EQ(im.mean_s, 3.0);
  EXPECT_DOUBLE_EQ(im.max_over_mean, 2.0);
  EXPECT_DOUBLE_EQ(im.lbe, 0.5);
  EXPECT_DOUBLE_EQ(im.comm_eff, 6.0 / 8.0);
  EXPECT_NEAR(im.cov, std::sqrt(3.5) / 3.0, 1e-12);
  ASSERT_EQ(im.slowest.size(), 2u);
  EXPECT_EQ(im.slowest[0], 3);
  EXPECT_EQ(im.slowest[1], 2);
}

TEST(Imbalance, BalancedRanksHaveLbeOne) {
  std::vector<RankTimes> r = {{0, 2, 1}, {1, 2, 1}};
  const auto im = imbalance_of(r);
  EXPECT_DOUBLE_EQ(im.lbe, 1.0);
  EXPECT_DOUBLE_EQ(im.cov, 0.0);
}

}  // namespace
}  // namespace hpcsens::mpi
