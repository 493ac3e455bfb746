// Per-rank fits: shares per rank and grouping of ranks that behave alike.
#include <gtest/gtest.h>

#include "model/analysis.h"
#include "model/per_rank.h"
#include "tests/model/ground_truth.h"

namespace hpcsens::model {
namespace {

TEST(PerRank, SeparatesCpuBoundAndMemoryBoundRanks) {
  const auto cfg = testing::acceptance_grid();
  const auto pts = testing::generate_points({24.0, 600.0, 0.0}, cfg, {0.0, 1, 1});
  const testing::Truth cpu_heavy{40.0, 100.0, 1.0}, mem_heavy{5.0, 900.0, 1.0};
  std::vector<int> ranks;
  std::vector<std::vector<double>> times;
  for (int r = 0; r < 8; ++r) {
    ranks.push_back(r);
    const auto t = testing::generate_points(r < 5 ? cpu_heavy : mem_heavy, cfg, {0.005, 100u + r, 1});
    std::vector<double> row;
    for (const auto& p : t) row.push_back(p.time_s);
    times.push_back(row);
  }
  const size_t base = pick_baseline(pts);  // 3.0 GHz, 60 GB/s
  const auto shares = fit_per_rank(parse_model_spec("cpu+mem+io"), pts, ranks, times, base, {});
  ASSERT_EQ(shares.size(), 8u);
  // Expected cpu share for the cpu-heavy ranks: (40/3) / (40/3 + 100/60 + 1) = 0.8
  for (int r = 0; r < 5; ++r) {
    ASSERT_TRUE(shares[r].ok);
    EXPECT_NEAR(shares[r].cpu, 0.8, 0.05);
    EXPECT_LT(shares[r].error, 0.01);
  }
  for (int r = 5; r < 8; ++r) EXPECT_GT(shares[r].mem, shares[r].cpu);
  const auto groups = group_ranks(shares);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(format_rank_list(groups[0].ranks), "0-4");
  EXPECT_EQ(format_rank_list(groups[1].ranks), "5-7");
}

TEST(PerRank, RankWithTooFewTimesIsMarked) {
  const auto pts = testing::generate_points({24.0, 600.0, 0.0}, testing::acceptance_grid(), {0.0, 1, 1});
  std::vector<double> row(pts.size(), NAN);
  row[0] = 1.0, row[1] = 2.0;
  const auto shares = fit_per_rank(parse_model_spec("cpu+mem"), pts, {3}, {row}, 0, {});
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_FALSE(shares[0].ok);
}

TEST(PerRank, RankListFormatting) {
  EXPECT_EQ(format_rank_list({5, 0, 1, 2, 8, 9}), "0-2,5,8-9");
  EXPECT_EQ(format_rank_list({}), "");
}

}  // namespace
}  // namespace hpcsens::model
