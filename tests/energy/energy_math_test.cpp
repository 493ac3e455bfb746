// The counter arithmetic against expectations worked out by hand (each comment shows the sum).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "energy/energy_math.h"

namespace hpcsens::energy {
namespace {

TEST(DeltaUj, NoWrapIsTheDifference) { EXPECT_EQ(delta_uj(100, 250, 1000), 150u); }

TEST(DeltaUj, OneWrapCountsUpToTheTopThroughZero) {
  // Range 0..999: 900 -> 999 is 99, 999 -> 0 is 1, 0 -> 150 is 150: 250.
  EXPECT_EQ(delta_uj(900, 150, 999), 250u);
  EXPECT_TRUE(wrapped(900, 150));
  EXPECT_FALSE(wrapped(150, 900));
  // From the top to zero is one microjoule, not max_range.
  EXPECT_EQ(delta_uj(999, 0, 999), 1u);
  // An unchanged counter moved nothing (an idle domain, or two reads within one update).
  EXPECT_EQ(delta_uj(500, 500, 999), 0u);
}

TEST(DeltaUj, AnIntelPackageRange) {
  // max_energy_range_uj of a Skylake-SP package, 262143328850: 262143000000 -> top is 328850,
  // +1 to 0, +1000000 beyond: 1328851 uJ.
  EXPECT_EQ(delta_uj(262143000000ull, 1000000ull, 262143328850ull), 1328851u);
}

TEST(DeltaUj, NoOverflowAtTheTopOfUint64) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  // kMax-1 -> kMax is 1, -> 0 is 1, -> 1 is 1: 3.
  EXPECT_EQ(delta_uj(kMax - 1, 1, kMax), 3u);
}

TEST(DeltaUj, AReadingOutsideTheRangeIsNotACounterReading) {
  EXPECT_FALSE(delta_uj(1001, 5, 1000).has_value());
  EXPECT_FALSE(delta_uj(5, 1001, 1000).has_value());
}

TEST(MeanWatts, JoulesOverSeconds) {
  EXPECT_DOUBLE_EQ(*mean_watts(1500.0, 12.0), 125.0);
  EXPECT_FALSE(mean_watts(10.0, 0.0).has_value());
  EXPECT_FALSE(mean_watts(10.0, -1.0).has_value());
}

TEST(SampleInterval, AQuarterOfTheWrapTimeAtTheMostPlausiblePowerWithinBounds) {
  // 262143328851 uJ at 1000 W wrap in 262.1 s: a quarter is 65.5 s, capped to 1 s.
  EXPECT_NEAR(wrap_time_s(262143328850ull), 262.143328851, 1e-9);
  EXPECT_DOUBLE_EQ(sample_interval_s(262143328850ull), 1.0);
  // 200 J wrap in 0.2 s at 1000 W: every 0.05 s.
  EXPECT_NEAR(sample_interval_s(199999999ull), 0.05, 1e-12);
  // 2 J would wrap in 2 ms: held at the 10 ms floor (no part has so small a range).
  EXPECT_DOUBLE_EQ(sample_interval_s(1999999ull), 0.01);
  // At a lower plausible power the same range allows longer gaps: 200 J at 100 W: 0.5 s.
  EXPECT_NEAR(sample_interval_s(199999999ull, 100.0), 0.5, 1e-12);
}

}  // namespace
}  // namespace hpcsens::energy
