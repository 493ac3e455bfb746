// The rank's memory readings (preload/account/memory_use.h) and the memory row's samples
// (preload/account/rss_sampler.h): the /proc field parser, bins that merge in pairs like the
// timeline's, and the fold onto the timeline's bins.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "preload/account/memory_use.h"
#include "preload/account/rss_sampler.h"

namespace hpcsens::preload {
namespace {

TEST(MemoryUse, KibFieldReadsTheNumberAfterItsKey) {
  const char* status = "Name:\tprog\nVmPeak:\t  20000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t     999 kB\n";
  EXPECT_EQ(kib_field(status, "VmHWM:"), 1234);
  EXPECT_EQ(kib_field(status, "VmRSS:"), 999);
  EXPECT_EQ(kib_field(status, "VmSwap:"), -1);
  EXPECT_EQ(kib_field("VmHWM:\t kB\n", "VmHWM:"), -1);
  EXPECT_EQ(kib_field("XVmHWM: 5 kB\n", "VmHWM:"), -1);  // a key only at the start of a line
  EXPECT_EQ(kib_field("MemTotal:       16384000 kB", "MemTotal:"), 16384000);  // no newline at the end
}

TEST(MemoryUse, ThisProcessHasAPeakAtLeastItsResidentSet) {
  // 32 MiB touched: the peak holds them even after they are freed.
  char* p = static_cast<char*>(std::malloc(32 << 20));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 32 << 20);
  const auto before = memory_json();
  std::free(p);
  const auto j = memory_json();
  ASSERT_TRUE(j.contains("peak_rss_kib") && j.contains("rss_kib") && j.contains("node_total_kib")) << j.dump();
  // The peak holds the resident set read before the free, up to the kernel's lazily synced
  // per-thread RSS counters (VmHWM was 16-136 KiB under VmRSS read before it here).
  EXPECT_GE(j["peak_rss_kib"].get<long>() + 1024, before["rss_kib"].get<long>());
  EXPECT_GE(j["peak_rss_kib"].get<long>(), 32 * 1024);
  EXPECT_GT(j["node_total_kib"].get<long>(), j["peak_rss_kib"].get<long>());
}

TEST(RssBins, KeepTheLargestSampleAndMergeInPairsBeyondTheLastBin) {
  RssBins b;
  b.start(20);  // 1,048,576 ns bins
  b.add(0, 100);
  b.add(500000, 300);  // same bin: the larger stays
  b.add(1u << 20, 200);
  EXPECT_EQ(b.bin(0), 300);
  EXPECT_EQ(b.bin(1), 200);
  EXPECT_EQ(b.used(), 2);
  b.add(std::uint64_t{256} << 20, 50);  // one past the last bin: pairs merge, width doubles
  EXPECT_EQ(b.shift(), 21);
  EXPECT_EQ(b.bin(0), 300);  // max of bins 0 and 1
  EXPECT_EQ(b.bin(128), 50);
  EXPECT_EQ(b.used(), 129);
  EXPECT_EQ(b.bin(1), -1);
}

TEST(RssBins, FoldOntoTheTimelinesBinsCarriesTheLastSampleForward) {
  RssBins b;
  b.start(20);
  EXPECT_TRUE(fold_rss(b, 4, 0.002).empty());  // no sample: no row
  b.add(std::uint64_t{3} << 20, 700);   // ~3.7 ms: timeline bin 1 of 2 ms bins
  b.add(std::uint64_t{6} << 20, 900);   // ~6.8 ms: bin 3
  b.add(std::uint64_t{7} << 20, 800);   // also bin 3: the larger stays
  const auto v = fold_rss(b, 5, 0.002);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0], 700);  // before the first sample: the first sample
  EXPECT_EQ(v[1], 700);
  EXPECT_EQ(v[2], 700);  // no sample: the one before
  EXPECT_EQ(v[3], 900);
  EXPECT_EQ(v[4], 900);
}

TEST(RssSampler, SamplesThisProcessWhileItRuns) {
  rss_sampler_start();
  char* p = static_cast<char*>(std::malloc(16 << 20));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 16 << 20);
  // Wait for two samples after the memory was touched (one per ~1 ms bin; bounded against a hang).
  const int after = rss_sampler_samples() + 2;
  const auto t0 = std::chrono::steady_clock::now();
  while (rss_sampler_samples() < after && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
  }
  ASSERT_GE(rss_sampler_samples(), after);
  rss_sampler_stop();
  rss_sampler_stop();  // idempotent
  std::free(p);
  const auto v = rss_timeline(64, 0.5);
  ASSERT_EQ(v.size(), 64u);
  EXPECT_GE(*std::max_element(v.begin(), v.end()), 16 * 1024);
}

}  // namespace
}  // namespace hpcsens::preload
