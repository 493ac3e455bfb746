#pragma once
// Clocks of the preload.
//
// now_s(): CLOCK_MONOTONIC seconds, for McCalpin's t0..t3 (comparable across ranks on one host).
// now_ticks(): the hot-path clock. Reading CLOCK_MONOTONIC costs ~40 ns even through the vDSO on
// a VM, twice per intercepted call; the TSC costs about half. So where the TSC is invariant (the
// kernel reports constant_tsc and nonstop_tsc) calls are timed in TSC ticks, converted to seconds
// with a rate measured against CLOCK_MONOTONIC over the run itself; elsewhere ticks are ns.
#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HPCSENS_HAVE_TSC 1
#endif

namespace hpcsens::preload {

inline std::uint64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

inline double now_s() noexcept { return static_cast<double>(now_ns()) * 1e-9; }

extern bool g_use_tsc;  // set once by TickClock::start(), before any call is counted

[[gnu::always_inline]] inline std::uint64_t now_ticks() noexcept {
#ifdef HPCSENS_HAVE_TSC
  if (g_use_tsc) return __rdtsc();
#endif
  return now_ns();
}

// Chooses the tick source and measures its rate between start() and seconds_per_tick(). Each end
// is the tightest of several tick reads bracketed by two clock_gettime calls: a thread preempted
// between reading the two clocks would otherwise skew a rate measured over a few ms by the length
// of the preemption (the network knob's start-up probe; its spins ran 1-4 % long).
class TickClock {
 public:
  // `cpuinfo_flags`: the flags line of /proc/cpuinfo (empty: read it).
  void start(const char* cpuinfo_flags = nullptr) noexcept;
  // Seconds per tick over the span since start() (1e-9 when ticks are nanoseconds).
  double seconds_per_tick() const noexcept;
  bool uses_tsc() const noexcept { return tsc_; }

 private:
  bool tsc_ = false;
  std::uint64_t ns0_ = 0, tick0_ = 0;  // one tight pair: tick0_ was read at ns0_
};

// Whether a /proc/cpuinfo flags text promises a TSC with one rate in every P- and C-state.
bool invariant_tsc(const char* flags) noexcept;

}  // namespace hpcsens::preload
