#include "preload/account/net_delay.h"

#include <time.h>

#include <atomic>
#include <cstdlib>

#include "common/preload_env.h"

namespace hpcsens::preload {

bool g_net_delay_on = false;

namespace {
double g_lat_ticks = 0;   // added ticks per message
double g_byte_ticks = 0;  // added ticks per byte
double g_ticks_per_ns = 1;
// What the spins asked for and what they took (a rank that loses its core mid-spin comes back
// late): the record's measure of the delay really applied. Touched only when the knob is on.
std::atomic<std::uint64_t> g_requested_ticks{0}, g_achieved_ticks{0};

// Ticks per nanosecond of now_ticks(), measured over ~2 ms: the run-long rate TickClock gives
// is known only at the end, and the delay must be right from the first call.
double measure_ticks_per_ns() noexcept {
  TickClock probe;
  probe.start();  // chooses the same tick source as the run's own clock
  if (!probe.uses_tsc()) return 1.0;
  const std::uint64_t until = now_ns() + 2000000;
  while (now_ns() < until) {
  }
  return 1e-9 / probe.seconds_per_tick();
}
}  // namespace

void net_delay_spin(std::uint64_t start, double messages, double bytes) noexcept {
  const double ticks = messages * g_lat_ticks + bytes * g_byte_ticks;
  if (!(ticks >= 1)) return;
  const std::uint64_t end = start + static_cast<std::uint64_t>(ticks);
  // No PAUSE in the loop: on a VM with pause-loop exiting a PAUSE loop looks like a spinning
  // lock, and the hypervisor may deschedule the vCPU.
  std::uint64_t now = now_ticks();
  // A long delay sleeps all but its tail (docs/methodology.md, "Spin or sleep"): on a machine
  // whose cores are shared with other work, two spinning ranks compete for them and every delay
  // stretches by the scheduler's time slices; a sleeping rank leaves its core and is woken
  // promptly. Short delays, a network's real range, spin as before.
  const double left_ns = static_cast<double>(end - now) / g_ticks_per_ns;
  if (ticks >= kSleepAboveNs * g_ticks_per_ns && left_ns > kSpinTailNs) {
    const double sleep_ns = left_ns - kSpinTailNs;
    const timespec ts{static_cast<time_t>(sleep_ns * 1e-9),
                      static_cast<long>(sleep_ns - 1e9 * static_cast<double>(static_cast<time_t>(sleep_ns * 1e-9)))};
    nanosleep(&ts, nullptr);
    now = now_ticks();
  }
  while (now < end) now = now_ticks();
  g_requested_ticks.fetch_add(static_cast<std::uint64_t>(ticks), std::memory_order_relaxed);
  g_achieved_ticks.fetch_add(now - start, std::memory_order_relaxed);
}

NetDelayTotals net_delay_totals(double seconds_per_tick) noexcept {
  return {static_cast<double>(g_requested_ticks.load(std::memory_order_relaxed)) * seconds_per_tick,
          static_cast<double>(g_achieved_ticks.load(std::memory_order_relaxed)) * seconds_per_tick};
}

void net_delay_coll(std::uint64_t start, NetShape shape, std::int64_t p, std::int64_t bytes) noexcept {
  const NetCost c = net_cost(shape, p, bytes < 0 ? 0 : static_cast<std::uint64_t>(bytes));
  net_delay_spin(start, c.messages, c.bytes);
}

NetDelayState setup_net_delay() noexcept {
  NetDelayState s;
  const auto parsed = parse_net_delay(std::getenv(env::kNetLatencyUs),
                                      std::getenv(env::kNetBandwidthGbs), &s.error);
  if (!parsed || !parsed->on()) return s;
  s.setting = *parsed;
  s.ticks_per_ns = measure_ticks_per_ns();
  g_ticks_per_ns = s.ticks_per_ns;
  g_lat_ticks = s.setting.latency_us * 1e3 * s.ticks_per_ns;
  g_byte_ticks = s.setting.ns_per_byte() * s.ticks_per_ns;
  s.on = g_net_delay_on = true;
  return s;
}

}  // namespace hpcsens::preload
