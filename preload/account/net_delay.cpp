#include "preload/account/net_delay.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <vector>

#include "common/preload_env.h"

namespace hpcsens::preload {

bool g_net_delay_on = false;
bool g_net_inter_only = false;

namespace {
double g_lat_ticks = 0;   // added ticks per message
double g_byte_ticks = 0;  // added ticks per byte
double g_ticks_per_ns = 1;
// What a spin costs beyond its target (its last clock read's overshoot and the two atomics that
// account for it), measured at start-up and taken off every target: a message then costs the
// requested delay more than with the knob off, not that plus a fixed ~50-100 ns.
double g_excess_ticks = 0;

// The feedback on the spins' length (next_spin_scale). On a machine that takes cores away now and
// then (a VM's hypervisor, another job), a spin that is interrupted near its end overruns it, and
// so delays run ~1-4 % long on average even with the fixed cost taken off; the next spins are
// then shortened until the mean delay is the requested one. Shared by all threads of the process
// (a lost update between two threads only slows the convergence).
std::atomic<double> g_scale{1.0};
// Spins shorter than this (1 us, or 10x the fixed cost on a machine where that is larger) do not
// move the scale: the knob's stated accuracy starts at 1 us (docs/methodology.md).
double g_feedback_min_ticks = 0;

// What the spins asked for and what they took (a rank that loses its core mid-spin comes back
// late): the record's measure of the delay really applied. Touched only when the knob is on.
struct SpinTotals {
  std::atomic<std::uint64_t> requested{0}, achieved{0};
};
SpinTotals g_totals;

// Every rank's node, as the hash of its processor name, indexed by MPI_COMM_WORLD rank (filled
// at MPI_Init when the knob is on; read-only afterwards).
std::vector<std::uint64_t> g_node_of;
std::uint64_t g_my_node = 0;

// Ticks per nanosecond of now_ticks(), measured over ~5 ms: the run-long rate TickClock gives is
// known only at the end, and the delay must be right from the first call.
double measure_ticks_per_ns() noexcept {
  TickClock probe;
  probe.start();  // chooses the same tick source as the run's own clock
  if (!probe.uses_tsc()) return 1.0;
  const std::uint64_t until = now_ns() + 5000000;
  while (now_ns() < until) {
  }
  return 1e-9 / probe.seconds_per_tick();
}

// Sleeps all but the last kSpinTailNs of a long delay (docs/methodology.md, "Spin or sleep"): on
// a machine whose cores are shared with other work, two spinning ranks compete for them and every
// delay stretches by the scheduler's time slices; a sleeping rank leaves its core and is woken
// promptly. Short delays (`ticks`), a network's real range, only spin. Returns the clock after.
std::uint64_t sleep_most(std::uint64_t now, std::uint64_t end, double ticks) noexcept {
  const double left_ns = now < end ? static_cast<double>(end - now) / g_ticks_per_ns : 0;
  if (ticks < kSleepAboveNs * g_ticks_per_ns || left_ns <= kSpinTailNs) return now;
  const double sleep_ns = left_ns - kSpinTailNs;
  const auto whole_s = static_cast<time_t>(sleep_ns * 1e-9);
  const timespec ts{whole_s, static_cast<long>(sleep_ns - 1e9 * static_cast<double>(whole_s))};
  nanosleep(&ts, nullptr);
  return now_ticks();
}

void spin(std::uint64_t start, double ticks, SpinTotals& totals, bool feedback) noexcept {
  const double scale = g_scale.load(std::memory_order_relaxed);
  const double target = std::max(ticks * scale - g_excess_ticks, 0.0);
  const std::uint64_t end = start + static_cast<std::uint64_t>(target);
  // No PAUSE in the loop: on a VM with pause-loop exiting a PAUSE loop looks like a spinning
  // lock, and the hypervisor may deschedule the vCPU.
  std::uint64_t now = sleep_most(now_ticks(), end, ticks);
  while (now < end) now = now_ticks();
  const std::uint64_t achieved = now - start + static_cast<std::uint64_t>(g_excess_ticks);
  totals.requested.fetch_add(static_cast<std::uint64_t>(ticks), std::memory_order_relaxed);
  totals.achieved.fetch_add(achieved, std::memory_order_relaxed);
  if (!feedback) return;
  g_scale.store(next_spin_scale(scale, ticks, static_cast<double>(achieved), g_feedback_min_ticks),
                std::memory_order_relaxed);
}

// The median excess of 101 spins of 1 us into scratch totals (about 0.1 ms at start-up).
double measure_excess_ticks() noexcept {
  constexpr int kSpins = 101;
  double excess[kSpins];
  SpinTotals scratch;
  const double ticks = 1e3 * g_ticks_per_ns;
  for (double& e : excess) {
    const std::uint64_t start = now_ticks();
    spin(start, ticks, scratch, false);
    e = static_cast<double>(now_ticks() - start) - ticks;
  }
  std::nth_element(excess, excess + kSpins / 2, excess + kSpins);
  return std::clamp(excess[kSpins / 2], 0.0, ticks / 2);
}
}  // namespace

void net_delay_spin(std::uint64_t start, double messages, double bytes) noexcept {
  const double ticks = messages * g_lat_ticks + bytes * g_byte_ticks;
  if (ticks >= 1) spin(start, ticks, g_totals, true);
}

NetDelayTotals net_delay_totals(double seconds_per_tick) noexcept {
  return {static_cast<double>(g_totals.requested.load(std::memory_order_relaxed)) * seconds_per_tick,
          static_cast<double>(g_totals.achieved.load(std::memory_order_relaxed)) * seconds_per_tick,
          g_excess_ticks / g_ticks_per_ns, g_scale.load(std::memory_order_relaxed)};
}

bool net_stays_on_node(int world_rank) noexcept {
  return g_net_inter_only && world_rank >= 0 && static_cast<std::size_t>(world_rank) < g_node_of.size() &&
         g_node_of[static_cast<std::size_t>(world_rank)] == g_my_node;
}

void net_delay_coll(std::uint64_t start, NetShape shape, std::int64_t p, std::int64_t bytes,
                    bool off_node) noexcept {
  if (!off_node) return;
  const NetCost c = net_cost(shape, p, bytes < 0 ? 0 : static_cast<std::uint64_t>(bytes));
  net_delay_spin(start, c.messages, c.bytes);
}

std::uint64_t net_node_hash(const std::string& processor_name) noexcept {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : processor_name) h = (h ^ c) * 1099511628211ull;
  return h;
}

int set_net_nodes(std::vector<std::uint64_t> node_of, std::uint64_t mine) noexcept {
  g_my_node = mine;
  g_node_of = std::move(node_of);
  const bool several = std::any_of(g_node_of.begin(), g_node_of.end(), [&](std::uint64_t h) { return h != mine; });
  g_net_inter_only = several;
  int n = several ? 2 : 1;  // at least; the exact count is for the record only
  try {
    std::vector<std::uint64_t> distinct = g_node_of;
    std::sort(distinct.begin(), distinct.end());
    n = static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
  } catch (...) {
  }
  return std::max(n, 1);
}

NetDelayState setup_net_delay() noexcept {
  NetDelayState s;
  const auto parsed = parse_net_delay(std::getenv(env::kNetLatencyUs),
                                      std::getenv(env::kNetBandwidthGbs), &s.error);
  if (!parsed || !parsed->on()) return s;
  s.setting = *parsed;
  s.ticks_per_ns = measure_ticks_per_ns();
  g_ticks_per_ns = s.ticks_per_ns;
  g_excess_ticks = measure_excess_ticks();
  g_feedback_min_ticks = std::max(1e3 * s.ticks_per_ns, 10 * g_excess_ticks);
  g_lat_ticks = s.setting.latency_us * 1e3 * s.ticks_per_ns;
  g_byte_ticks = s.setting.ns_per_byte() * s.ticks_per_ns;
  s.on = g_net_delay_on = true;
  return s;
}

}  // namespace hpcsens::preload
