#pragma once
// The arithmetic of RAPL energy counters: pure functions, no I/O.
#include <cstdint>
#include <optional>

namespace hpcsens::energy {

// No single RAPL zone of a server part draws more (the largest sockets are rated about 500 W):
// twice that keeps the wrap estimate below safe for any part we know of.
inline constexpr double kMaxPlausibleWatts = 1000.0;
// Sampling more often than this buys nothing (the counters update about every millisecond) and
// costs a wake-up; less often than the wrap needs loses wraps. Bounds of sample_interval_s.
inline constexpr double kMaxIntervalS = 1.0;
inline constexpr double kMinIntervalS = 0.01;

// How far a counter that counts 0..max_range_uj and then starts again at 0 (the kernel's
// energy_uj, wrapping at max_energy_range_uj) advanced from `start` to `end`:
// (end - start) mod (max_range_uj + 1). Exact only if it wrapped at most once in between, which
// the sampler's interval ensures. nullopt when a reading lies outside the counter's range (not a
// reading of that counter).
std::optional<std::uint64_t> delta_uj(std::uint64_t start, std::uint64_t end, std::uint64_t max_range_uj);

// The counter wrapped between the two readings (counted in the record's `wraps`).
inline bool wrapped(std::uint64_t start, std::uint64_t end) { return end < start; }

// Joules over seconds; nullopt for a span that is not positive.
std::optional<double> mean_watts(double joules, double seconds);

// Seconds a counter of this range takes to wrap at `watts`: (max_range_uj + 1) uJ / watts.
double wrap_time_s(std::uint64_t max_range_uj, double watts = kMaxPlausibleWatts);

// How often to read a counter of this range: a quarter of its wrap time at kMaxPlausibleWatts
// (so even a reading delayed by three intervals on a loaded node sees at most one wrap), within
// [kMinIntervalS, kMaxIntervalS].
double sample_interval_s(std::uint64_t max_range_uj, double watts = kMaxPlausibleWatts);

}  // namespace hpcsens::energy
