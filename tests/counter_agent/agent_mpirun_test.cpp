// The counter agent under a real mpirun: the rank's task-clock arrives from the agent and agrees
// with the rank's own thread CPU time; PAPI and libpfm4 are not in the rank's address space; a
// missing agent is one warning and a reason in the record, never a failed job; --events none
// starts no agent. Every process is bounded by `timeout`.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/common/papi_state.h"
#include "tests/counter_agent/mpirun_fixture.h"

namespace fs = std::filesystem;

namespace {

class AgentMpirun : public hpcsens::test::MpirunFixture {
 protected:
  // mpirun -np 2 of the CPU program.
  int mpirun(const std::string& preload, const std::string& extra = "") {
    return mpirun_np(2, preload, extra, std::string(PROG_CPU) + " 200");
  }
  // rank -> {cpu_ns, papi_mapped} as the program printed them.
  std::map<int, std::pair<double, int>> printed() const {
    std::map<int, std::pair<double, int>> m;
    const std::string out = file("out");
    const std::regex line(R"(rank (\d+) cpu_ns (\d+) papi_mapped (\d))");
    for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it)
      m[std::stoi((*it)[1])] = {std::stod((*it)[2]), std::stoi((*it)[3])};
    return m;
  }
};

// Where PAPI disabled its perf_event component (tests/common/papi_state.h asks PAPI), the job
// runs as ever, the warning and counters_status name PAPI's reason and the events asked for,
// and no rank has counter values (no zeros standing in).
TEST_F(AgentMpirun, TaskClockFromTheAgentMatchesTheRanksOwnCpuTime) {
  const auto papi_off = hpcsens::test::papi_perf_event_disabled();
  ASSERT_EQ(mpirun(HPCSENS_PRELOAD_LIB), 0) << file("err");
  const std::string err = file("err");
  if (!papi_off) {
    EXPECT_EQ(err.find("hpcsens: warning"), std::string::npos) << err;
  }
  const auto own = printed();
  ASSERT_EQ(own.size(), 2u) << file("out");
  const nlohmann::json rec = record();
  if (papi_off) {
    const std::string said = "counters unavailable: " + hpcsens::test::papi_disabled_words(*papi_off);
    EXPECT_EQ(rec.at("counters_status").get<std::string>().rfind(said, 0), 0u) << rec.at("counters_status");
    EXPECT_NE(rec.at("counters_status").get<std::string>().find(" [not counted: perf::TASK-CLOCK,"), std::string::npos);
    EXPECT_NE(err.find("hpcsens: warning: counters: " + said), std::string::npos) << err;
  } else {
    EXPECT_EQ(rec.at("counters_status"), "ok");
  }
  EXPECT_GT(rec.at("preload").at("counter_agent_vmhwm_kib").get<long>(), 0);
  for (const auto& r : rec.at("ranks")) {
    const int rank = r.at("rank");
    EXPECT_EQ(own.at(rank).second, 0) << "rank " << rank << ": PAPI/libpfm4 mapped into the rank";
    if (papi_off) {
      EXPECT_TRUE(r.at("counters").empty()) << r.at("counters");
      // Not known, and why: never {} (which would read as "never descheduled").
      EXPECT_TRUE(r.at("counter_running_fraction").is_null()) << r;
      EXPECT_EQ(r.at("counter_running_fraction_reason"), "no counters: " + r.at("counters_status").get<std::string>());
      continue;
    }
    // PAPI's pinned group read back: counted all the time (counter_agent/running_fraction.h).
    EXPECT_EQ(r.at("counter_running_fraction").at("perf::TASK-CLOCK"), 1.0) << r;
    EXPECT_EQ(r.at("counter_running_fraction_reason").get<std::string>().rfind("pinned group: ", 0), 0u) << r;
    const double task_clock = r.at("counters").at("perf::TASK-CLOCK");
    const double cpu = own.at(rank).first;
    // The counted span (just after the init barrier to just before the finalize barrier) holds
    // the program's measured span and little else.
    EXPECT_GE(task_clock, 0.95 * cpu) << "rank " << rank;
    EXPECT_LE(task_clock, 1.10 * cpu + 20e6) << "rank " << rank;
  }
}

TEST_F(AgentMpirun, MissingAgentIsOneWarningAndAReasonNotAFailedJob) {
  // The preload alone in a directory, without its hpcsens/ beside it.
  const std::string lone = dir_ + "/lone/libhpcsens_preload.so";
  fs::create_directories(dir_ + "/lone");
  fs::copy_file(HPCSENS_PRELOAD_LIB, lone);
  ASSERT_EQ(mpirun(lone), 0) << file("err");
  EXPECT_EQ(printed().size(), 2u) << "the job's output must not change: " << file("out");
  const std::string err = file("err");
  size_t n = 0;
  for (auto p = err.find("hpcsens: warning"); p != std::string::npos; p = err.find("hpcsens: warning", p + 1)) ++n;
  EXPECT_EQ(n, 1u) << err;
  EXPECT_NE(err.find("cannot start the counter agent " + dir_ + "/lone/hpcsens/hpcsens-counter-agent"),
            std::string::npos) << err;
  const nlohmann::json rec = record();
  EXPECT_NE(rec.at("counters_status").get<std::string>().find("cannot start the counter agent"),
            std::string::npos) << rec.at("counters_status");
  for (const auto& r : rec.at("ranks")) {
    EXPECT_TRUE(r.at("counters").empty());
    EXPECT_TRUE(r.at("counter_running_fraction").is_null()) << r;
    EXPECT_EQ(r.at("counter_running_fraction_reason"), "no counters: " + r.at("counters_status").get<std::string>());
  }
}

TEST_F(AgentMpirun, EventsNoneStartsNoAgent) {
  ASSERT_EQ(mpirun(HPCSENS_PRELOAD_LIB, "-x HPCSENS_EVENTS=none"), 0) << file("err");
  const nlohmann::json rec = record();
  EXPECT_EQ(rec.at("preload").at("counter_agent_vmhwm_kib"), -1);
  for (const auto& r : rec.at("ranks"))
    EXPECT_EQ(r.at("counter_running_fraction_reason").get<std::string>().rfind("no counters: ", 0), 0u) << r;
  EXPECT_EQ(file("err").find("hpcsens: warning"), std::string::npos) << file("err");
}

}  // namespace
