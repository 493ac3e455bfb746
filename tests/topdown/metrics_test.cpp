// Top-Down formulas per microarchitecture. Counter values are round numbers of the size recorded
// on real CPUs (about one second of a busy core); every expected value is worked out by hand in
// the comment next to it from the published formula (perf pmu-events metric files), not by
// calling the code under test.
#include <gtest/gtest.h>

#include "topdown/metrics.h"

using hpcsens::topdown::compute_metrics;
using hpcsens::topdown::flagged_path;
using hpcsens::topdown::Method;
using hpcsens::topdown::path_text;
using hpcsens::topdown::TopdownMetrics;

namespace {
constexpr double kEps = 1e-9;

void expect_value(const std::optional<double>& got, double want, const char* what) {
  ASSERT_TRUE(got.has_value()) << what << " missing";
  EXPECT_NEAR(*got, want, kEps) << what;
}
}  // namespace

TEST(TopdownSkylake, SmtOffLevel1AndLevel2) {
  const std::map<std::string, double> c = {
      {"INST_RETIRED:ANY_P", 1.6e9},
      {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9},
      {"IDQ_UOPS_NOT_DELIVERED:CORE", 4.0e8},
      {"UOPS_ISSUED:ANY", 2.2e9},
      {"UOPS_RETIRED:RETIRE_SLOTS", 2.0e9},
      {"INT_MISC:RECOVERY_CYCLES", 2.5e7},
      {"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 7.5e7},
      {"BR_MISP_RETIRED:ALL_BRANCHES", 9.0e6},
      {"MACHINE_CLEARS:COUNT", 1.0e6},
      {"CYCLE_ACTIVITY:STALLS_MEM_ANY", 3.0e8},
      {"EXE_ACTIVITY:BOUND_ON_STORES", 5.0e7},
      {"CYCLE_ACTIVITY:STALLS_TOTAL", 4.0e8},
      {"EXE_ACTIVITY:1_PORTS_UTIL", 1.0e8},
      {"EXE_ACTIVITY:2_PORTS_UTIL", 1.0e8},
      {"perf::TASK-CLOCK", 4.0e8},  // ns
  };
  const TopdownMetrics m = compute_metrics("topdown-skx", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  EXPECT_TRUE(m.mismeasured.empty());
  // slots = 4 x 1.0e9 = 4.0e9
  expect_value(m.frontend_bound, 0.10, "FE");       // 4.0e8 / 4.0e9
  expect_value(m.bad_speculation, 0.075, "BS");     // (2.2e9 - 2.0e9 + 4 x 2.5e7) / 4e9 = 3e8 / 4e9
  expect_value(m.retiring, 0.50, "RET");            // 2.0e9 / 4.0e9
  expect_value(m.backend_bound, 0.325, "BE");       // 1 - 0.10 - 0.075 - 0.50
  expect_value(m.fetch_latency, 0.075, "FL");       // 4 x 7.5e7 / 4e9
  expect_value(m.fetch_bandwidth, 0.025, "FB");     // 0.10 - 0.075
  expect_value(m.branch_mispredicts, 0.0675, "BM"); // 9e6 / (9e6 + 1e6) x 0.075
  expect_value(m.machine_clears, 0.0075, "MC");     // 0.075 - 0.0675
  // backend cycles = 4e8 + 1e8 + 0.5 x 1e8 + 5e7 = 6e8; memory share = (3e8 + 5e7) / 6e8 = 7/12
  expect_value(m.memory_bound, 0.325 * 7.0 / 12.0, "MEM");  // 0.18958333
  expect_value(m.core_bound, 0.325 * 5.0 / 12.0, "CORE");
  expect_value(m.ipc, 1.6, "IPC");  // 1.6e9 / 1.0e9
  expect_value(m.ghz, 2.5, "GHz");  // 1.0e9 cycles / 4.0e8 ns
  // Only Bad Speculation is above its cookbook range (5 %); its children stay under perf's 10 %,
  // so the path stops at the parent.
  EXPECT_EQ(path_text(flagged_path(m)), "Bad Speculation");
}

TEST(TopdownSkylake, SmtOnHalvesAnyThreadCounts) {
  const std::map<std::string, double> c = {
      {"INST_RETIRED:ANY_P", 1.2e9},
      {"CPU_CLK_UNHALTED:THREAD_P:t=1", 2.0e9},  // both threads: core clocks = 1.0e9
      {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9},
      {"IDQ_UOPS_NOT_DELIVERED:CORE", 6.0e8},
      {"UOPS_ISSUED:ANY", 1.9e9},
      {"UOPS_RETIRED:RETIRE_SLOTS", 1.6e9},
      {"INT_MISC:RECOVERY_CYCLES_ANY", 1.0e8},  // halved: 5e7
  };
  const TopdownMetrics m = compute_metrics("topdown-skx-smt", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  // slots = 4 x (2.0e9 / 2) = 4.0e9
  expect_value(m.frontend_bound, 0.15, "FE");    // 6e8 / 4e9
  expect_value(m.bad_speculation, 0.125, "BS");  // (1.9e9 - 1.6e9 + 4 x 5e7) / 4e9 = 5e8 / 4e9
  expect_value(m.retiring, 0.40, "RET");         // 1.6e9 / 4e9
  expect_value(m.backend_bound, 0.325, "BE");    // 1 - 0.15 - 0.125 - 0.40
  expect_value(m.ipc, 1.2, "IPC");               // per-thread: 1.2e9 / 1.0e9
  EXPECT_FALSE(m.memory_bound.has_value());      // level-2 backend events not recorded
  // FE exceeds 10 % by 5 points, BS exceeds 5 % by 7.5 points: Bad Speculation leads.
  EXPECT_EQ(path_text(flagged_path(m)), "Bad Speculation");
}

TEST(TopdownIceLake, GeneralPurposeSlotEvents) {
  // perf icx-metrics.json: Backend takes 5 slots per clear (INT_MISC.CLEARS_COUNT), Bad
  // Speculation is max(1 - the other three, 0) and splits by mispredicts vs machine clears.
  const std::map<std::string, double> c = {
      {"icx::TOPDOWN:SLOTS", 5.0e9},  // PMU prefix is ignored
      {"UOPS_RETIRED:SLOTS", 1.5e9},
      {"IDQ_UOPS_NOT_DELIVERED:CORE", 6.0e8},
      {"INT_MISC:UOP_DROPPING", 1.0e8},
      {"perf_raw::r02a4", 2.0e9},  // TOPDOWN.BACKEND_BOUND_SLOTS, raw: the prefix is kept
      {"INT_MISC:CLEARS_COUNT", 1.0e7},
      {"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 1.0e8},
      {"BR_MISP_RETIRED:ALL_BRANCHES", 9.0e6},
      {"MACHINE_CLEARS:COUNT", 1.0e6},
      {"CYCLE_ACTIVITY:STALLS_MEM_ANY", 5.0e8},
      {"EXE_ACTIVITY:BOUND_ON_STORES", 1.0e8},
      {"CYCLE_ACTIVITY:STALLS_TOTAL", 7.0e8},
      {"EXE_ACTIVITY:1_PORTS_UTIL", 1.0e8},
      {"EXE_ACTIVITY:2_PORTS_UTIL", 2.0e8},
  };
  const TopdownMetrics m = compute_metrics("topdown-icx", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  EXPECT_FALSE(m.from_perf_metrics);
  expect_value(m.retiring, 0.30, "RET");        // 1.5e9 / 5e9
  expect_value(m.frontend_bound, 0.10, "FE");   // 6e8 / 5e9 - 1e8 / 5e9
  expect_value(m.backend_bound, 0.41, "BE");    // 2e9 / 5e9 + 5 x 1e7 / 5e9
  expect_value(m.bad_speculation, 0.19, "BS");  // max(1 - 0.30 - 0.10 - 0.41, 0)
  expect_value(m.fetch_latency, 0.08, "FL");    // (5 x 1e8 - 1e8) / 5e9
  expect_value(m.fetch_bandwidth, 0.02, "FB");  // max(0, 0.10 - 0.08)
  expect_value(m.branch_mispredicts, 0.171, "BM");  // 9e6 / (9e6 + 1e6) x 0.19
  expect_value(m.machine_clears, 0.019, "MC");      // 0.19 - 0.171
  // backend cycles = 7e8 + 1e8 + 0.30 x 2e8 + 1e8 = 9.6e8; share = 6e8 / 9.6e8 = 0.625
  expect_value(m.memory_bound, 0.25625, "MEM");  // 0.625 x 0.41
  expect_value(m.core_bound, 0.15375, "CORE");
  // Bad Speculation exceeds 5 % by 14 points, Backend 40 % by 1: Bad Speculation > Mispredicts.
  EXPECT_EQ(path_text(flagged_path(m)), "Bad Speculation > Branch Mispredicts");
}

TEST(TopdownIceLake, RecordWithoutClearsCountIsNotComputed) {
  // Without INT_MISC.CLEARS_COUNT Backend would be short of perf's by 5 slots per clear.
  const TopdownMetrics m = compute_metrics(
      "topdown-icx", {{"TOPDOWN:SLOTS", 5.0e9}, {"UOPS_RETIRED:SLOTS", 1.5e9}, {"IDQ_UOPS_NOT_DELIVERED:CORE", 6.0e8},
                      {"INT_MISC:UOP_DROPPING", 1.0e8}, {"perf_raw::r02a4", 2.0e9}});
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.why_not.find("INT_MISC:CLEARS_COUNT"), std::string::npos) << m.why_not;
}

TEST(TopdownIceLake, PerfMetricsPseudoEvents) {
  const std::map<std::string, double> c = {
      {"TOPDOWN:SLOTS", 5.0e9},         {"INT_MISC:UOP_DROPPING", 1.0e8},
      {"topdown-retiring", 2.0e9},      {"topdown-bad-spec", 5.0e8},
      {"topdown-fe-bound", 1.0e9},      {"topdown-be-bound", 1.5e9},
      {"INT_MISC:CLEARS_COUNT", 1.0e7},
  };
  const TopdownMetrics m = compute_metrics("topdown-icx", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  EXPECT_TRUE(m.from_perf_metrics);
  // sum of the four = 5e9
  expect_value(m.retiring, 0.40, "RET");         // 2e9 / 5e9
  expect_value(m.frontend_bound, 0.18, "FE");    // 1e9 / 5e9 - 1e8 / 5e9
  expect_value(m.backend_bound, 0.31, "BE");     // 1.5e9 / 5e9 + 5 x 1e7 / 5e9
  // perf: max(1 - FE - BE - RET, 0), not topdown-bad-spec's own 0.10
  expect_value(m.bad_speculation, 0.11, "BS");
}

TEST(TopdownSapphireRapids, SlotEventsLevel2) {
  const std::map<std::string, double> c = {
      {"TOPDOWN:SLOTS", 6.0e9},
      {"UOPS_RETIRED:SLOTS", 2.4e9},
      {"IDQ_UOPS_NOT_DELIVERED:CORE", 9.0e8},
      {"INT_MISC:UOP_DROPPING", 3.0e8},
      {"perf_raw::r02a4", 2.7e9},  // TOPDOWN.BACKEND_BOUND_SLOTS
      {"perf_raw::r10a4", 1.8e9},  // TOPDOWN.MEMORY_BOUND_SLOTS
      {"perf_raw::r08a4", 2.4e8},  // TOPDOWN.BR_MISPREDICT_SLOTS
      {"IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 1.5e8},
      {"INST_RETIRED:ANY_P", 3.0e9},
      {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9},
  };
  const TopdownMetrics m = compute_metrics("topdown-spr", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  expect_value(m.retiring, 0.40, "RET");          // 2.4e9 / 6e9
  expect_value(m.bad_speculation, 0.05, "BS");    // max(1 - 0.40 - 0.10 - 0.45, 0)
  expect_value(m.frontend_bound, 0.10, "FE");     // (9e8 - 3e8) / 6e9
  expect_value(m.backend_bound, 0.45, "BE");      // 2.7e9 / 6e9
  expect_value(m.memory_bound, 0.30, "MEM");      // 1.8e9 / 6e9
  expect_value(m.core_bound, 0.15, "CORE");       // 0.45 - 0.30
  expect_value(m.branch_mispredicts, 0.04, "BM"); // 2.4e8 / 6e9
  expect_value(m.machine_clears, 0.01, "MC");     // max(0, 0.05 - 0.04)
  expect_value(m.fetch_latency, 0.10, "FL");      // (6 x 1.5e8 - 3e8) / 6e9
  expect_value(m.ipc, 3.0, "IPC");
  EXPECT_EQ(path_text(flagged_path(m)), "Backend > Memory");
}

TEST(TopdownZen4, DispatchSlots) {
  const std::map<std::string, double> c = {
      {"CYCLES_NOT_IN_HALT", 1.0e9},
      {"DISPATCH_STALLS_1:FE_NO_OPS", 6.0e8},
      {"DISPATCH_STALLS_1:BE_STALLS", 2.7e9},
      {"DISPATCH_STALLS_1:SMT_CONTENTION", 6.0e7},
      {"OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 2.64e9},
      {"RETIRED_OPS", 2.34e9},
      {"RETIRED_INSTRUCTIONS", 2.0e9},
      {"DISPATCH_STALLS_1:FE_NO_OPS:c=6", 5.0e7},
      {"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 3.0e6},
      {"RESYNCS", 1.0e6},
      {"CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD", 6.0e8},
      {"CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU", 8.0e8},
  };
  const TopdownMetrics m = compute_metrics("topdown-zen4", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  EXPECT_TRUE(m.mismeasured.empty());
  // slots = 6 x 1e9 = 6e9
  expect_value(m.frontend_bound, 0.10, "FE");      // 6e8 / 6e9
  expect_value(m.backend_bound, 0.45, "BE");       // 2.7e9 / 6e9
  expect_value(m.smt_contention, 0.01, "SMT");     // 6e7 / 6e9
  expect_value(m.bad_speculation, 0.05, "BS");     // (2.64e9 - 2.34e9) / 6e9
  expect_value(m.retiring, 0.39, "RET");           // 2.34e9 / 6e9
  expect_value(m.fetch_latency, 0.05, "FL");       // 6 x 5e7 / 6e9
  expect_value(m.fetch_bandwidth, 0.05, "FB");     // 0.10 - 0.05
  expect_value(m.branch_mispredicts, 0.0375, "BM");// 0.05 x 3e6 / (3e6 + 1e6)
  expect_value(m.memory_bound, 0.3375, "MEM");     // 0.45 x 6e8 / 8e8
  expect_value(m.core_bound, 0.1125, "CORE");
  expect_value(m.ipc, 2.0, "IPC");
  EXPECT_EQ(path_text(flagged_path(m)), "Backend > Memory");
}

TEST(TopdownNeoverse, V1Slots) {
  const std::map<std::string, double> c = {
      {"CPU_CYCLES", 1.0e9},          {"STALL_SLOT", 4.0e9},
      {"STALL_SLOT_FRONTEND", 1.6e9}, {"STALL_SLOT_BACKEND", 2.4e9},
      {"OP_SPEC", 4.0e9},             {"OP_RETIRED", 3.6e9},
      {"BR_MIS_PRED", 1.0e7},         {"INST_RETIRED", 2.5e9},
  };
  const TopdownMetrics m = compute_metrics("topdown-v1", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  // slots = 8 x 1e9; issued share = 1 - 4e9/8e9 = 0.5; useful = 3.6e9/4e9 = 0.9;
  // V1 mispredict term = 4 x 1e7 / 1e9 = 0.04
  expect_value(m.frontend_bound, 0.16, "FE");   // 1.6e9/8e9 - 0.04
  expect_value(m.bad_speculation, 0.09, "BS");  // (1 - 0.9) x 0.5 + 0.04
  expect_value(m.retiring, 0.45, "RET");        // 0.9 x 0.5
  expect_value(m.backend_bound, 0.30, "BE");    // 2.4e9 / 8e9
  expect_value(m.ipc, 2.5, "IPC");
  EXPECT_EQ(path_text(flagged_path(m)), "Frontend");  // FE 16 % > 10 %; BS 9 % > 5 % by less
}

TEST(TopdownNeoverse, V2MovesMispredictSlotsFromFrontendAndBackend) {
  const std::map<std::string, double> c = {
      {"CPU_CYCLES", 1.0e9},          {"STALL_SLOT", 4.0e9},
      {"STALL_SLOT_FRONTEND", 1.6e9}, {"STALL_SLOT_BACKEND", 2.4e9},
      {"OP_SPEC", 4.0e9},             {"OP_RETIRED", 3.6e9},
      {"BR_MIS_PRED", 1.0e7},
  };
  const TopdownMetrics m = compute_metrics("topdown-v2", c);
  ASSERT_TRUE(m.ok) << m.why_not;
  // Arm V2 telemetry specification: BR_MIS_PRED / cycles = 0.01 leaves Frontend once and
  // Backend three times, and Bad Speculation gains 4 x 0.01.
  expect_value(m.frontend_bound, 0.19, "FE");   // 1.6e9/8e9 - 0.01
  expect_value(m.backend_bound, 0.27, "BE");    // 2.4e9/8e9 - 0.03
  expect_value(m.bad_speculation, 0.09, "BS");  // (1 - 0.9) x 0.5 + 0.04
  expect_value(m.retiring, 0.45, "RET");        // 0.9 x 0.5
}

TEST(TopdownStallRatios, Zen3AndNeoverseN1AreLabelledStallRatios) {
  const TopdownMetrics z3 = compute_metrics(
      "topdown-zen3-stalls",
      {{"CYCLES_NOT_IN_HALT", 1.0e9},
       {"RETIRED_INSTRUCTIONS", 1.5e9},
       {"UOPS_QUEUE_EMPTY", 1.0e8},
       {"DISPATCH_RESOURCE_STALL_CYCLES_1:INT_PHY_REG_FILE_RSRC_STALL:LOAD_QUEUE_RSRC_STALL:"
        "STORE_QUEUE_RSRC_STALL:TAKEN_BRANCH_BUFFER_RSRC_STALL:FP_REG_FILE_RSRC_STALL:"
        "FP_SCHEDULER_RSRC_STALL:FP_FLUSH_RECOVERY_STALL",
        5.0e8},
       {"DISPATCH_RESOURCE_STALL_CYCLES_2:INT_SCHEDULER_0_TOKEN_STALL:INT_SCHEDULER_1_TOKEN_STALL:"
        "INT_SCHEDULER_2_TOKEN_STALL:INT_SCHEDULER_3_TOKEN_STALL:RETIRE_TOKEN_STALL",
        1.0e8}});
  ASSERT_TRUE(z3.ok) << z3.why_not;
  EXPECT_EQ(z3.method, Method::kStallRatios);
  EXPECT_FALSE(z3.retiring.has_value());  // no slot breakdown is invented
  expect_value(z3.frontend_stalls, 0.10, "FE stalls");  // 1e8 / 1e9
  expect_value(z3.backend_stalls, 0.60, "BE stalls");   // (PMCx0AE 5e8 + PMCx0AF 1e8) / 1e9
  EXPECT_EQ(path_text(flagged_path(z3)), "Backend stalls");

  const TopdownMetrics n1 = compute_metrics(
      "topdown-n1-stalls",
      {{"CPU_CYCLES", 1.0e9}, {"INST_RETIRED", 1.0e9}, {"STALL_FRONTEND", 2.0e8}, {"STALL_BACKEND", 3.0e8}});
  ASSERT_TRUE(n1.ok);
  expect_value(n1.frontend_stalls, 0.20, "FE stalls");
  expect_value(n1.backend_stalls, 0.30, "BE stalls");
  EXPECT_EQ(path_text(flagged_path(n1)), "Frontend stalls");
}

TEST(TopdownMismeasured, NegativeBackendIsNotReportedAsTruth) {
  // Multiplexing skew: issued uops far above retired ones. slots = 4e9;
  // FE = 1e9/4e9 = 0.25, BS = (4e9 - 2e9 + 4 x 1e8)/4e9 = 0.60, RET = 0.50, BE = 1 - 1.35 = -0.35.
  const std::map<std::string, double> c = {
      {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9}, {"IDQ_UOPS_NOT_DELIVERED:CORE", 1.0e9},
      {"UOPS_ISSUED:ANY", 4.0e9},           {"UOPS_RETIRED:RETIRE_SLOTS", 2.0e9},
      {"INT_MISC:RECOVERY_CYCLES", 1.0e8},
  };
  const TopdownMetrics m = compute_metrics("topdown-skx", c);
  ASSERT_TRUE(m.ok);
  ASSERT_EQ(m.mismeasured.size(), 1u);
  EXPECT_EQ(m.mismeasured[0], "Backend Bound = -0.350");
  EXPECT_TRUE(flagged_path(m).empty());  // no verdict from impossible numbers
}

TEST(TopdownMismeasured, SmallOvershootIsTolerated) {
  // FE = 4.1e9 / 4e9 = 1.025: inside the 0.05 tolerance, so not mismeasured (clamped for display).
  const TopdownMetrics m = compute_metrics(
      "topdown-skx", {{"CPU_CLK_UNHALTED:THREAD_P", 1.0e9}, {"IDQ_UOPS_NOT_DELIVERED:CORE", 4.1e9},
                      {"UOPS_ISSUED:ANY", 0}, {"UOPS_RETIRED:RETIRE_SLOTS", 0}, {"INT_MISC:RECOVERY_CYCLES", 0}});
  ASSERT_TRUE(m.ok);
  EXPECT_TRUE(m.mismeasured.empty());
}

TEST(TopdownMismeasured, LevelOneSumFarFromOne) {
  // Zen 4 with retired ops double the dispatched ones: RET = 4e9/6e9, BS = -2e9/6e9 = -0.333.
  const TopdownMetrics m = compute_metrics(
      "topdown-zen4", {{"CYCLES_NOT_IN_HALT", 1.0e9},
                       {"DISPATCH_STALLS_1:FE_NO_OPS", 0},
                       {"DISPATCH_STALLS_1:BE_STALLS", 0},
                       {"DISPATCH_STALLS_1:SMT_CONTENTION", 0},
                       {"OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 2.0e9},
                       {"RETIRED_OPS", 4.0e9}});
  ASSERT_TRUE(m.ok);
  EXPECT_FALSE(m.mismeasured.empty());
}

TEST(TopdownMissing, ReportsWhichEventsAreMissing) {
  const TopdownMetrics m = compute_metrics("topdown-skx", {{"CPU_CLK_UNHALTED:THREAD_P", 1e9}});
  EXPECT_FALSE(m.ok);
  EXPECT_NE(m.why_not.find("UOPS_ISSUED:ANY"), std::string::npos) << m.why_not;
  const TopdownMetrics d = compute_metrics("default", {{"PAPI_TOT_CYC", 1e9}});
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.why_not.find("not a Top-Down set"), std::string::npos);
}

TEST(TopdownHierarchy, ChildShownOnlyUnderFlaggedParent) {
  TopdownMetrics m;
  m.ok = true;
  m.retiring = 0.58;
  m.bad_speculation = 0.02;
  m.frontend_bound = 0.05;
  m.backend_bound = 0.35;  // inside the HPC range (20-40 %): not flagged
  m.memory_bound = 0.30;   // above perf's 20 %, but its parent is not flagged
  m.core_bound = 0.05;
  EXPECT_TRUE(flagged_path(m).empty());
  m.backend_bound = 0.50;
  m.retiring = 0.43;
  m.memory_bound = 0.15;  // parent flagged, child under its threshold: path stops at the parent
  m.core_bound = 0.35;
  EXPECT_EQ(path_text(flagged_path(m)), "Backend > Core");
  m.core_bound = 0.05;
  m.memory_bound = 0.15;
  EXPECT_EQ(path_text(flagged_path(m)), "Backend");
}

TEST(TopdownMultiplexed, RemainderOfTimeSlicedCountsIsRefusedWithItsReason) {
  // Skylake's Backend Bound is 1 - the others: a 40 % skew of one multiplexed input moves it by
  // tens of points, so a multiplexed rank gets no breakdown, only the reason.
  std::map<std::string, double> c = {
      {"CPU_CLK_UNHALTED:THREAD_P", 1.0e9}, {"IDQ_UOPS_NOT_DELIVERED:CORE", 4.0e8},
      {"UOPS_ISSUED:ANY", 2.2e9},           {"UOPS_RETIRED:RETIRE_SLOTS", 2.0e9},
      {"INT_MISC:RECOVERY_CYCLES", 2.5e7},
  };
  TopdownMetrics m = compute_metrics("topdown-skx", c);
  ASSERT_TRUE(m.ok && m.mismeasured.empty());
  EXPECT_STREQ(m.remainder, "Backend Bound");
  hpcsens::topdown::refuse_multiplexed_remainder(m);
  ASSERT_EQ(m.mismeasured.size(), 1u);
  EXPECT_EQ(m.mismeasured[0], "Backend Bound is what multiplexed (time-sliced) counts leave: not reliable");
  EXPECT_TRUE(flagged_path(m).empty());

  // Zen 4 measures every level-1 node: multiplexing leaves it as it is.
  TopdownMetrics zen = compute_metrics(
      "topdown-zen4", {{"CYCLES_NOT_IN_HALT", 1e9}, {"DISPATCH_STALLS_1:FE_NO_OPS", 6e8},
                       {"DISPATCH_STALLS_1:BE_STALLS", 2.7e9}, {"DISPATCH_STALLS_1:SMT_CONTENTION", 6e7},
                       {"OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 2.64e9},
                       {"RETIRED_OPS", 2.34e9}});
  ASSERT_TRUE(zen.ok);
  hpcsens::topdown::refuse_multiplexed_remainder(zen);
  EXPECT_TRUE(zen.mismeasured.empty());
}

TEST(TopdownFailedCounters, NoRatesFromASessionThatFailed) {
  // Every count arrived, but the session failed (e.g. a required event was refused on another
  // rank's agent, or reading at stop failed): what arrived is not trusted.
  TopdownMetrics m = compute_metrics(
      "topdown-skx", {{"INST_RETIRED:ANY_P", 1e9}, {"CPU_CLK_UNHALTED:THREAD_P", 1e9}, {"perf::TASK-CLOCK", 5e8},
                      {"IDQ_UOPS_NOT_DELIVERED:CORE", 4e8}, {"UOPS_ISSUED:ANY", 2.2e9},
                      {"UOPS_RETIRED:RETIRE_SLOTS", 2e9}, {"INT_MISC:RECOVERY_CYCLES", 2.5e7}});
  ASSERT_TRUE(m.ok && m.ipc.has_value() && m.retiring.has_value());  // computed from what arrived...
  hpcsens::topdown::mark_counters_failed(m, "Top-Down unavailable: UOPS_ISSUED:ANY not supported");
  EXPECT_FALSE(m.ok);
  EXPECT_FALSE(m.ipc.has_value());  // ...but not shown for a failed session
  EXPECT_FALSE(m.ghz.has_value());
  EXPECT_FALSE(m.retiring.has_value());
  EXPECT_EQ(m.why_not, "Top-Down unavailable: UOPS_ISSUED:ANY not supported");
}
