// Issue 33: call stacks of depth k through the per-address step cache (preload/account/
// stack_cache.h). The cached walk must report exactly libgcc's frames on every kind of frame the
// compiler makes here (fixed frames, alloca, a realigned stack), two call paths through one helper
// must stay two call sites with their own counts when the calls interleave (a cache keyed by the
// helper's return address would merge them), and a second walk of a stack reads no rule again.
#include <alloca.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "preload/account/callsites.h"
#include "preload/account/cfi_rule.h"
#include "preload/account/stack_cache.h"

namespace hpcsens::preload {
namespace {

volatile int g_sc_sink = 0;
struct StackPair {
  int cached_n = 0, unwound_n = 0;
  std::uintptr_t cached[kMaxStackDepth] = {}, unwound[kMaxStackDepth] = {};
};
thread_local StackPair g_sc_last;
thread_local int g_sc_depth = 2;

// Stands for an MPI wrapper: the site is its return address, both walks start from here.
[[gnu::noinline]] void sc_wrapper() {
  const auto site = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  StackPair p;
  p.cached_n = cached_stack(site, g_sc_depth, kMaxStackDepth, p.cached);
  p.unwound_n = unwound_stack(site, g_sc_depth, kMaxStackDepth, p.unwound);
  g_sc_last = p;
  g_sc_sink = g_sc_sink + 1;
}
// Stands for add_callsite's caller in the preload: records the call as a wrapper would.
[[gnu::noinline]] void sc_counted_wrapper(int bytes) {
  add_callsite(7, __builtin_return_address(0), 10, static_cast<std::uint64_t>(bytes));
  g_sc_sink = g_sc_sink + 1;
}

// The shared helper and its callers; each differs in a constant so that identical-code folding
// cannot merge them, and each does work after the call so that no call becomes a tail call.
[[gnu::noinline]] void sc_helper(int k) { sc_wrapper(); g_sc_sink = g_sc_sink + k; }
[[gnu::noinline]] void sc_path_a() { sc_helper(1); g_sc_sink = g_sc_sink + 11; }
[[gnu::noinline]] void sc_path_b() { sc_helper(2); g_sc_sink = g_sc_sink + 22; }
[[gnu::noinline]] void sc_path_c() { sc_path_a(); g_sc_sink = g_sc_sink + 33; }
[[gnu::noinline]] void sc_with_alloca(int n) {
  char* p = static_cast<char*>(alloca(static_cast<std::size_t>(n)));
  std::memset(p, 1, static_cast<std::size_t>(n));
  sc_helper(p[n - 1]);
  g_sc_sink = g_sc_sink + p[0];
}
[[gnu::noinline]] void sc_realigned() {
  alignas(128) volatile char buf[200];
  buf[0] = 3;
  sc_path_b();
  g_sc_sink = g_sc_sink + buf[0];
}
[[gnu::noinline]] void sc_send_helper(int bytes) { sc_counted_wrapper(bytes); g_sc_sink = g_sc_sink + 5; }
[[gnu::noinline]] void sc_send_from_a() { sc_send_helper(16); g_sc_sink = g_sc_sink + 6; }
[[gnu::noinline]] void sc_send_from_b() { sc_send_helper(256); g_sc_sink = g_sc_sink + 7; }

std::uintptr_t sc_function_of(std::uintptr_t return_address) { return cfi_function_start(return_address); }
std::uintptr_t sc_addr(void (*f)()) { return reinterpret_cast<std::uintptr_t>(f); }
std::uintptr_t sc_addr(void (*f)(int)) { return reinterpret_cast<std::uintptr_t>(f); }

void expect_same_walk(const StackPair& p, const char* what) {
  ASSERT_GT(p.unwound_n, 0) << what;
  if (p.cached_n == 0) return;  // the cache declined: add_callsite uses libgcc's answer
  ASSERT_EQ(p.cached_n, p.unwound_n) << what;
  for (int i = 0; i < p.unwound_n; ++i) EXPECT_EQ(p.cached[i], p.unwound[i]) << what << " frame " << i;
}

TEST(StackCache, CachedWalkReportsLibgccsFramesAtEveryDepth) {
  stack_cache_clear();
  void (*const paths[])() = {sc_path_a, sc_path_b, sc_path_c, [] { sc_with_alloca(40); },
                             [] { sc_with_alloca(4000); }, sc_realigned};
  int answered = 0;
  for (int depth = 2; depth <= kMaxStackDepth; ++depth) {
    g_sc_depth = depth;
    for (auto* path : paths) {
      for (int again = 0; again < 2; ++again) {
        path();
        expect_same_walk(g_sc_last, "path");
        answered += g_sc_last.cached_n > 0;
      }
    }
  }
  // Plain frames, alloca'd (CFA on RBP) and realigned ones are all within the cache's rules here.
  EXPECT_EQ(answered, 2 * 6 * (kMaxStackDepth - 1));
  g_sc_depth = 3;
  sc_path_a();
  ASSERT_EQ(g_sc_last.cached_n, 3);
  EXPECT_EQ(sc_function_of(g_sc_last.cached[0]), sc_addr(sc_helper));
  EXPECT_EQ(sc_function_of(g_sc_last.cached[1]), sc_addr(sc_path_a));
  sc_path_b();
  EXPECT_EQ(sc_function_of(g_sc_last.cached[1]), sc_addr(sc_path_b));
}

TEST(StackCache, SecondWalkOfAStackReadsNoRule) {
  stack_cache_clear();
  g_sc_depth = 4;
  sc_path_c();
  const int first = stack_cache_learned();
  EXPECT_GT(first, 0);
  for (int i = 0; i < 100; ++i) sc_path_c();
  EXPECT_EQ(stack_cache_learned(), first);
  sc_path_b();  // a new caller above the same helper: its frames are read once, then kept
  EXPECT_GT(stack_cache_learned(), first);
}

TEST(StackCache, ThreadsWalkingTogetherAgreeWithLibgcc) {
  stack_cache_clear();
  std::atomic<int> wrong{0}, declined{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      g_sc_depth = 2 + t;
      for (int i = 0; i < 500; ++i) {
        (i + t) % 2 ? sc_path_a() : sc_path_c();
        const StackPair& p = g_sc_last;
        if (p.cached_n == 0) ++declined;
        else if (p.cached_n != p.unwound_n || std::memcmp(p.cached, p.unwound, sizeof p.cached) != 0) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(declined.load(), 8);  // only while another thread reads the same rule
}

// Two call paths reach one helper, interleaved a, b, a, b, a: at depth 2 they are two sites with
// 3 and 2 calls and their own byte sums, named by their callers.
TEST(StackCache, TwoPathsThroughOneHelperStayTwoSites) {
  callsites_begin("1", "2");
  sc_send_from_a();
  sc_send_from_b();
  sc_send_from_a();
  sc_send_from_b();
  sc_send_from_a();
  static SiteTotals out[kCallSites];
  const int n = callsite_totals(out);
  callsites_begin(nullptr);
  ASSERT_EQ(n, 2);
  const SiteTotals* a = nullptr;
  const SiteTotals* b = nullptr;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(out[i].depth, 2);
    EXPECT_EQ(sc_function_of(out[i].frames[0]), sc_addr(sc_send_helper));
    const std::uintptr_t caller = sc_function_of(out[i].frames[1]);
    (caller == sc_addr(sc_send_from_a) ? a : caller == sc_addr(sc_send_from_b) ? b : a) = &out[i];
  }
  ASSERT_TRUE(a && b && a != b);
  EXPECT_EQ(out[0].frames[0], out[1].frames[0]);  // the same immediate return address
  EXPECT_EQ(a->count, 3u);
  EXPECT_EQ(a->bytes, 48u);
  EXPECT_EQ(b->count, 2u);
  EXPECT_EQ(b->bytes, 512u);
  EXPECT_EQ(b->min_bytes, 256u);
}

// Hand-made .eh_frame entries: GCC's usual prologue, a CFA expression, a signal frame, _start.
std::vector<std::uint8_t> sc_eh_frame(const char* aug, std::vector<std::uint8_t> fde_insns) {
  std::vector<std::uint8_t> cie = {0, 0, 0, 0, 1};  // id 0, version 1
  for (const char* c = aug; *c; ++c) cie.push_back(static_cast<std::uint8_t>(*c));
  cie.insert(cie.end(), {0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1});  // caf 1, daf -8, RA 16, 'R' sdata4|pcrel; CFA rsp+8, RA at CFA-8
  while ((cie.size() + 4) % 8) cie.push_back(0);
  std::vector<std::uint8_t> out = {static_cast<std::uint8_t>(cie.size()), 0, 0, 0};
  out.insert(out.end(), cie.begin(), cie.end());
  const auto fde_at = out.size();
  std::vector<std::uint8_t> fde = {static_cast<std::uint8_t>(fde_at + 4), 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0};
  fde.insert(fde.end(), fde_insns.begin(), fde_insns.end());
  out.push_back(static_cast<std::uint8_t>(fde.size()));
  out.insert(out.end(), {0, 0, 0});
  out.insert(out.end(), fde.begin(), fde.end());
  return out;
}

TEST(CfiRule, ReadsTheStepsOfHandMadeEntries) {
  // push rbp (at 1: CFA rsp+16, rbp at CFA-16); mov rbp,rsp (at 4: CFA rbp+16).
  const auto prologue = sc_eh_frame("zR", {0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6});
  const auto* fde = prologue.data() + prologue[0] + 4;
  CfiStep s = cfi_step_from_fde(fde, 1);  // before push rbp
  EXPECT_EQ(s.kind, CfiKind::kStep);
  EXPECT_FALSE(s.cfa_on_rbp);
  EXPECT_EQ(s.cfa_offset, 8);
  EXPECT_FALSE(s.rbp_saved);
  s = cfi_step_from_fde(fde, 3);
  EXPECT_EQ(s.cfa_offset, 16);
  EXPECT_TRUE(s.rbp_saved);
  EXPECT_EQ(s.rbp_offset, -16);
  s = cfi_step_from_fde(fde, 50);
  EXPECT_TRUE(s.cfa_on_rbp);
  EXPECT_EQ(s.cfa_offset, 16);
  EXPECT_EQ(cfi_unpack(cfi_pack(s)).rbp_offset, -16);
  EXPECT_EQ(cfi_unpack(cfi_pack(s)).cfa_on_rbp, true);
  // GCC's realigned-stack CFA: DW_CFA_def_cfa_expression (DW_OP_breg6 -8; DW_OP_deref).
  const auto drap = sc_eh_frame("zR", {0x41, 0x0f, 3, 0x76, 0x78, 0x06});
  EXPECT_EQ(cfi_step_from_fde(drap.data() + drap[0] + 4, 5).kind, CfiKind::kUnsupported);
  EXPECT_EQ(cfi_step_from_fde(drap.data() + drap[0] + 4, 1).kind, CfiKind::kStep);
  const auto signal = sc_eh_frame("zRS", {});
  EXPECT_EQ(cfi_step_from_fde(signal.data() + signal[0] + 4, 1).kind, CfiKind::kUnsupported);
  const auto start = sc_eh_frame("zR", {0x07, 16});  // DW_CFA_undefined rip
  EXPECT_EQ(cfi_step_from_fde(start.data() + start[0] + 4, 1).kind, CfiKind::kOutermost);
}

}  // namespace
}  // namespace hpcsens::preload
