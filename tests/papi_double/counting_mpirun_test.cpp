// The counter agent's COUNTING branch end to end, against the PAPI TEST DOUBLE (fake_papi.c),
// not PAPI: every counter value below is the double's script (BASE + PER_RANK * rank), never a
// measurement. `hpcsens run -- mpirun -np N` with the double's directory first in the ranks'
// LD_LIBRARY_PATH (the node's counter agent inherits it and loads the double as libpapi.so.7.0).
// Checked: each rank's record holds exactly its own scripted values, the multiplexed flag, event
// names and units, refusals named with PAPI's reason, a failed
// stop, the job's output and exit status untouched, and that the agent broke no PAPI rule and
// left no event set behind (the double's log).
#include <algorithm>
#include <map>
#include <set>
#include <sstream>
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

const std::vector<Scripted> kDefaultSet = {{"perf::TASK-CLOCK", 1'000'000, 1'000},
                                           {"perf::CONTEXT-SWITCHES:k=1", 7, 2},
                                           {"PAPI_TOT_CYC", 3'000'000, 100'000},
                                           {"PAPI_TOT_INS", 2'000'000, -50'000}};

TEST_F(PapiDoubleMpirun, EachRanksRecordHoldsExactlyTheDoublesValuesForThatRank) {
  const Job job = run_job("counters 8\n" + script_lines(kDefaultSet), 4, 0);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 4, 0);
  expect_papi_rules_kept(job);
  EXPECT_EQ(job.record.at("counters_status"), "ok") << job.err;
  EXPECT_EQ(job.err.find("hpcsens: warning: counters"), std::string::npos) << job.err;
  ASSERT_EQ(job.record.at("ranks").size(), 4u);
  for (const auto& r : job.record.at("ranks")) {
    const int rank = r.at("rank");
    EXPECT_EQ(r.at("counters_status"), "ok");
    EXPECT_EQ(r.at("event_set"), "default");
    EXPECT_EQ(r.at("multiplexed"), false) << "4 events fit the double's 8 counters";
    ASSERT_EQ(r.at("counters").size(), kDefaultSet.size()) << r.at("counters");
    for (const auto& e : kDefaultSet) EXPECT_EQ(r.at("counters").at(e.name).get<double>(), e.at(rank)) << e.name;
    // A set the double did not multiplex and whose stop read back: a pinned group, counted
    // whenever the thread ran (issue 29), unless this host has two core PMUs (hybrid).
    const std::string why = r.at("counter_running_fraction_reason");
    if (why.rfind("hybrid CPU", 0) == 0) {
      EXPECT_TRUE(r.at("counter_running_fraction").is_null()) << r;
    } else {
      EXPECT_EQ(why.rfind("pinned group: ", 0), 0u) << why;
      for (const auto& e : kDefaultSet) EXPECT_EQ(r.at("counter_running_fraction").at(e.name), 1.0) << e.name;
    }
  }
  // One counting stop per rank, each naming that rank (trial sets in prepare stop too), all made
  // by the node's one agent.
  std::set<std::string> agents;
  std::istringstream lines(job.log);
  for (std::string line; std::getline(lines, line);) agents.insert(line.substr(0, line.find(':')));
  EXPECT_EQ(agents.size(), 1u) << job.log;
  EXPECT_EQ(job.record.at("preload").at("counter_agent_ranks"), 4);
  for (int rank = 0; rank < 4; ++rank)
    EXPECT_NE(job.log.find("rank " + std::to_string(rank) + " events 4 multiplexed 0"), std::string::npos) << job.log;
  // The report's counters table: the same values, names and units.
  const std::map<std::string, std::string> unit = {{"perf::TASK-CLOCK", "ns"},
                                                   {"perf::CONTEXT-SWITCHES:k=1", "switches"},
                                                   {"PAPI_TOT_CYC", "cycles"},
                                                   {"PAPI_TOT_INS", "instructions"}};
  const auto rows = csv(job, "counters");
  ASSERT_EQ(rows.size(), 16u);
  for (const auto& row : rows) {
    const auto e = std::find_if(kDefaultSet.begin(), kDefaultSet.end(), [&](const Scripted& s) { return s.name == row.at("counter"); });
    ASSERT_NE(e, kDefaultSet.end()) << row.at("counter");
    EXPECT_EQ(std::stod(row.at("value")), e->at(std::stoi(row.at("rank"))));
    EXPECT_EQ(row.at("multiplexed"), "false");
    EXPECT_EQ(row.at("unit"), unit.at(e->name));
  }
}

TEST_F(PapiDoubleMpirun, GroupsThatDoNotFitTogetherAreMultiplexedAndMarked) {
  // Two counters: each group of the default set fits alone, all four events do not.
  const Job job = run_job("counters 2\n" + script_lines(kDefaultSet), 2, 0);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("multiplexed"), true) << r;
    EXPECT_EQ(r.at("counters_status"), "ok");
    for (const auto& e : kDefaultSet) EXPECT_EQ(r.at("counters").at(e.name).get<double>(), e.at(r.at("rank"))) << e.name;
    // PAPI scales multiplexed counts inside PAPI_stop and returns no fraction (issue 29).
    EXPECT_TRUE(r.at("counter_running_fraction").is_null()) << r;
    EXPECT_EQ(r.at("counter_running_fraction_reason").get<std::string>().rfind("multiplexed: ", 0), 0u) << r;
  }
  for (const auto& row : csv(job, "counters")) EXPECT_EQ(row.at("multiplexed"), "true");
}

TEST_F(PapiDoubleMpirun, RefusedOptionalEventsAreNamedWithPapisReason) {
  const Job job = run_job("counters 8\nevent perf::TASK-CLOCK 1000000 1000\nrefuse perf::CONTEXT-SWITCHES:k=1 PAPI_EPERM\n"
                          "refuse PAPI_TOT_CYC PAPI_ECNFLCT\nevent PAPI_TOT_INS 1 1\n",
                          2, 3);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 3);
  expect_papi_rules_kept(job);
  EXPECT_EQ(job.record.at("counters_status"), "ok");
  const std::string notes = job.record.at("preload").at("counters_notes").dump();
  EXPECT_NE(notes.find("optional events perf::CONTEXT-SWITCHES:k=1 not counted: perf::CONTEXT-SWITCHES:k=1: "
                       "Permission level does not permit operation"), std::string::npos) << notes;
  EXPECT_NE(notes.find("optional events PAPI_TOT_CYC,PAPI_TOT_INS not counted: PAPI_TOT_CYC: "
                       "Event exists, but cannot be counted due to hardware resource limits"), std::string::npos) << notes;
  for (const auto& r : job.record.at("ranks")) {
    ASSERT_EQ(r.at("counters").size(), 1u) << r.at("counters");
    EXPECT_EQ(r.at("counters").at("perf::TASK-CLOCK").get<double>(), 1'000'000.0 + 1'000.0 * r.at("rank").get<int>());
  }
}

TEST_F(PapiDoubleMpirun, ARefusedRequiredEventIsTheStatusAndNothingIsCounted) {
  const Job job = run_job("event perf::TASK-CLOCK 5 5\nrefuse PAPI_L1_DCM PAPI_EPERM\n", 2, 3,
                          "--events perf::TASK-CLOCK,PAPI_L1_DCM");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 3);
  expect_papi_rules_kept(job);
  const std::string said = "counters unavailable: PAPI_L1_DCM not supported [Permission level does not permit operation]";
  EXPECT_NE(job.record.at("counters_status").get<std::string>().find(said), std::string::npos) << job.record.at("counters_status");
  EXPECT_NE(job.err.find("hpcsens: warning: counters: "), std::string::npos) << job.err;
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("counters_status"), said);
    EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
  }
}

TEST_F(PapiDoubleMpirun, AFailedStopSaysSoKeepsNoValuesAndReleasesTheEventSets) {
  const Job job = run_job(script_lines(kDefaultSet) + "stop_error PAPI_ESYS\n", 2, 0);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("counters_status"), "PAPI: cannot read counters: A System/C library call failed");
    EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
  }
}

TEST_F(PapiDoubleMpirun, PerRankAgentsCountTheSameValuesAndShutPapiDown) {
  // HPCSENS_AGENT_PER_RANK=1: one agent per rank, each owning PAPI (it shuts PAPI down at stop).
  const Job job = run_job("counters 8\n" + script_lines(kDefaultSet), 2, 0, "", "-x HPCSENS_AGENT_PER_RANK=1");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("counters_status"), "ok");
    for (const auto& e : kDefaultSet) EXPECT_EQ(r.at("counters").at(e.name).get<double>(), e.at(r.at("rank"))) << e.name;
  }
  // Two agents, so two processes wrote the double's log.
  std::set<std::string> pids;
  std::istringstream lines(job.log);
  for (std::string line; std::getline(lines, line);)
    if (line.find(" events 4 multiplexed 0") != std::string::npos) pids.insert(line.substr(0, line.find(':')));
  EXPECT_EQ(pids.size(), 2u) << job.log;
}

TEST_F(PapiDoubleMpirun, RefusedMultiplexingKeepsTheFirstGroupAndNamesTheRest) {
  // Two counters and no multiplexing: only the first group (perf::TASK-CLOCK) is counted.
  const Job job = run_job("counters 2\nmultiplex_error PAPI_ENOSUPP\n" + script_lines(kDefaultSet), 2, 0);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  EXPECT_EQ(job.record.at("counters_status"), "ok") << "the dropped groups are optional";
  const std::string notes = job.record.at("preload").at("counters_notes").dump();
  for (const char* dropped : {"events perf::CONTEXT-SWITCHES:k=1 not counted: multiplexing refused: Not supported",
                              "events PAPI_TOT_CYC,PAPI_TOT_INS not counted: multiplexing refused: Not supported"})
    EXPECT_NE(notes.find(dropped), std::string::npos) << notes;
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("multiplexed"), false);
    ASSERT_EQ(r.at("counters").size(), 1u) << r.at("counters");
    EXPECT_EQ(r.at("counters").at("perf::TASK-CLOCK").get<double>(), kDefaultSet[0].at(r.at("rank")));
  }
}

TEST_F(PapiDoubleMpirun, ADisabledComponentIsNamedWithPapisReasonOnAnyMachine) {
  // The "no counters: why" path, the same on a machine whose PAPI counts: the double disables
  // its perf_event component with a reason of its own.
  const Job job = run_job("disabled scripted by the PAPI test double\n" + script_lines(kDefaultSet), 2, 3);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 3);
  expect_papi_rules_kept(job);
  const std::string said =
      "counters unavailable: PAPI's perf_event component is disabled (scripted by the PAPI test double) [not counted: "
      "perf::TASK-CLOCK,perf::CONTEXT-SWITCHES:k=1,PAPI_TOT_CYC,PAPI_TOT_INS], so PAPI counts nothing here";
  EXPECT_EQ(job.record.at("counters_status").get<std::string>().rfind(said, 0), 0u) << job.record.at("counters_status");
  EXPECT_NE(job.err.find("hpcsens: warning: counters: " + said), std::string::npos) << job.err;
  for (const auto& r : job.record.at("ranks")) {
    EXPECT_EQ(r.at("counters_status"), said);
    EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
  }
  EXPECT_EQ(job.log.find("STOP"), std::string::npos) << "nothing may be counted: " << job.log;
}

TEST_F(PapiDoubleMpirun, OneRanksRefusalStaysWithThatRank) {
  // The node's one agent serves three ranks; PAPI refuses an event on rank 2's thread only.
  const Job job = run_job("event perf::TASK-CLOCK 1000 100\nevent PAPI_TOT_INS 500 50\n"
                          "refuse_on_rank 2 PAPI_TOT_INS PAPI_EPERM\n",
                          3, 0, "--events perf::TASK-CLOCK,PAPI_TOT_INS");
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 3, 0);
  expect_papi_rules_kept(job);
  const std::string said = "counters unavailable: PAPI_TOT_INS not supported [Permission level does not permit operation]";
  for (const auto& r : job.record.at("ranks")) {
    const int rank = r.at("rank");
    if (rank == 2) {
      EXPECT_EQ(r.at("counters_status"), said);
      EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
      continue;
    }
    EXPECT_EQ(r.at("counters_status"), "ok") << "rank " << rank;
    EXPECT_EQ(r.at("counters").at("perf::TASK-CLOCK").get<double>(), 1000.0 + 100.0 * rank);
    EXPECT_EQ(r.at("counters").at("PAPI_TOT_INS").get<double>(), 500.0 + 50.0 * rank);
  }
  EXPECT_EQ(job.record.at("counters_status"), "rank 2: " + said);
}

TEST_F(PapiDoubleMpirun, EventsThatAddButCannotStartAreDroppedAsInAVm) {
  // As PAPI behaves in a VM without PMU passthrough: cycles and instructions are added, but a set
  // holding them cannot start; the software events are counted.
  const Job job = run_job("counters 8\n" + script_lines(kDefaultSet) + "start_refuse PAPI_TOT_CYC PAPI_ECNFLCT\n", 2, 0);
  ASSERT_FALSE(job.record_path.empty()) << job.err;
  expect_job_untouched(job, 2, 0);
  expect_papi_rules_kept(job);
  EXPECT_EQ(job.record.at("counters_status"), "ok");
  const std::string notes = job.record.at("preload").at("counters_notes").dump();
  EXPECT_NE(notes.find("optional events PAPI_TOT_CYC,PAPI_TOT_INS not counted: PAPI_TOT_CYC,PAPI_TOT_INS: cannot start: "
                       "Event exists, but cannot be counted due to hardware resource limits"), std::string::npos) << notes;
  for (const auto& r : job.record.at("ranks")) {
    ASSERT_EQ(r.at("counters").size(), 2u) << r.at("counters");
    for (size_t i = 0; i < 2; ++i)
      EXPECT_EQ(r.at("counters").at(kDefaultSet[i].name).get<double>(), kDefaultSet[i].at(r.at("rank")));
  }
}

}  // namespace
