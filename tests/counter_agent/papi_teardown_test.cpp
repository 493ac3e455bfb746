// A failed PAPI_stop still tears the session down (real PAPI, perf_event software events).
// Fault injection without a seam in the session: the test stops every running event set behind
// the session's back, so the session's own PAPI_stop fails with PAPI_ENOTRUN, as it would if
// another tool in the process stopped PAPI. The session must say so, report no values, and
// still leave no event set, perf_event descriptor or PAPI library state behind.
#include <papi.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "topdown/event_plan.h"

#include "counter_agent/papi_session.h"
#include "tests/common/papi_state.h"

using Session = hpcsens::agent::PapiSession;

namespace {

namespace fs = std::filesystem;

// Open perf_event descriptors of this process.
int perf_fds() {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = fs::read_symlink(e.path(), ec);
    if (!ec && target.string().find("perf_event") != std::string::npos) ++n;
  }
  return n;
}

// PAPI numbers event sets from 0; stop whichever are running.
int stop_running_event_sets() {
  int stopped = 0;
  for (int es = 0; es < 64; ++es) {
    int state = 0;
    if (PAPI_state(es, &state) != PAPI_OK || (state & PAPI_RUNNING) == 0) continue;
    std::vector<long long> scratch(16);
    if (PAPI_stop(es, scratch.data()) == PAPI_OK) ++stopped;
  }
  return stopped;
}

TEST(PapiTeardown, AFailedStopStillReleasesTheEventSetAndPapi) {
  hpcsens::topdown::EventPlan plan;
  plan.name = "test";
  plan.groups = {{{"perf::TASK-CLOCK", "perf::CONTEXT-SWITCHES"}, true}};
  const int before = perf_fds();
  Session s;
  s.prepare(plan);
  s.start();
  if (const auto why = hpcsens::test::papi_perf_event_disabled()) {
    // PAPI disabled perf_event: there is no running event set to stop behind the session's
    // back, so no failed stop can be provoked. The session must still say why, count nothing
    // and leave no descriptor or PAPI state behind.
    s.stop();
    EXPECT_EQ(s.status().rfind("counters unavailable: " + hpcsens::test::papi_disabled_words(*why), 0), 0u) << s.status();
    EXPECT_TRUE(s.values().empty());
    EXPECT_EQ(perf_fds(), before);
    EXPECT_EQ(PAPI_is_initialized(), PAPI_NOT_INITED) << "PAPI was shut down";
    return;
  }
  ASSERT_EQ(s.status(), "ok");
  ASSERT_GT(perf_fds(), before) << "counting opens perf_event descriptors";
  ASSERT_EQ(stop_running_event_sets(), 1);
  s.stop();
  EXPECT_NE(s.status().find("PAPI: cannot read counters"), std::string::npos) << s.status();
  EXPECT_TRUE(s.values().empty());
  EXPECT_EQ(perf_fds(), before) << "the event set's descriptors are closed";
  EXPECT_EQ(PAPI_is_initialized(), PAPI_NOT_INITED) << "PAPI was shut down";
}

}  // namespace
