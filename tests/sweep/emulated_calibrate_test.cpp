// Emulated launcher formulas and calibration helpers (cache sizes, array sizing, output parsing).
#include <gtest/gtest.h>

#include <cmath>

#include "fake_sysfs.h"
#include "sweep/calibrate/calibrate.h"
#include "sweep/execute/emulated.h"
#include "sweep/execute/progress.h"

namespace hpcsens::sweep {
namespace {

TEST(SweepEmulated, TimeIsTheSumBlendedTowardsTheMaxByOverlap) {
  Emulation e;
  e.w_cpu = 60;   // 20 s at 3 GHz
  e.w_mem = 500;  // 5 s at 100 GB/s
  e.t_io = 2;
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3.0, 100.0, 0.0), 27.0);
  e.overlap = 1.0;
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3.0, 100.0, 0.0), 20.0);
  e.overlap = 0.5;
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3.0, 100.0, 0.0), 23.5);
  e.overlap = 0;
  e.noise_pct = 2;
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3.0, 100.0, 1.0), 27.0 * 1.02);
}

TEST(SweepEmulated, NoiseIsDeterministicPerRunAndRoughlyStandardNormal) {
  EXPECT_EQ(emulated_noise(7, "p01-r2"), emulated_noise(7, "p01-r2"));
  EXPECT_NE(emulated_noise(7, "p01-r2"), emulated_noise(7, "p01-r3"));
  EXPECT_NE(emulated_noise(7, "p01-r2"), emulated_noise(8, "p01-r2"));
  double sum = 0, sq = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    const double z = emulated_noise(1, "r" + std::to_string(i));
    sum += z;
    sq += z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.08);
  EXPECT_NEAR(std::sqrt(sq / n), 1.0, 0.08);
}

TEST(SweepEmulated, RecordSaysEmulatedEverywhere) {
  SweepSpec s;
  s.emulation = Emulation{10, 100, 1, 0, 0, 3, 2, std::nullopt};
  const auto r = make_emulated_record(s, "p00-r1", 2.0, 50.0, {{"label", "x"}});
  EXPECT_TRUE(r.emulated);
  EXPECT_EQ(r.job.launcher, "emulated");
  EXPECT_EQ(r.config["cpu_ghz_source"], "emulated");
  EXPECT_EQ(r.config["mem_gbs_source"], "emulated");
  EXPECT_EQ(r.config["label"], "x");
  EXPECT_DOUBLE_EQ(r.timing.job_s, 5 + 2 + 1);
  EXPECT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(record::to_json(r)["emulated"], true);
}

TEST(SweepCalibrate, CacheSizesAndTheLastLevelCountedOncePerInstance) {
  EXPECT_EQ(parse_cache_size("32K"), 32u << 10);
  EXPECT_EQ(parse_cache_size("48M"), 48u << 20);
  EXPECT_EQ(parse_cache_size("1024"), 1024u);
  EXPECT_EQ(parse_cache_size("x"), 0u);
  testing::TempDir t;
  // 4 CPUs, two L3 instances of 16 MiB each shared by cpu0-1 and cpu2-3, private L2s.
  for (int c = 0; c < 4; ++c) {
    const std::string d = t.path() + "/devices/system/cpu/cpu" + std::to_string(c) + "/cache/";
    testing::put(d + "index2/level", "2");
    testing::put(d + "index2/type", "Unified");
    testing::put(d + "index2/size", "2048K");
    testing::put(d + "index2/shared_cpu_list", std::to_string(c));
    testing::put(d + "index3/level", "3");
    testing::put(d + "index3/type", "Unified");
    testing::put(d + "index3/size", "16384K");
    testing::put(d + "index3/shared_cpu_list", c < 2 ? "0-1" : "2-3");
  }
  testing::put(t.path() + "/devices/system/cpu/cpufreq/policy0/x", "not a cpu dir");
  EXPECT_EQ(llc_total_bytes(t.path()), 32ull << 20);
}

TEST(SweepCalibrate, ArraysAreFourTimesTheLlcCappedByMemory) {
  Calibration c;
  auto a = stream_array_size(c, 32ull << 20, 64ull << 30);
  EXPECT_EQ(a.bytes, 128ull << 20);
  EXPECT_TRUE(a.meets_4x_llc);
  a = stream_array_size(c, 480ull << 20, 8ull << 30);  // a VM reporting a huge LLC
  EXPECT_EQ(a.bytes, (8ull << 30) / 12);
  EXPECT_FALSE(a.meets_4x_llc);
  EXPECT_NE(a.note.find("capped"), std::string::npos);
  c.stream_array_mb = 64;
  a = stream_array_size(c, 32ull << 20, 64ull << 30);
  EXPECT_EQ(a.bytes, 64ull << 20);
  EXPECT_FALSE(a.meets_4x_llc);
}

TEST(SweepCalibrate, ParsesTheCalibratorLineAmongOtherOutput) {
  const auto j = parse_calibrator_output("warning: something\n{\"triad_gbs\": 12.5, \"ranks\": 4}\n");
  EXPECT_EQ(j["triad_gbs"], 12.5);
  EXPECT_THROW(parse_calibrator_output("no json here\n"), std::runtime_error);
}

TEST(SweepProgress, BarAndEta) {
  EXPECT_EQ(Progress::render(0, 4, 0, 0, 8), "[--------] 0/4   0%  ETA --:--");
  EXPECT_EQ(Progress::render(1, 4, 10, 1, 8), "[##------] 1/4  25%  ETA 0:30");
  EXPECT_EQ(Progress::render(4, 4, 75, 4, 8), "[########] 4/4 100%  done in 1:15");
}

}  // namespace
}  // namespace hpcsens::sweep
