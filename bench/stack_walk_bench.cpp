// Issue 33: is libunwind's unw_backtrace() (Debian libunwind 1.6.2, local-only, static) a
// replacement for the preload's hand-written per-return-address step cache (stack_cache.h)?
// Walks `depth` frames (2, 4, 8) from inside a stand-in MPI wrapper called at the bottom of a
// chain of 10 real frames, three ways: (a) cached_stack(), (b) unw_backtrace(), (c) libgcc's
// _Unwind_Backtrace through unwound_stack(). Each walk's frames are checked against libgcc's
// before timing; a mismatch aborts the benchmark.
// Build (bench/CMakeLists.txt is claimed by another helper; target request in /tmp/team):
//   g++ -O2 -no-pie -std=c++20 -I. bench/stack_walk_bench.cpp build/lib/libhpcsens_preload_core.a \
//       -lbenchmark -lpthread -lgcc_s -l:libunwind.a -l:liblzma.a -o /tmp/bench_stack_walk
// -no-pie: Debian's libunwind.a is not PIC. -lgcc_s first: libunwind.a also defines
// _Unwind_Backtrace, which would otherwise replace libgcc's in the libgcc column.
// Run: /tmp/bench_stack_walk --benchmark_repetitions=9 --benchmark_report_aggregates_only=false
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <benchmark/benchmark.h>

#include "preload/account/stack_cache.h"

namespace {

enum class Walker { kCache, kLibunwind, kLibgcc };
volatile int g_sw_sink = 0;
constexpr int kSwMax = 16;

// libunwind's walk with stack_cache.h's contract: frames from `site` (the wrapper's return
// address) upward. unw_backtrace's first entry is the wrapper's own frame, so ask for one more.
[[gnu::noinline]] int sw_libunwind_stack(std::uintptr_t site, int depth, std::uintptr_t frames[]) {
  void* buf[kSwMax + 2];
  const int n = unw_backtrace(buf, depth + 2);
  int out = 0;
  for (int i = 0; i < n && out < depth; ++i) {
    const auto ip = reinterpret_cast<std::uintptr_t>(buf[i]);
    if (out == 0 && ip != site) continue;  // skip this helper's and the wrapper's own frames
    frames[out++] = ip;
  }
  return out;
}

[[gnu::noinline]] int sw_walk(Walker w, std::uintptr_t site, int depth, std::uintptr_t f[]) {
  switch (w) {
    case Walker::kCache: return hpcsens::preload::cached_stack(site, depth, kSwMax, f);
    case Walker::kLibunwind: return sw_libunwind_stack(site, depth, f);
    case Walker::kLibgcc: return hpcsens::preload::unwound_stack(site, depth, kSwMax, f);
  }
  return 0;
}

// Stands for an MPI wrapper: the site is its return address.
[[gnu::noinline]] int sw_wrapper(Walker w, int depth, std::uintptr_t f[]) {
  const auto site = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  const int n = sw_walk(w, site, depth, f);
  g_sw_sink = g_sw_sink + n;
  return n;
}

// A chain of N distinct real frames above the wrapper (work after each call: no tail calls).
template <int N>
[[gnu::noinline]] int sw_chain(Walker w, int depth, std::uintptr_t f[]) {
  int n = 0;
  if constexpr (N == 0) n = sw_wrapper(w, depth, f);
  else n = sw_chain<N - 1>(w, depth, f);
  g_sw_sink = g_sw_sink + N;
  return n;
}

void sw_check(Walker w, int depth) {
  std::uintptr_t got[kSwMax] = {}, ref[kSwMax] = {};
  const int n = sw_chain<10>(w, depth, got);
  const int m = sw_chain<10>(Walker::kLibgcc, depth, ref);
  bool same = n == m && n == depth;
  for (int i = 0; same && i < n; ++i) same = got[i] == ref[i];
  if (!same) {
    std::fprintf(stderr, "walker %d depth %d: %d frames, libgcc %d; frames differ\n",
                 static_cast<int>(w), depth, n, m);
    std::exit(1);
  }
}

void BM_StackWalk(benchmark::State& state, Walker w) {
  const int depth = static_cast<int>(state.range(0));
  sw_check(w, depth);  // warms the cache / libunwind's per-thread trace cache as well
  std::uintptr_t f[kSwMax];
  for (auto _ : state) benchmark::DoNotOptimize(sw_chain<10>(w, depth, f));
}

}  // namespace

BENCHMARK_CAPTURE(BM_StackWalk, cache, Walker::kCache)->Arg(2)->Arg(4)->Arg(8);
BENCHMARK_CAPTURE(BM_StackWalk, libunwind, Walker::kLibunwind)->Arg(2)->Arg(4)->Arg(8);
BENCHMARK_CAPTURE(BM_StackWalk, libgcc, Walker::kLibgcc)->Arg(2)->Arg(4)->Arg(8);
BENCHMARK_MAIN();
