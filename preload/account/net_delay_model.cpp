#include "preload/account/net_delay_model.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/preload_env.h"
#include "common/text_escape.h"

namespace hpcsens::preload {

double next_spin_scale(double scale, double requested, double achieved, double min_requested) noexcept {
  if (!(requested >= min_requested) || !(requested > 0)) return scale;
  const double error = std::clamp((achieved - requested) / requested, -kSpinErrorCap, kSpinErrorCap);
  return std::clamp(scale - kSpinScaleGain * error, kSpinScaleMin, kSpinScaleMax);
}

int ceil_log2(std::int64_t p) noexcept {
  int k = 0;
  while (k < 62 && (std::int64_t{1} << k) < p) ++k;
  return k;
}

NetCost net_cost(NetShape shape, std::int64_t p, std::uint64_t n) noexcept {
  const double b = static_cast<double>(n);
  if (shape == NetShape::p2p) return {1, b};
  if (p <= 1) return {0, 0};  // a collective of one rank sends nothing
  const double steps = ceil_log2(p), others = static_cast<double>(p - 1);
  const double share = b * others / static_cast<double>(p);  // what leaves for the other ranks
  // The algorithms the shapes are made of (net_delay_model.h says which shape uses which).
  const NetCost tree{steps, steps * b}, doubling{steps, b * others}, ring{others, b * others};
  const NetCost pairwise{others, share}, at_once{1, share}, split_and_gather{2 * steps, 2 * share};
  switch (shape) {
    case NetShape::barrier: return {steps, 0};
    case NetShape::tree: return tree;
    case NetShape::allreduce:
    case NetShape::reduce: return n < kLongReduceBytes ? tree : split_and_gather;
    case NetShape::bcast: return n < kLongBcastBytes ? tree : NetCost{steps + others, 2 * share};
    case NetShape::gather: return doubling;
    case NetShape::allgather: return n * static_cast<std::uint64_t>(p) < kLongAllgatherBytes ? doubling : ring;
    case NetShape::halving: return {steps, share};
    case NetShape::pairwise: return pairwise;
    case NetShape::scattered: return at_once;
    case NetShape::alltoall: {
      const std::uint64_t block = n / static_cast<std::uint64_t>(p);
      if (block <= kShortAlltoallBlock && p >= 8) return {steps, b / 2 * steps};  // Bruck
      return block <= kMediumAlltoallBlock ? at_once : pairwise;
    }
    case NetShape::neighbor: return {1, b};
    case NetShape::p2p: break;
  }
  return {1, b};
}

namespace {

// A plain decimal number as a person or the sweep writes it: digits, one sign, a point, an
// exponent. strtod alone also takes hex ("0x10"), leading blanks, "inf" and "nan".
bool plain_decimal(const char* text) {
  std::size_t n = 0;
  for (const char* p = text; *p; ++p, ++n) {
    const char c = *p;
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
  }
  return n > 0 && n <= 64;
}

// At most 64 characters of a bad value, escaped (an environment is anyone's to fill).
std::string shown(const char* text) {
  const std::string_view v(text);
  constexpr std::size_t kShown = 64;
  std::string s = text::escape_for_message(v.substr(0, kShown));
  if (v.size() > kShown) s += "... (" + std::to_string(v.size()) + " characters)";
  return s;
}

// One variable: unset is 0; otherwise 0 or a finite plain decimal number in [min, max].
bool parse_one(const char* text, const char* name, double min, double max, double* out,
               std::string* error) {
  *out = 0;
  if (text == nullptr || *text == '\0') return true;
  errno = 0;
  char* end = nullptr;
  const double v = plain_decimal(text) ? std::strtod(text, &end) : 0;
  if (end == nullptr || end == text || *end != '\0' || errno == ERANGE || !std::isfinite(v) ||
      (v != 0 && (v < min || v > max))) {
    if (error) {
      char range[96];
      std::snprintf(range, sizeof range, "0 or a decimal number in [%g, %g]", min, max);
      *error = std::string(name) + "='" + shown(text) + "' is not " + range;
    }
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<NetDelaySetting> parse_net_delay(const char* latency_us, const char* bandwidth_gbs,
                                               std::string* error) {
  NetDelaySetting s;
  // Beyond these a value is a typo, not a network (and 0.000001 GB/s would spin for hours).
  if (!parse_one(latency_us, env::kNetLatencyUs, 0, env::kNetMaxLatencyUs, &s.latency_us, error))
    return std::nullopt;
  if (!parse_one(bandwidth_gbs, env::kNetBandwidthGbs, env::kNetMinBandwidthGbs,
                 env::kNetMaxBandwidthGbs, &s.bandwidth_gbs, error))
    return std::nullopt;
  return s;
}

}  // namespace hpcsens::preload
