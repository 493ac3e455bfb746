#include "preload/account/accounting.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace hpcsens::preload {
namespace {

class AccountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    reset_accounting();
    g_counting.store(true);
  }
  void TearDown() override {
    g_counting.store(false);
    reset_accounting();
  }
};

void count_one(int id, std::uint64_t ns, std::uint64_t bytes) {
  Guard g;
  if (g.counting()) g.record(id, ns, bytes);
}

TEST_F(AccountingTest, CountsNothingOutsideTheMeasuredSpan) {
  g_counting.store(false);
  count_one(call::MPI_Send, 10, 100);
  EXPECT_EQ(merged_totals()[call::MPI_Send].count, 0u);
}

TEST_F(AccountingTest, NestedCallsAreNotCountedTwice) {
  {
    Guard outer;
    ASSERT_TRUE(outer.counting());
    {
      Guard inner;  // e.g. MPI-IO's own write() inside MPI_File_write
      EXPECT_FALSE(inner.counting());
    }
    outer.record(call::MPI_File_write, 5, 8);
  }
  {
    InternalScope ours;  // our own finalize work
    Guard g;
    EXPECT_FALSE(g.counting());
  }
  Guard after;
  EXPECT_TRUE(after.counting());
  const auto t = merged_totals();
  EXPECT_EQ(t[call::MPI_File_write].count, 1u);
  EXPECT_EQ(t[call::write].count, 0u);
}

TEST_F(AccountingTest, ThreadsAccumulateSeparatelyAndMergeExactly) {
  // More threads than slots, so the shared overflow slot is exercised as well.
  const int threads = kMaxThreadSlots + 8;
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([] {
      for (int k = 0; k < 1000; ++k) count_one(call::MPI_Isend, 3, 7);
    });
  for (auto& t : pool) t.join();
  const auto total = merged_totals()[call::MPI_Isend];
  EXPECT_EQ(total.count, 1000u * threads);
  EXPECT_EQ(total.ticks, 3000u * threads);
  EXPECT_EQ(total.bytes, 7000u * threads);
  EXPECT_GE(threads_seen(), threads);
}

}  // namespace
}  // namespace hpcsens::preload
