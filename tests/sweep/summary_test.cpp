// The sweep summary's plain-words note when the measured clock is not the requested one.
#include <gtest/gtest.h>

#include "sweep/calibrate/clock_watch.h"
#include "sweep/output/summary.h"

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
  EXPECT_NE(clock_mismatch_note("cpu2.1", 2.2, 2.9, "set").find("not the set 2.2 GHz"), std::string::npos);
}

// srun --cpu-freq on a node that ignored it: every point measured at one clock.
TEST(SweepSummary, AClockThatDidNotMoveAcrossPointsIsSaid) {
  const auto note = clock_did_not_move_note({{1.2, 2.91}, {1.6, 2.93}, {2.0, 2.90}});
  EXPECT_NE(note.find("did not move: the points were set from 1.2 to 2 GHz but every measured clock lies within "
                      "2.90-2.93 GHz"), std::string::npos) << note;
  EXPECT_EQ(clock_did_not_move_note({{1.2, 1.21}, {2.0, 1.99}}), "");  // it moved
  EXPECT_EQ(clock_did_not_move_note({{2.0, 2.9}, {2.05, 2.9}}), "");   // too close to tell
  EXPECT_EQ(clock_did_not_move_note({{2.0, 2.9}}), "");
}

// During the sweep: the first point's miss, and two points set apart but measured alike, are
// said as soon as they are seen, once each; a clock that follows its setting says nothing.
TEST(ClockWatchDuringTheSweep, SaysAtOnceWhenTheKnobDidNotMoveTheClock) {
  ClockWatch ignored;
  const auto first = ignored.add("cpu1.2", 1.2, 2.4);  // a VM: every point at the host clock
  EXPECT_NE(first.find("at cpu1.2 the cores ran at 2.40 GHz (measured), not the set 1.2 GHz"), std::string::npos) << first;
  EXPECT_EQ(first.find("did not move"), std::string::npos);  // one point cannot show that yet
  const auto second = ignored.add("cpu2.0", 2.0, 2.41);
  EXPECT_NE(second.find("the core clock did not move: the points were set from 1.2 to 2 GHz"), std::string::npos) << second;
  EXPECT_EQ(ignored.add("cpu1.6", 1.6, 2.39), "");  // said once

  ClockWatch working;
  EXPECT_EQ(working.add("cpu1.2", 1.2, 1.21), "");
  EXPECT_EQ(working.add("cpu2.0", 2.0, 1.98), "");
  EXPECT_EQ(working.add("cpu1.6", 1.6, 0), "");  // not measured: nothing to say
}

}  // namespace
}  // namespace hpcsens::sweep
