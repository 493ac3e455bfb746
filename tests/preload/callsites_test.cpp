// Issue 33: the call-site table's sums live in one row per thread (plain adds) and are added up at
// finalize (preload/account/callsites.h). Totals must be exact whatever the threads did at once:
// counts, times and bytes summed over every row, including the row shared (with atomics) by
// threads beyond kSiteThreads; extremes taken over rows; and a site whose home slot another site
// holds (the hot path looks only there) counted apart on every call, not merged or dropped.
#include <atomic>
#include <cstdint>
#include <map>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "preload/account/callsites.h"

namespace hpcsens::preload {
namespace {

// Depth-1 sites are only compared, never dereferenced: any distinct addresses will do.
const void* cst_site(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

std::map<std::uintptr_t, SiteTotals> cst_totals_by_site() {
  static SiteTotals out[kCallSites];
  const int n = callsite_totals(out);
  std::map<std::uintptr_t, SiteTotals> by_site;
  for (int i = 0; i < n; ++i) by_site[out[i].frames[0]] = out[i];
  return by_site;
}

// Starts `n` threads running `body(thread index)` once all of them are up (so they overlap).
template <class Body>
void cst_run_together(int n, Body body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < n; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < n) std::this_thread::yield();
      body(t);
    });
  for (auto& th : pool) th.join();
}

class CallSiteRows : public ::testing::Test {
 protected:
  void SetUp() override { callsites_begin("1"); }
  void TearDown() override { callsites_begin(nullptr); }
};

// More threads than rows, so the shared row's atomic path is taken too; every thread calls both
// sites with its own durations and sizes, and the totals equal the sums computed here.
TEST_F(CallSiteRows, ThreadsBeyondTheRowsAddUpExactly) {
  const int threads = kSiteThreads + 8;
  const int calls = 2000;
  cst_run_together(threads, [&](int t) {
    for (int i = 0; i < calls; ++i) {
      add_callsite(3, cst_site(0x401000), 10 + t, 100 + i % 7);
      add_callsite(5, cst_site(0x402000), 1 + i % 3, 0);
    }
  });
  const auto sites = cst_totals_by_site();
  ASSERT_EQ(sites.size(), 2u);
  const SiteTotals& a = sites.at(0x401000);
  const SiteTotals& b = sites.at(0x402000);
  EXPECT_EQ(a.id, 3);
  EXPECT_EQ(b.id, 5);
  EXPECT_EQ(a.count, std::uint64_t{calls} * threads);
  EXPECT_EQ(b.count, std::uint64_t{calls} * threads);
  std::uint64_t a_ticks = 0, a_bytes = 0, b_ticks = 0;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < calls; ++i) a_ticks += 10 + t, a_bytes += 100 + i % 7, b_ticks += 1 + i % 3;
  EXPECT_EQ(a.ticks, a_ticks);
  EXPECT_EQ(a.bytes, a_bytes);
  EXPECT_EQ(b.ticks, b_ticks);
  EXPECT_EQ(a.min_ticks, 10u);
  EXPECT_EQ(a.max_ticks, 10u + threads - 1);
  EXPECT_EQ(a.min_bytes, 100u);
  EXPECT_EQ(a.max_bytes, 106u);
  EXPECT_EQ(b.min_ticks, 1u);
  EXPECT_EQ(b.max_ticks, 3u);
  EXPECT_EQ(b.max_bytes, 0u);
  EXPECT_EQ(callsite_drops(), 0u);
}

// Each extreme comes from a different thread's row: the totals take the least and greatest over
// rows (a row that never saw the site must not pull the minimum to 0).
TEST_F(CallSiteRows, ExtremesAreTakenOverEveryThreadsRow) {
  cst_run_together(3, [](int t) {
    if (t == 0) add_callsite(1, cst_site(0x500000), 50, 8), add_callsite(1, cst_site(0x500000), 40, 16);
    if (t == 1) add_callsite(1, cst_site(0x500000), 90, 64), add_callsite(1, cst_site(0x500000), 60, 4);
    if (t == 2) add_callsite(2, cst_site(0x600000), 1, 1);  // another site only
  });
  const auto sites = cst_totals_by_site();
  const SiteTotals& s = sites.at(0x500000);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.ticks, 240u);
  EXPECT_EQ(s.bytes, 92u);
  EXPECT_EQ(s.min_ticks, 40u);
  EXPECT_EQ(s.max_ticks, 90u);
  EXPECT_EQ(s.min_bytes, 4u);
  EXPECT_EQ(s.max_bytes, 64u);
}

// The table's home slot of a depth-1 key, as callsites.cpp computes it (Fibonacci hashing).
std::uint64_t cst_home(std::uintptr_t at, int id) {
  const std::uint64_t key = at ^ (static_cast<std::uint64_t>(id + 1) << 52);
  return (key * 0x9E3779B97F4A7C15ull) >> (64 - 10);
}

// Two sites with one home slot, interleaved: the second lives one slot on and is found by
// probing; both keep their own counts, and a re-begun table forgets both.
TEST_F(CallSiteRows, SitesSharingAHomeSlotStayApart) {
  const std::uintptr_t first = 0x700000;
  std::uintptr_t second = first + 1;
  while (cst_home(second, 4) != cst_home(first, 4)) ++second;
  for (int i = 0; i < 5; ++i) {
    add_callsite(4, cst_site(first), 2, 1);
    add_callsite(4, cst_site(second), 3, 10);
    add_callsite(4, cst_site(second), 3, 10);
  }
  auto sites = cst_totals_by_site();
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites.at(first).count, 5u);
  EXPECT_EQ(sites.at(first).ticks, 10u);
  EXPECT_EQ(sites.at(second).count, 10u);
  EXPECT_EQ(sites.at(second).bytes, 100u);
  callsites_begin("1");
  EXPECT_TRUE(cst_totals_by_site().empty());
}

}  // namespace
}  // namespace hpcsens::preload
