#include "preload/account/clock.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace hpcsens::preload {
namespace {

TEST(Clock, InvariantTscNeedsBothFlagsAsWholeWords) {
  EXPECT_TRUE(invariant_tsc("flags\t\t: fpu tsc constant_tsc nonstop_tsc rdtscp\n"));
  EXPECT_FALSE(invariant_tsc("flags\t\t: fpu tsc constant_tsc rdtscp\n"));
  EXPECT_FALSE(invariant_tsc("flags\t\t: fpu tsc xconstant_tsc nonstop_tsc_y\n"));
  EXPECT_FALSE(invariant_tsc(""));
}

TEST(Clock, WithoutInvariantTscTicksAreNanoseconds) {
  TickClock c;
  c.start("flags : fpu tsc");
  EXPECT_FALSE(c.uses_tsc());
  EXPECT_DOUBLE_EQ(c.seconds_per_tick(), 1e-9);
}

TEST(Clock, MeasuredTickRateConvertsASleepToItsLength) {
  TickClock c;
  c.start();  // this machine's /proc/cpuinfo decides
  const std::uint64_t a = now_ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::uint64_t b = now_ticks();
  const double s = static_cast<double>(b - a) * c.seconds_per_tick();
  EXPECT_GT(s, 0.045);
  EXPECT_LT(s, 0.5);
  g_use_tsc = false;
}

}  // namespace
}  // namespace hpcsens::preload
