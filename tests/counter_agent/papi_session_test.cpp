// Real PAPI with the perf_event component's software events (they work without a PMU). Where
// PAPI has disabled that component (tests/common/papi_state.h asks PAPI), each test checks
// instead that the session names PAPI's reason and counts nothing in its place.
#include "counter_agent/papi_session.h"
#include "counter_agent/running_fraction.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/syscall.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "tests/common/papi_state.h"
#include "topdown/event_plan.h"

namespace hpcsens::agent {
namespace {

void spin() {
  volatile double acc = 0;
  for (long i = 0; i < 5'000'000; ++i) acc = acc + static_cast<double>(i);
}

topdown::EventPlan plan(std::vector<topdown::EventGroup> groups) {
  topdown::EventPlan p;
  p.name = "test";
  p.groups = std::move(groups);
  return p;
}

// Where PAPI counts, true. Where PAPI disabled perf_event: checks the session said so, named
// the plan's events as not counted, and reported no values (no zeros standing in), then false.
bool counts_here(const PapiSession& s, const std::string& first_event) {
  const auto why = test::papi_perf_event_disabled();
  if (!why) return true;
  EXPECT_EQ(s.status().rfind("counters unavailable: " + test::papi_disabled_words(*why), 0), 0u) << s.status();
  EXPECT_NE(s.status().find(" [not counted: " + first_event), std::string::npos) << s.status();
  EXPECT_TRUE(s.warn());
  EXPECT_TRUE(s.values().empty());
  EXPECT_FALSE(s.multiplexed());
  EXPECT_TRUE(s.running_fraction().empty()) << "nothing counted: no fraction";
  return false;
}

TEST(PapiSession, CountsTaskClock) {
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES"}, true}}));
  s.start();
  spin();
  s.stop();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  EXPECT_EQ(s.status(), "ok");
  EXPECT_FALSE(s.warn());
  EXPECT_FALSE(s.multiplexed());
  ASSERT_EQ(s.values().count("perf::TASK-CLOCK"), 1u);
  EXPECT_GT(s.values().at("perf::TASK-CLOCK"), 1e6);  // nanoseconds of CPU time
  // Not multiplexed: PAPI's pinned group counted all the time it was enabled, or it would not
  // have read back (counter_agent/running_fraction.h); a hybrid CPU says why it is not known.
  if (hybrid_core_pmus()) {
    EXPECT_TRUE(s.running_fraction().empty());
    EXPECT_EQ(s.running_fraction_reason().rfind("hybrid CPU", 0), 0u) << s.running_fraction_reason();
  } else {
    EXPECT_EQ(s.running_fraction().size(), s.values().size());
    for (const auto& [name, f] : s.running_fraction()) EXPECT_EQ(f, 1.0) << name;
    EXPECT_EQ(s.running_fraction_reason().rfind("pinned group: ", 0), 0u) << s.running_fraction_reason();
  }
}

// Context switches happen in the kernel; counted in PAPI's default user-only domain they read 0
// however often the process sleeps. The default plan must count them for real where allowed.
TEST(PapiSession, DefaultPlanCountsContextSwitchesOfASleepingProcess) {
  PapiSession s;
  s.prepare(topdown::plan_events("default", topdown::CpuId{}));  // the same on every CPU
  s.start();
  for (int i = 0; i < 20; ++i) ::usleep(1000);  // each sleep is a voluntary context switch
  s.stop();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  EXPECT_EQ(s.status(), "ok");
  int paranoid = 2;
  std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> paranoid;
  if (::geteuid() == 0 || paranoid <= 1) {
    ASSERT_EQ(s.values().count("perf::CONTEXT-SWITCHES:k=1"), 1u);
    EXPECT_GE(s.values().at("perf::CONTEXT-SWITCHES:k=1"), 20.0);
  } else {
    EXPECT_EQ(s.values().count("perf::CONTEXT-SWITCHES:k=1"), 0u) << "kernel counting is not allowed here";
  }
}

TEST(PapiSession, RefusedRequiredEventIsReportedAndOthersStillCount) {
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK"}, true}, {{"NO_SUCH_EVENT_XYZ"}, true}}));
  s.start();
  spin();
  s.stop();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  EXPECT_TRUE(s.warn());
  EXPECT_NE(s.status().find("NO_SUCH_EVENT_XYZ"), std::string::npos) << s.status();
  EXPECT_GT(s.values().at("perf::TASK-CLOCK"), 0.0);
}

TEST(PapiSession, RefusedRequiredTopDownGroupUsesThePlansWording) {
  topdown::EventPlan p = plan({{{"perf::TASK-CLOCK"}, true}, {{"NO_SUCH_EVENT_XYZ"}, true}});
  p.name = "topdown-test";
  p.refusal_hint = "no hardware PMU / virtual machine without PMU passthrough";
  PapiSession s;
  s.prepare(p);
  s.start();
  s.stop();
  if (const auto why = test::papi_perf_event_disabled()) {
    // A Top-Down plan names PAPI's reason, not its events (there are many, all refused alike).
    EXPECT_EQ(s.status().rfind("Top-Down unavailable: " + test::papi_disabled_words(*why), 0), 0u) << s.status();
    EXPECT_TRUE(s.warn());
    EXPECT_TRUE(s.values().empty());
    return;
  }
  EXPECT_TRUE(s.warn());
  const std::string& st = s.status();
  EXPECT_EQ(st.rfind("Top-Down unavailable: NO_SUCH_EVENT_XYZ not supported [", 0), 0u) << st;
  EXPECT_TRUE(st.ends_with("] (no hardware PMU / virtual machine without PMU passthrough)")) << st;
  ASSERT_EQ(s.notes().size(), 1u);
  EXPECT_NE(s.notes()[0].find("required events NO_SUCH_EVENT_XYZ"), std::string::npos);
}

topdown::CpuId cpu_id(const char* vendor, int family, int model, int arm_part = -1) {
  topdown::CpuId c;
  c.vendor = vendor;
  c.family = family;
  c.model = model;
  if (arm_part >= 0) {
    c.arm_implementer = 0x41;
    c.arm_part = arm_part;
  }
  return c;
}

// Every table's plan (and table-less CPUs') through real PAPI, for CPU identities given here, not
// this machine's: where PAPI refuses (no PMU, or another CPU's events) the status carries the
// plan's hint rather than a bare PAPI error; a table-less CPU's status is the plan's reason.
TEST(PapiSession, TopDownOfEveryTableIsCountedOrExplained) {
  const topdown::CpuId cpus[] = {
      cpu_id("GenuineIntel", 6, 0x55),     cpu_id("GenuineIntel", 6, 0x6A),  cpu_id("GenuineIntel", 6, 0x8F),
      cpu_id("AuthenticAMD", 0x19, 0x01),  cpu_id("AuthenticAMD", 0x19, 0x11), cpu_id("AuthenticAMD", 0x1A, 0x02),
      cpu_id("ARM", 0, 0, 0xd0c),          cpu_id("ARM", 0, 0, 0xd40),         cpu_id("ARM", 0, 0, 0xd4f),
      cpu_id("AuthenticAMD", 0x17, 0x31),  cpu_id("GenuineIntel", 6, 0x4F),    cpu_id("ARM", 0, 0, 0xd08)};
  int with_table = 0;
  for (const auto& cpu : cpus) {
    const topdown::EventPlan p = topdown::plan_events("topdown", cpu);
    PapiSession s;
    s.prepare(p);
    s.start();
    s.stop();
    if (!p.available) {
      EXPECT_EQ(s.status(), p.note);
      EXPECT_NE(p.note.find("no Top-Down table"), std::string::npos) << p.note;
      continue;
    }
    ++with_table;
    if (s.status() == "ok") continue;
    if (const auto why = test::papi_perf_event_disabled()) {
      EXPECT_EQ(s.status().rfind("Top-Down unavailable: " + test::papi_disabled_words(*why), 0), 0u) << s.status();
      EXPECT_TRUE(s.values().empty()) << p.name;
      continue;
    }
    EXPECT_EQ(s.status().rfind("Top-Down unavailable: ", 0), 0u) << p.name << ": " << s.status();
    ASSERT_FALSE(p.refusal_hint.empty()) << p.name;
    EXPECT_TRUE(s.status().ends_with("(" + p.refusal_hint + ")")) << p.name << ": " << s.status();
  }
  EXPECT_EQ(with_table, 9);
}

TEST(PapiSession, RefusedOptionalGroupIsANoteNotAFailure) {
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK"}, true}, {{"NO_SUCH_EVENT_XYZ"}, false}}));
  s.start();
  s.stop();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  EXPECT_EQ(s.status(), "ok");
  ASSERT_EQ(s.notes().size(), 1u);
  EXPECT_NE(s.notes()[0].find("NO_SUCH_EVENT_XYZ"), std::string::npos);
}

TEST(PapiSession, GroupsThatFitTogetherAreCountedWithoutMultiplexing) {
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK"}, true}, {{"perf::CONTEXT-SWITCHES"}, true}}));
  s.start();
  spin();
  s.stop();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  EXPECT_EQ(s.status(), "ok");
  EXPECT_FALSE(s.multiplexed());
  EXPECT_EQ(s.values().size(), 2u);
  EXPECT_GT(s.values().at("perf::TASK-CLOCK"), 0.0);
}

long long thread_cpu_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// The agent's way of counting: PAPI_attach to a thread it is not running on. The busy thread's
// task-clock is its CPU time as the thread itself measures it (independent of machine load);
// this (waiting) thread's own time is not in it.
TEST(PapiSession, AttachedToAnotherThreadCountsThatThreadsCpuTime) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> go{false}, done{false};
  std::atomic<long long> used{0};
  std::thread busy([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!go) std::this_thread::yield();
    const long long t0 = thread_cpu_ns();
    volatile double acc = 0;
    while (thread_cpu_ns() - t0 < 200'000'000)
      for (int i = 0; i < 10000; ++i) acc = acc + 1.0;
    used = thread_cpu_ns() - t0;
    done = true;
  });
  while (tid == 0) std::this_thread::yield();
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK"}, true}}), tid);
  s.start();
  go = true;
  while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  s.stop();
  busy.join();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  ASSERT_EQ(s.status(), "ok") << (s.notes().empty() ? "" : s.notes()[0]);
  const double ns = s.values().at("perf::TASK-CLOCK");
  EXPECT_GE(ns, 0.95 * static_cast<double>(used));
  EXPECT_LE(ns, 1.10 * static_cast<double>(used) + 20e6);
}

// attach_probe.cpp answers only PAPI's permission probe: a hardware event PAPI is asked to count
// on an attached thread is never replaced by a software one. Without a PMU it stays refused.
TEST(PapiSession, AttachedHardwareEventsAreNeverStandIns) {
  if (::access("/sys/bus/event_source/devices/cpu", F_OK) == 0)
    GTEST_SKIP() << "this machine has a hardware PMU: its instructions event is real";
  std::atomic<bool> stop{false};
  std::atomic<pid_t> tid{0};
  std::thread idle([&] {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (tid == 0) std::this_thread::yield();
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK"}, true}, {{"perf::INSTRUCTIONS"}, false}}), tid);
  s.start();
  s.stop();
  stop = true;
  idle.join();
  if (!counts_here(s, "perf::TASK-CLOCK")) return;
  EXPECT_EQ(s.status(), "ok");
  EXPECT_EQ(s.values().count("perf::INSTRUCTIONS"), 0u);
  EXPECT_EQ(s.values().count("perf::TASK-CLOCK"), 1u);
}

TEST(PapiSession, AttachToANonexistentThreadIsRefusedWithAReason) {
  PapiSession s;
  s.prepare(plan({{{"perf::TASK-CLOCK"}, true}}), 0x3ffffff);  // above pid_max: no such thread
  s.start();
  s.stop();
  EXPECT_TRUE(s.warn());
  EXPECT_NE(s.status(), "ok");
  EXPECT_TRUE(s.values().empty());
}

TEST(PapiSession, UnavailablePlanSaysWhy) {
  topdown::EventPlan p;
  p.name = "none";
  p.available = false;
  p.note = "counters disabled (--events none)";
  PapiSession s;
  s.prepare(p);
  s.start();
  s.stop();
  EXPECT_EQ(s.status(), "counters disabled (--events none)");
  EXPECT_FALSE(s.warn());
  EXPECT_TRUE(s.values().empty());
}

}  // namespace
}  // namespace hpcsens::agent
