// Top-Down through the counter agent's counting branch, against the PAPI TEST DOUBLE
// (fake_papi.c), not PAPI: an AMD CPU identity is injected so the plan is that CPU's table, the
// double knows its events, and every count is the double's script (BASE + PER_RANK * rank). The
// report's Top-Down CSV must equal the formulas applied by hand to the scripted counts (perf's
// amdzen4 pipeline.json formulas for Zen 4; stall-cycle ratios for Zen 3, docs/methodology.md).
// These are checks of the derivation and of the agent's group handling, never measurements.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/papi_double/double_job.h"

namespace {

using hpcsens::test::Job;
using hpcsens::test::PapiDoubleMpirun;
using hpcsens::test::Scripted;
using hpcsens::test::script_lines;

// An empty CSV cell: the metric was not derived.
bool derived(const std::map<std::string, std::string>& row, const std::string& field) {
  return row.count(field) != 0 && !row.at(field).empty();
}

TEST_F(PapiDoubleMpirun, TopDownStallRatiosAreDerivedFromTheDoublesCounts) {
  inject_amd_cpu(0x01);  // Zen 3: the stall-ratio table
  const Scripted cycles{"CYCLES_NOT_IN_HALT", 1'000'000'000, 100'000'000}, inst{"RETIRED_INSTRUCTIONS", 2'000'000'000, 0},
      fe{"UOPS_QUEUE_EMPTY", 100'000'000, 0},
      be1{"DISPATCH_RESOURCE_STALL_CYCLES_1:INT_PHY_REG_FILE_RSRC_STALL:LOAD_QUEUE_RSRC_STALL:STORE_QUEUE_RSRC_STALL:"
          "TAKEN_BRANCH_BUFFER_RSRC_STALL:FP_REG_FILE_RSRC_STALL:FP_SCHEDULER_RSRC_STALL:FP_FLUSH_RECOVERY_STALL",
          200'000'000, 0},
      be2{"DISPATCH_RESOURCE_STALL_CYCLES_2:INT_SCHEDULER_0_TOKEN_STALL:INT_SCHEDULER_1_TOKEN_STALL:"
          "INT_SCHEDULER_2_TOKEN_STALL:INT_SCHEDULER_3_TOKEN_STALL:RETIRE_TOKEN_STALL",
          50'000'000, 150'000'000},
      clock{"perf::TASK-CLOCK", 500'000'000, 0};
  const Job job = run_job(script_lines({cycles, inst, fe, be1, be2, clock}), 2, 0, "--events topdown",
                          "-x HPCSENS_CPU_ROOT");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("event_set"), "topdown-zen3-stalls");
    EXPECT_EQ(r.at("counters_status"), "ok") << r.at("counters_status");
    EXPECT_EQ(r.at("counters").size(), 6u) << r.at("counters");
  }
  const auto rows = csv(job, "topdown");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    const int rank = std::stoi(row.at("rank"));
    const double c = static_cast<double>(cycles.at(rank));
    EXPECT_EQ(row.at("ok"), "true") << row.at("why_not");
    EXPECT_NEAR(std::stod(row.at("frontend_stalls")), fe.at(rank) / c, 1e-6);
    EXPECT_NEAR(std::stod(row.at("backend_stalls")), (be1.at(rank) + be2.at(rank)) / c, 1e-6);
    EXPECT_NEAR(std::stod(row.at("ipc")), inst.at(rank) / c, 1e-6);
    EXPECT_NEAR(std::stod(row.at("ghz")), c / clock.at(rank), 1e-6);
  }
}

// Zen 4: level 1 (7 events) and the level-2 group (6 events).
const Scripted kCycles{"CYCLES_NOT_IN_HALT", 1'000'000'000, 0};  // 6 slots a cycle: 6e9 slots
const Scripted kFeNoOps{"DISPATCH_STALLS_1:FE_NO_OPS", 600'000'000, 60'000'000};
const Scripted kBeStalls{"DISPATCH_STALLS_1:BE_STALLS", 2'400'000'000, 0};
const Scripted kSmt{"DISPATCH_STALLS_1:SMT_CONTENTION", 60'000'000, 0};
const Scripted kDispatched{"OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER", 2'700'000'000, 0};
const Scripted kRetOps{"RETIRED_OPS", 2'400'000'000, -60'000'000};
const Scripted kClock{"perf::TASK-CLOCK", 500'000'000, 0};
const Scripted kInst{"RETIRED_INSTRUCTIONS", 2'000'000'000, 0};
const Scripted kFeLat{"DISPATCH_STALLS_1:FE_NO_OPS:c=6", 50'000'000, 0};
const Scripted kBrMisp{"RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 3'000'000, 0};
const Scripted kResyncs{"RESYNCS", 1'000'000, 0};
const Scripted kNoRetLoad{"CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD", 300'000'000, 0};
const Scripted kNoRetAll{"CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU", 600'000'000, 0};
const std::vector<Scripted> kZen4 = {kCycles, kFeNoOps, kBeStalls, kSmt, kDispatched, kRetOps, kClock,
                                     kInst, kFeLat, kBrMisp, kResyncs, kNoRetLoad, kNoRetAll};

// Level 1 by hand (perf's amdzen4 pipeline.json): fractions of 6 x cycles dispatch slots.
void expect_zen4_level1(const std::map<std::string, std::string>& row) {
  const int r = std::stoi(row.at("rank"));
  const double slots = 6.0 * kCycles.at(r);
  EXPECT_EQ(row.at("ok"), "true") << row.at("why_not");
  EXPECT_NEAR(std::stod(row.at("frontend_bound")), kFeNoOps.at(r) / slots, 1e-6);
  EXPECT_NEAR(std::stod(row.at("backend_bound")), kBeStalls.at(r) / slots, 1e-6);
  EXPECT_NEAR(std::stod(row.at("smt_contention")), kSmt.at(r) / slots, 1e-6);
  EXPECT_NEAR(std::stod(row.at("bad_speculation")), (kDispatched.at(r) - kRetOps.at(r)) / slots, 1e-6);
  EXPECT_NEAR(std::stod(row.at("retiring")), kRetOps.at(r) / slots, 1e-6);
}

TEST_F(PapiDoubleMpirun, TopDownLevel2IsCountedWhereItFitsBesideLevel1) {
  inject_amd_cpu(0x11);  // Zen 4
  const Job job = run_job("counters 13\n" + script_lines(kZen4), 2, 0, "--events topdown", "-x HPCSENS_CPU_ROOT");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("event_set"), "topdown-zen4");
    EXPECT_EQ(r.at("multiplexed"), false);
    EXPECT_EQ(r.at("counters").size(), 13u) << r.at("counters");
  }
  const auto rows = csv(job, "topdown");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    expect_zen4_level1(row);
    const int r = std::stoi(row.at("rank"));
    const double slots = 6.0 * kCycles.at(r), bad = (kDispatched.at(r) - kRetOps.at(r)) / slots;
    const double be = kBeStalls.at(r) / slots, fe = kFeNoOps.at(r) / slots;
    EXPECT_NEAR(std::stod(row.at("fetch_latency")), 6.0 * kFeLat.at(r) / slots, 1e-6);
    EXPECT_NEAR(std::stod(row.at("fetch_bandwidth")), fe - 6.0 * kFeLat.at(r) / slots, 1e-6);
    const double misp = static_cast<double>(kBrMisp.at(r)) / (kBrMisp.at(r) + kResyncs.at(r));
    EXPECT_NEAR(std::stod(row.at("branch_mispredicts")), bad * misp, 1e-6);
    EXPECT_NEAR(std::stod(row.at("machine_clears")), bad * (1 - misp), 1e-6);
    const double mem = static_cast<double>(kNoRetLoad.at(r)) / kNoRetAll.at(r);
    EXPECT_NEAR(std::stod(row.at("memory_bound")), be * mem, 1e-6);
    EXPECT_NEAR(std::stod(row.at("core_bound")), be * (1 - mem), 1e-6);
    EXPECT_NEAR(std::stod(row.at("ipc")), static_cast<double>(kInst.at(r)) / kCycles.at(r), 1e-6);
  }
  // Each Zen 4 event with the unit AMD's PPR gives it (a counter mask ":c=6" counts cycles).
  const std::map<std::string, std::string> unit = {
      {kCycles.name, "cycles"},   {kFeNoOps.name, "slots"},      {kBeStalls.name, "slots"},    {kSmt.name, "slots"},
      {kDispatched.name, "count"}, {kRetOps.name, "count"},       {kClock.name, "ns"},          {kInst.name, "instructions"},
      {kFeLat.name, "cycles"},    {kBrMisp.name, "branches"},    {kResyncs.name, "count"},     {kNoRetLoad.name, "cycles"},
      {kNoRetAll.name, "cycles"}};
  const auto counters = csv(job, "counters");
  ASSERT_EQ(counters.size(), 26u);
  for (const auto& row : counters) {
    EXPECT_EQ(row.at("unit"), unit.at(row.at("counter"))) << row.at("counter");
    const auto e = std::find_if(kZen4.begin(), kZen4.end(), [&](const Scripted& s) { return s.name == row.at("counter"); });
    ASSERT_NE(e, kZen4.end());
    EXPECT_EQ(std::stod(row.at("value")), e->at(std::stoi(row.at("rank"))));
  }
}

TEST_F(PapiDoubleMpirun, TopDownLevel2ThatDoesNotFitIsDroppedNotMultiplexed) {
  inject_amd_cpu(0x11);  // Zen 4; 7 counters hold level 1 and nothing more
  const Job job = run_job("counters 7\n" + script_lines(kZen4), 2, 0, "--events topdown", "-x HPCSENS_CPU_ROOT");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  EXPECT_EQ(job.record.at("counters_status"), "ok");
  EXPECT_NE(job.record.at("preload").at("counters_notes").dump().find(
                "level-2 events RETIRED_INSTRUCTIONS,DISPATCH_STALLS_1:FE_NO_OPS:c=6,"
                "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED,RESYNCS,CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD,"
                "CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU not counted: they do not fit on the counters beside level 1"),
            std::string::npos) << job.record.at("preload").at("counters_notes");
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("multiplexed"), false) << "Top-Down level 1 is never time-sliced";
    EXPECT_EQ(r.at("counters").size(), 7u) << r.at("counters");
  }
  for (const auto& row : csv(job, "topdown")) {
    expect_zen4_level1(row);
    for (const char* f : {"fetch_latency", "branch_mispredicts", "memory_bound", "ipc"})
      EXPECT_FALSE(derived(row, f)) << f << " = " << row.at(f);
  }
}

TEST_F(PapiDoubleMpirun, ARefusedTopDownEventMakesTopDownUnavailableAndSaysWhich) {
  inject_amd_cpu(0x11);
  std::vector<Scripted> events = kZen4;
  events.erase(events.begin() + 2);  // DISPATCH_STALLS_1:BE_STALLS refused instead
  const Job job = run_job("refuse DISPATCH_STALLS_1:BE_STALLS PAPI_ENOEVNT\n" + script_lines(events), 2, 0,
                          "--events topdown", "-x HPCSENS_CPU_ROOT");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  const std::string said = "Top-Down unavailable: DISPATCH_STALLS_1:BE_STALLS not supported [Event does not exist] "
                           "(CPU identity injected by HPCSENS_CPU_ROOT=";
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("counters_status").get<std::string>().rfind(said, 0), 0u) << r.at("counters_status");
    // Nothing counted: level-2 counts are fractions of level-1 slots and mean nothing alone (the
    // agent counted them for the whole run until this test found it).
    EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
  }
  EXPECT_NE(job.record.at("preload").at("counters_notes").dump().find(
                "level-2 events RETIRED_INSTRUCTIONS,DISPATCH_STALLS_1:FE_NO_OPS:c=6,"
                "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED,RESYNCS,CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD,"
                "CYCLES_NO_RETIRE:NOT_COMPLETE_LOAD_AND_ALU not counted: level 1 was refused"),
            std::string::npos) << job.record.at("preload").at("counters_notes");
  for (const auto& row : csv(job, "topdown")) EXPECT_EQ(row.at("ok"), "false");
}

}  // namespace
