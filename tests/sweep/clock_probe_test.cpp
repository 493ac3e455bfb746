// The calibrator's clock: cycles per thread CPU time where the thread's cycle counter works, the
// add chain where it does not, and the method said either way.
#include "sweep/calibrate/clock_probe.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace hpcsens::sweep {
namespace {

// Recorded windows of a 2.6 GHz core whose add chain retires 1.2 adds per cycle (a core that
// folds some adds): the counter's answer is the clock, the chain's would be 20 % high.
TEST(ClockProbe, CyclesPerCpuTimeWhenEveryWindowCounted) {
  std::vector<ClockSample> w;
  const double secs[] = {0.20, 0.21, 0.19, 0.20, 0.22};
  const double ghz[] = {2.6, 2.5, 2.7, 2.55, 2.65};
  for (int i = 0; i < 5; ++i)
    w.push_back({secs[i], std::uint64_t(1.2 * ghz[i] * 1e9 * secs[i]), std::uint64_t(ghz[i] * 1e9 * secs[i])});
  const ClockReading r = clock_from_samples(w, "");
  EXPECT_NEAR(r.ghz, 2.6, 1e-6);  // median of 2.5, 2.55, 2.6, 2.65, 2.7
  EXPECT_EQ(r.method, "cycles");
  EXPECT_NE(r.detail.find("PERF_COUNT_HW_CPU_CYCLES"), std::string::npos) << r.detail;
}

// One window without a count (read failed, or the counter shared the PMU): the whole reading falls
// back to the chain, and says why.
TEST(ClockProbe, AddChainWhenAnyWindowLacksACount) {
  std::vector<ClockSample> w = {{0.25, 500'000'000, 600'000'000}, {0.20, 420'000'000, std::nullopt},
                                {0.20, 380'000'000, 500'000'000}};
  const ClockReading r = clock_from_samples(w, "");
  EXPECT_NEAR(r.ghz, 2.0, 1e-9);  // adds/s: 2.0, 2.1, 1.9 GHz
  EXPECT_EQ(r.method, "add-chain");
  EXPECT_NE(r.detail.find("read failed or was multiplexed"), std::string::npos) << r.detail;
  const ClockReading none = clock_from_samples({{0.5, 1'500'000'000, std::nullopt}},
                                               "perf_event_open(PERF_COUNT_HW_CPU_CYCLES): No such file or directory");
  EXPECT_NEAR(none.ghz, 3.0, 1e-9);
  EXPECT_NE(none.detail.find("No such file or directory"), std::string::npos) << none.detail;
  EXPECT_THROW(clock_from_samples({}, ""), std::invalid_argument);
  EXPECT_THROW(clock_from_samples({{0.0, 10, 10}}, ""), std::invalid_argument);
}

// The real measurement on this thread. Whether this host has a cycle counter is not asserted: the
// method must match what opening the counter says, and turned off it is always the chain.
TEST(ClockProbe, RealMeasurementChoosesTheMethodTheCounterAllows) {
  const ClockReading off = measure_thread_clock(false);
  EXPECT_EQ(off.method, "add-chain");
  EXPECT_NE(off.detail.find("HPCSENS_CLOCK_COUNTER=off"), std::string::npos) << off.detail;
  EXPECT_GT(off.ghz, 0.1);
  EXPECT_LT(off.ghz, 10.0);
  ThreadCycleCounter probe;
  const std::string why = probe.open();
  const ClockReading on = measure_thread_clock(true);
  if (why.empty()) {
    EXPECT_EQ(on.method, "cycles") << on.detail;
  } else {
    EXPECT_EQ(on.method, "add-chain");
    EXPECT_NE(on.detail.find(why), std::string::npos) << on.detail << " / " << why;
  }
  EXPECT_GT(on.ghz, 0.1);
  EXPECT_LT(on.ghz, 10.0);
}

}  // namespace
}  // namespace hpcsens::sweep
