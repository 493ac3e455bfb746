// The preload's counter client with the real hpcsens-counter-agent: the agent, a separate
// process, counts this test's thread through PAPI_attach; PAPI is never initialised here (only
// asked, in a forked child, whether its perf_event component counts: tests/common/papi_state.h).
#include "preload/account/counter_client.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include <cerrno>

#include "tests/common/papi_state.h"
#include "topdown/event_plan.h"

namespace hpcsens::preload {
namespace {

pid_t own_tid() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

long long thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// Burns `ns` of this thread's CPU time (not wall time: the machine may be loaded) and returns
// what the thread itself measured.
double spin_cpu(long long ns) {
  const long long t0 = thread_cpu_ns();
  volatile double acc = 0;
  while (thread_cpu_ns() - t0 < ns)
    for (int i = 0; i < 10000; ++i) acc = acc + 1.0;
  return static_cast<double>(thread_cpu_ns() - t0);
}

bool no_child_left() { return ::waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD; }

// Where PAPI disabled perf_event: the agent's status names PAPI's reason and the events asked
// for, and no values (no zeros standing in) come back.
void expect_papi_disabled(const CounterClient& c, const std::string& why, const std::string& asked) {
  EXPECT_EQ(c.status().rfind("counters unavailable: " + test::papi_disabled_words(why), 0), 0u) << c.status();
  EXPECT_NE(c.status().find(" [not counted: " + asked), std::string::npos) << c.status();
  EXPECT_TRUE(c.warn());
  EXPECT_TRUE(c.values().empty());
  EXPECT_TRUE(c.running_fraction().empty());
}

TEST(CounterClient, AgentCountsThisThreadsTaskClock) {
  const auto papi_off = test::papi_perf_event_disabled();
  CounterClient c;
  c.prepare(HPCSENS_COUNTER_AGENT, "default", own_tid());
  if (!papi_off) {
    EXPECT_EQ(c.status(), "ok");
  }
  EXPECT_EQ(c.event_set(), "default");
  c.start();
  const double cpu = spin_cpu(200'000'000);
  c.stop();
  EXPECT_GT(c.agent_vmhwm_kib(), 0) << "the agent ran and answered";
  EXPECT_TRUE(no_child_left()) << "the agent must be reaped by stop()";
  if (papi_off) return expect_papi_disabled(c, *papi_off, "perf::TASK-CLOCK");
  ASSERT_EQ(c.status(), "ok");
  ASSERT_EQ(c.values().count("perf::TASK-CLOCK"), 1u);
  const double ns = c.values().at("perf::TASK-CLOCK");
  EXPECT_GE(ns, 0.95 * cpu);
  EXPECT_LE(ns, 1.10 * cpu + 20e6) << "only the span between start and stop is counted";
  // The agent's word on the running fraction arrives with the values (counter_agent/running_fraction.h).
  EXPECT_FALSE(c.running_fraction_reason().empty());
  for (const auto& [name, f] : c.running_fraction()) EXPECT_EQ(f, 1.0) << name;
}

TEST(CounterClient, EventsNoneStartsNoAgent) {
  CounterClient c;
  c.prepare(HPCSENS_COUNTER_AGENT, topdown::kEventsNone, own_tid());
  c.start();
  c.stop();
  EXPECT_EQ(c.status(), topdown::kEventsNoneNote);
  EXPECT_EQ(c.event_set(), "none");
  EXPECT_FALSE(c.warn());
  EXPECT_EQ(c.agent_vmhwm_kib(), -1);
}

TEST(CounterClient, MissingAgentIsAReasonNotAFailure) {
  CounterClient c;
  c.prepare("/nonexistent/hpcsens/hpcsens-counter-agent", "default", own_tid());
  c.start();
  c.stop();
  EXPECT_TRUE(c.warn());
  EXPECT_NE(c.status().find("cannot start the counter agent /nonexistent/hpcsens/hpcsens-counter-agent"),
            std::string::npos) << c.status();
  EXPECT_TRUE(c.values().empty());
}

TEST(CounterClient, AgentThatExitsAtOnceIsAReasonNotAHang) {
  CounterClient c;
  c.prepare("/bin/true", "default", own_tid());  // starts, answers nothing, exits
  c.start();
  c.stop();
  EXPECT_TRUE(c.warn());
  EXPECT_EQ(c.status().rfind("counters unavailable: counter agent: ", 0), 0u) << c.status();
  EXPECT_TRUE(no_child_left());
}

TEST(CounterClient, RefusedEventIsNamedByTheAgent) {
  CounterClient c;
  c.prepare(HPCSENS_COUNTER_AGENT, "perf::TASK-CLOCK,NO_SUCH_EVENT_XYZ", own_tid());
  c.start();
  c.stop();
  EXPECT_TRUE(c.warn());
  EXPECT_EQ(c.event_set(), "custom");
  EXPECT_NE(c.status().find("NO_SUCH_EVENT_XYZ"), std::string::npos) << c.status();
  if (const auto why = test::papi_perf_event_disabled())
    expect_papi_disabled(c, *why, "perf::TASK-CLOCK,NO_SUCH_EVENT_XYZ]");
}

TEST(CounterClient, AgentPathIsBesideTheLibraryItIsLinkedInto) {
  // Linked into this test executable here; in the preload it is <preload dir>/hpcsens/...
  const std::string p = counter_agent_path();
  EXPECT_TRUE(p.ends_with("/hpcsens/hpcsens-counter-agent")) << p;
}

}  // namespace
}  // namespace hpcsens::preload
