#include "energy/energy_math.h"

#include <algorithm>

namespace hpcsens::energy {

std::optional<std::uint64_t> delta_uj(std::uint64_t start, std::uint64_t end, std::uint64_t max_range_uj) {
  if (start > max_range_uj || end > max_range_uj) return std::nullopt;
  if (end >= start) return end - start;
  // Up to the top, one step over it to 0, then up to `end`; no overflow even at UINT64_MAX.
  return (max_range_uj - start) + 1 + end;
}

std::optional<double> mean_watts(double joules, double seconds) {
  if (!(seconds > 0)) return std::nullopt;
  return joules / seconds;
}

double wrap_time_s(std::uint64_t max_range_uj, double watts) {
  return (static_cast<double>(max_range_uj) + 1.0) / 1e6 / watts;
}

double sample_interval_s(std::uint64_t max_range_uj, double watts) {
  return std::clamp(wrap_time_s(max_range_uj, watts) / 4.0, kMinIntervalS, kMaxIntervalS);
}

}  // namespace hpcsens::energy
