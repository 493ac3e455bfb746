// One counter agent per node under a real mpirun of 4 ranks on this one host: exactly one agent
// process (each rank counts its own agent children; the agent says how many ranks it served),
// every rank's record has its own readings or the same reason, and an agent killed mid-run leaves
// the job its exit status and every rank a reason (the program waits until the kernel says the
// agent is dead before any rank goes on).
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/common/papi_state.h"
#include "tests/counter_agent/mpirun_fixture.h"
#include "topdown/event_plan.h"

namespace {

class NodeAgentMpirun : public hpcsens::test::MpirunFixture {
 protected:
  int run4(const std::string& args, const std::string& extra = "", bool preload = true) {
    return mpirun_np(4, preload ? HPCSENS_PRELOAD_LIB : "", extra, std::string(PROG_NODE) + " " + args);
  }
  // rank -> the CPU time its MPI_Init thread measured over its burn.
  std::map<int, double> cpu_ns() const {
    std::map<int, double> m;
    const std::string out = file("out");
    const std::regex line(R"(rank (\d+) cpu_ns (\d+))");
    for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it)
      m[std::stoi((*it)[1])] = std::stod((*it)[2]);
    return m;
  }
};

TEST_F(NodeAgentMpirun, OneAgentCountsEveryRankOfTheNode) {
  const auto papi_off = hpcsens::test::papi_perf_event_disabled();
  ASSERT_EQ(run4("count 150 0"), 0) << file("err");
  EXPECT_NE(file("out").find("agents 1\n"), std::string::npos) << file("out");
  const nlohmann::json rec = record();
  EXPECT_EQ(rec.at("preload").at("counter_agent_ranks"), 4) << rec.at("preload");
  EXPECT_GT(rec.at("preload").at("counter_agent_private_kib").get<long>(), 0);
  const auto own = cpu_ns();
  ASSERT_EQ(own.size(), 4u) << file("out");
  ASSERT_EQ(rec.at("ranks").size(), 4u);
  for (const auto& r : rec.at("ranks")) {
    const int rank = r.at("rank");
    const std::string status = r.at("counters_status");
    if (papi_off) {
      // The same honest reason on every rank, no values standing in.
      EXPECT_EQ(status.rfind("counters unavailable: " + hpcsens::test::papi_disabled_words(*papi_off), 0), 0u)
          << "rank " << rank << ": " << status;
      EXPECT_EQ(status, rec.at("ranks")[0].at("counters_status").get<std::string>());
      EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
      continue;
    }
    EXPECT_EQ(status, "ok") << "rank " << rank;
    // Its own thread's task-clock, not another rank's: at least what it burnt itself, and not
    // much more (the counted span adds the program's /proc scan and collectives).
    const double task_clock = r.at("counters").at("perf::TASK-CLOCK");
    EXPECT_GE(task_clock, 0.95 * own.at(rank)) << "rank " << rank;
    EXPECT_LE(task_clock, 1.10 * own.at(rank) + 100e6) << "rank " << rank;
  }
}

TEST_F(NodeAgentMpirun, AgentKilledMidRunKeepsTheExitStatusAndEveryRankSaysWhy) {
  ASSERT_EQ(run4("kill 50 3", "", /*preload=*/false), 3) << "the job's own status, without hpcsens: " << file("err");
  ASSERT_EQ(run4("kill 50 3"), 3) << file("err");
  EXPECT_NE(file("out").find("agents 1\n"), std::string::npos) << file("out");
  EXPECT_NE(file("out").find("killed "), std::string::npos) << file("out");
  EXPECT_EQ(cpu_ns().size(), 4u) << "every rank ran on: " << file("out");
  const nlohmann::json rec = record();
  ASSERT_EQ(rec.at("ranks").size(), 4u);
  for (const auto& r : rec.at("ranks")) {
    EXPECT_EQ(r.at("counters_status"), "counters unavailable: counter agent: agent closed the connection")
        << "rank " << r.at("rank");
    EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
  }
}

// An agent that exits at once (here a stand-in that does nothing) must not hold the node's other
// ranks at MPI_Init until their 60 s set-up timeout: nobody else holds its listening socket, so
// they are refused or reset at once. Every rank says why; the job keeps its status.
TEST_F(NodeAgentMpirun, AgentThatExitsAtOnceIsEveryRanksReasonNotAHang) {
  const std::string lib = dir_ + "/lib/libhpcsens_preload.so";
  std::filesystem::create_directories(dir_ + "/lib/hpcsens");
  std::filesystem::copy_file(HPCSENS_PRELOAD_LIB, lib);
  {
    std::ofstream agent(dir_ + "/lib/hpcsens/hpcsens-counter-agent");
    agent << "#!/bin/sh\nexit 0\n";
  }
  std::filesystem::permissions(dir_ + "/lib/hpcsens/hpcsens-counter-agent", std::filesystem::perms::owner_all);
  ASSERT_EQ(mpirun_np(4, lib, "", std::string(PROG_NODE) + " count 10 0"), 0) << file("err");
  EXPECT_EQ(cpu_ns().size(), 4u) << file("out");
  const nlohmann::json rec = record();
  ASSERT_EQ(rec.at("ranks").size(), 4u);
  for (const auto& r : rec.at("ranks")) {
    const std::string status = r.at("counters_status");
    EXPECT_EQ(status.rfind("counters unavailable: ", 0), 0u) << status;
    EXPECT_NE(status.find("agent"), std::string::npos) << status;
    EXPECT_TRUE(r.at("counters").empty());
  }
}

TEST_F(NodeAgentMpirun, EventsNoneStartsNoAgentOnTheNode) {
  ASSERT_EQ(run4("count 10 0", "-x HPCSENS_EVENTS=none"), 0) << file("err");
  EXPECT_NE(file("out").find("agents 0\n"), std::string::npos) << file("out");
  const nlohmann::json rec = record();
  EXPECT_EQ(rec.at("preload").at("counter_agent_vmhwm_kib"), -1);
  for (const auto& r : rec.at("ranks")) EXPECT_TRUE(r.at("counters").empty());
}

// A rank given --events none stays out of the node's agent (no node communicator, no broadcast,
// no barrier: issue 33 start-up), also when it is the node's first rank: the node's other ranks
// still share one agent, hosted by the first of them that counts.
TEST_F(NodeAgentMpirun, ARankWithEventsNoneLeavesTheAgentToTheOthers) {
  const auto papi_off = hpcsens::test::papi_perf_event_disabled();
  const std::string ctx = std::string(" -x LD_PRELOAD=") + HPCSENS_PRELOAD_LIB + " -x HPCSENS_OUT=" + dir_ +
                          " -x HPCSENS_RUN_ID=r1 ";
  ASSERT_EQ(mpirun_np(1, HPCSENS_PRELOAD_LIB, "-x HPCSENS_EVENTS=none",
                      std::string(PROG_NODE) + " count 10 0 : -np 3" + ctx + PROG_NODE + " count 10 0"),
            0)
      << file("err");
  EXPECT_NE(file("out").find("agents 1\n"), std::string::npos) << file("out");
  EXPECT_EQ(cpu_ns().size(), 4u) << file("out");
  const nlohmann::json rec = record();
  ASSERT_EQ(rec.at("ranks").size(), 4u);
  for (const auto& r : rec.at("ranks")) {
    const std::string status = r.at("counters_status");
    EXPECT_TRUE(r.at("counters").empty() || r.at("rank") != 0) << r.at("counters");
    if (r.at("rank") == 0) {
      EXPECT_EQ(status, hpcsens::topdown::kEventsNoneNote);
    } else if (papi_off) {
      EXPECT_EQ(status.rfind("counters unavailable: " + hpcsens::test::papi_disabled_words(*papi_off), 0), 0u)
          << "rank " << r.at("rank") << ": " << status;
    } else {
      EXPECT_EQ(status, "ok") << "rank " << r.at("rank");
    }
  }
}

}  // namespace
