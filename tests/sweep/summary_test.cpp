// The sweep summary's plain-words note when the measured clock is not the requested one.
#include <gtest/gtest.h>

#include "sweep/summary.h"

namespace hpcsens::sweep {
namespace {

TEST(SweepSummary, MeasuredClockFarFromTheRequestedFrequencyIsSaidInPlainWords) {
  const auto note = clock_mismatch_note("cpu2.4", 2.4, 3.1);
  EXPECT_NE(note.find("at cpu2.4 the cores ran at 3.10 GHz (measured), not the requested 2.4 GHz (+29%)"),
            std::string::npos) << note;
  EXPECT_NE(note.find("the frequency setting did not hold"), std::string::npos);
  EXPECT_NE(clock_mismatch_note("cpu2.4", 2.4, 1.9).find("(-21%)"), std::string::npos);
  EXPECT_EQ(clock_mismatch_note("cpu2.4", 2.4, 2.45), "");  // within 5 %: measurement noise
  EXPECT_EQ(clock_mismatch_note("cpu2.4", 0, 2.45), "");    // nothing was requested
}

}  // namespace
}  // namespace hpcsens::sweep
