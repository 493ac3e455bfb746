// The emulated launcher's realism (measured-rate jitter, STREAM that follows the clock, a cache in
// the core clock domain, a bandwidth knee, a clock ceiling): each effect checked against the truth
// the record carries, through make_emulated_record as the sweep calls it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/errors.h"
#include "sweep/execute/emulated.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {
namespace {

SweepSpec realistic_spec() {
  SweepSpec s;
  s.cpu_ghz = {1.2, 1.8, 2.4, 3.0};
  Emulation e;
  e.w_cpu = 60, e.w_mem = 1000, e.t_io = 2, e.seed = 11, e.ranks = 2;
  e.realism.stream_jitter_pct = 1.5;
  e.realism.clock_jitter_pct = 0.004;
  s.emulation = e;
  return s;
}

struct Spread {
  double mean = 0, sd = 0;
};
// Mean and standard deviation of measured/true - 1 over n runs of one point.
Spread relative_error(const SweepSpec& s, double cpu, double mem, const char* rate, int n) {
  double sum = 0, sq = 0;
  for (int i = 0; i < n; ++i) {
    const auto r = make_emulated_record(s, "p00-r" + std::to_string(i), cpu, mem, nlohmann::json::object());
    const double rel = r.config[rate].get<double>() / r.config["emulated_truth"][rate].get<double>() - 1;
    sum += rel, sq += rel * rel;
  }
  const double mean = sum / n;
  return {mean, std::sqrt(sq / n - mean * mean)};
}

TEST(SweepEmulatedRealism, MeasuredRatesJitterByTheSetAmountAroundTheTruth) {
  const SweepSpec s = realistic_spec();
  const Spread mem = relative_error(s, 2.4, 100, "mem_gbs", 3000);
  EXPECT_NEAR(mem.sd, 0.015, 0.015 * 0.06);  // 1.5 % (1 sigma), within sampling error of 3000 draws
  EXPECT_NEAR(mem.mean, 0, 0.001);
  const Spread cpu = relative_error(s, 2.4, 100, "cpu_ghz", 3000);
  EXPECT_NEAR(cpu.sd, 0.00004, 0.00004 * 0.06);  // 0.004 %
  EXPECT_NEAR(cpu.mean, 0, 0.000005);
}

TEST(SweepEmulatedRealism, TheRunUsesTheTrueRatesAndTheRecordSaysWhatWasRequestedAndMeasured) {
  const SweepSpec s = realistic_spec();
  const auto r = make_emulated_record(s, "p03-r2", 2.4, 100, nlohmann::json::object());
  const auto& c = r.config;
  EXPECT_EQ(c["cpu_ghz_requested"], 2.4);
  EXPECT_EQ(c["cpu_ghz_measured"], c["cpu_ghz"]);
  EXPECT_NE(c["cpu_ghz"].get<double>(), 2.4);  // jittered
  EXPECT_NE(c["mem_gbs"].get<double>(), 100.0);
  EXPECT_EQ(c["emulated_truth"]["cpu_ghz"], 2.4);
  EXPECT_EQ(c["emulated_truth"]["mem_gbs"], 100.0);
  EXPECT_EQ(c["emulated_truth"]["realism"]["stream_jitter_pct"], 1.5);
  // Jitter is measurement noise: the time is the model's at the true rates.
  EXPECT_DOUBLE_EQ(r.timing.job_s, 60 / 2.4 + 1000 / 100.0 + 2);
  // Deterministic: the same run id gives the same record, another seed other measurements.
  EXPECT_EQ(make_emulated_record(s, "p03-r2", 2.4, 100, {}).config["mem_gbs"], c["mem_gbs"]);
  SweepSpec other = s;
  other.emulation->seed = 12;
  EXPECT_NE(make_emulated_record(other, "p03-r2", 2.4, 100, {}).config["mem_gbs"], c["mem_gbs"]);
}

TEST(SweepEmulatedRealism, JitterDrawsAreIndependentOfEachOtherAndOfTheTimeNoise) {
  Emulation e;
  e.seed = 5;
  e.realism.stream_jitter_pct = 1, e.realism.clock_jitter_pct = 1;
  double smt = 0, scm = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const std::string id = "r" + std::to_string(i);
    const EmulatedRates r = emulated_rates(e, 2, 100, 2, id);
    const double zm = (r.mem_measured_gbs / 100 - 1) / 0.01, zc = (r.cpu_measured_ghz / 2 - 1) / 0.01;
    smt += zm * emulated_noise(5, id) / n, scm += zc * zm / n;
  }
  EXPECT_NEAR(smt, 0, 0.06);  // correlation of N(0,1) draws, 3000 samples: sd 0.018
  EXPECT_NEAR(scm, 0, 0.06);
}

TEST(SweepEmulatedRealism, StreamFollowsTheClockWeakly) {
  Emulation e;
  e.realism.stream_clock_elasticity = 0.05;
  // The configured bandwidth holds at the top clock; at 1.2 of 3.0 GHz STREAM is (0.4)^0.05 of it.
  EXPECT_DOUBLE_EQ(emulated_rates(e, 3.0, 100, 3.0, "a").mem_true_gbs, 100);
  EXPECT_NEAR(emulated_rates(e, 1.2, 100, 3.0, "a").mem_true_gbs, 100 * std::pow(0.4, 0.05), 1e-9);
  EXPECT_LT(emulated_rates(e, 1.2, 100, 3.0, "a").mem_true_gbs, 96);
  EXPECT_GT(emulated_rates(e, 1.2, 100, 3.0, "a").mem_true_gbs, 95);
}

TEST(SweepEmulatedRealism, RequestsAboveTheCeilingAreNotReached) {
  SweepSpec s = realistic_spec();
  s.cpu_ghz = {2.0, 3.0, 3.6};
  s.emulation->realism.clock_ceiling_ghz = 3.1;
  s.emulation->realism.clock_jitter_pct = 0;
  const auto r = make_emulated_record(s, "p02-r1", 3.6, 100, {});
  EXPECT_EQ(r.config["cpu_ghz_requested"], 3.6);
  EXPECT_EQ(r.config["cpu_ghz_measured"], 3.1);
  EXPECT_EQ(r.config["cpu_ghz"], 3.1);
  EXPECT_DOUBLE_EQ(r.timing.job_s, 60 / 3.1 + 1000 / 100.0 + 2);
  EXPECT_EQ(make_emulated_record(s, "p00-r1", 2.0, 100, {}).config["cpu_ghz"], 2.0);  // below: reached
}

// T against 1/f at three clocks equally spaced in 1/f: a straight line (what cpu+fixed assumes)
// puts the middle time at the mean of the outer two; the cache bends it.
double bend(const Emulation& e) {
  const double x[] = {1 / 1.2, (1 / 1.2 + 1 / 3.0) / 2, 1 / 3.0};
  const double t0 = emulated_time_s(e, 1 / x[0], 100, 0), t1 = emulated_time_s(e, 1 / x[1], 100, 0);
  const double t2 = emulated_time_s(e, 1 / x[2], 100, 0);
  return (t0 + t2) / 2 - t1;
}

TEST(SweepEmulatedRealism, ACacheInTheCoreClockDomainBendsTheCoreClockResponse) {
  Emulation e;
  e.w_cpu = 30, e.w_mem = 500, e.t_io = 1;
  EXPECT_NEAR(bend(e), 0, 1e-12);
  // 300 GB from a 32 B/cycle cache: 7.8 s at 1.2 GHz, 3.1 s at 3 GHz, against 5 s of DRAM time:
  // the cache is exposed at low clocks, DRAM at high ones.
  e.realism.cache_gb = 300;
  e.realism.cache_bytes_per_cycle = 32;
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 1.2, 100, 0), 30 / 1.2 + 300 / (32 * 1.2) + 1);
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3.0, 100, 0), 30 / 3.0 + 500 / 100.0 + 1);
  EXPECT_GT(bend(e), 0.5);  // convex in 1/f: no a/f + b fits all three
}

TEST(SweepEmulatedRealism, MemoryTimeStopsImprovingAboveTheKnee) {
  Emulation e;
  e.w_cpu = 30, e.w_mem = 1000, e.t_io = 0;
  e.realism.knee_gbs = 100;
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3, 150, 0), emulated_time_s(e, 3, 100, 0));
  EXPECT_DOUBLE_EQ(emulated_time_s(e, 3, 50, 0), 10 + 20);
  EXPECT_GT(emulated_time_s(e, 3, 80, 0), emulated_time_s(e, 3, 100, 0));
}

std::string spec_error(const std::string& extra) {
  try {
    parse_spec_text("emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, mem_gbs: 50, " + extra + "}\nknobs: {cpu_ghz: [1, 2]}\n",
                    "emu.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SweepEmulatedRealism, SpecFieldsParseAndBadValuesNameTheField) {
  const auto s = parse_spec_text(
      "emulated: {W_cpu: 60, W_mem: 2000, T_io: 5, mem_gbs: 50, stream_jitter_pct: 1.5, clock_jitter_pct: 0.004,\n"
      "  stream_clock_elasticity: 0.05, cache_gb: 100, cache_bytes_per_cycle: 16, knee_gbs: 80, clock_ceiling_ghz: 2.9}\n"
      "knobs: {cpu_ghz: [1, 2]}\n",
      "emu.yaml");
  const EmulatedRealism& m = s.emulation->realism;
  EXPECT_EQ(m.stream_jitter_pct, 1.5);
  EXPECT_EQ(m.clock_jitter_pct, 0.004);
  EXPECT_EQ(m.stream_clock_elasticity, 0.05);
  EXPECT_EQ(m.cache_gb, 100);
  EXPECT_EQ(m.cache_bytes_per_cycle, 16);
  EXPECT_EQ(m.knee_gbs, 80);
  EXPECT_EQ(m.clock_ceiling_ghz, 2.9);
  EXPECT_EQ(spec_error("stream_jitter_pct: 60"),
            "emu.yaml:1: emulated.stream_jitter_pct: must be within [0, 50] percent, got 60");
  EXPECT_EQ(spec_error("stream_clock_elasticity: 2"),
            "emu.yaml:1: emulated.stream_clock_elasticity: must be within [0, 1] (relative STREAM change per "
            "relative clock change), got 2");
  EXPECT_EQ(spec_error("knee_gbs: 0"), "emu.yaml:1: emulated.knee_gbs: must be within [0.1, 100000] GB/s, got 0");
  EXPECT_EQ(spec_error("clock_ceiling_ghz: 3000"),
            "emu.yaml:1: emulated.clock_ceiling_ghz: must be within [0.1, 10] GHz, got 3000");
  EXPECT_EQ(spec_error("cache_bytes_per_cycle: 0"),
            "emu.yaml:1: emulated.cache_bytes_per_cycle: must be within [0.001, 4096] bytes per cycle, got 0");
}

TEST(SweepEmulatedRealism, TheRealisticExampleParsesWithEveryEffectOn) {
  const auto s = parse_spec_file(std::string(HPCSENS_SOURCE_DIR) + "/examples/sweeps/emulated_realistic.yaml");
  ASSERT_TRUE(s.emulation);
  const EmulatedRealism& m = s.emulation->realism;
  EXPECT_GT(m.stream_jitter_pct, 0);
  EXPECT_GT(m.clock_jitter_pct, 0);
  EXPECT_GT(m.stream_clock_elasticity, 0);
  EXPECT_GT(m.cache_gb, 0);
  EXPECT_TRUE(m.knee_gbs && m.clock_ceiling_ghz);
  // The top request is above the ceiling: the example shows a clock that is not reached.
  EXPECT_GT(*std::max_element(s.cpu_ghz.begin(), s.cpu_ghz.end()), *m.clock_ceiling_ghz);
  // The cache is exposed at the lowest clock and hidden at the top one (the response bends inside the sweep).
  const Emulation& e = *s.emulation;
  const double dram = e.w_mem / *e.mem_gbs;
  EXPECT_GT(m.cache_gb / (m.cache_bytes_per_cycle * s.cpu_ghz.front()), dram);
  EXPECT_LT(m.cache_gb / (m.cache_bytes_per_cycle * *m.clock_ceiling_ghz), dram);
}

}  // namespace
}  // namespace hpcsens::sweep
