#include "model/rate_variation.h"

#include <fmt/core.h>

#include <algorithm>

#include "model/dataset.h"
#include "model/knob_design.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

double noise_floor(Rate r) {
  switch (r) {
    case Rate::cpu_ghz: return kCpuNoiseFloor;
    case Rate::mem_gbs: return kMemNoiseFloor;
    case Rate::lat_ns: return kLatNoiseFloor;
    case Rate::net_latency_us:
    case Rate::net_ns_per_byte: return kNetNoiseFloor;
    case Rate::none: break;
  }
  return 0;
}

double spread_of(Rate r, const Point& p) {
  switch (r) {
    case Rate::cpu_ghz: return p.cpu_spread;
    case Rate::mem_gbs: return p.mem_spread;
    case Rate::lat_ns: return p.lat_spread;
    case Rate::net_latency_us: return p.net_lat_spread;
    case Rate::net_ns_per_byte: return p.net_bw_spread;
    case Rate::none: break;
  }
  return NAN;
}

const char* unit_of(Rate r) {
  switch (r) {
    case Rate::cpu_ghz: return "GHz";
    case Rate::mem_gbs: return "GB/s";
    case Rate::lat_ns: return "ns";
    case Rate::net_latency_us: return "us";
    case Rate::net_ns_per_byte: return "ns/byte";
    case Rate::none: break;
  }
  return "";
}

const char* varied_words(Rate r) {
  switch (r) {
    case Rate::cpu_ghz: return "the core clock";
    case Rate::mem_gbs: return "memory bandwidth";
    case Rate::lat_ns: return "memory latency";
    case Rate::net_latency_us: return "network latency";
    case Rate::net_ns_per_byte: return "network bandwidth";
    case Rate::none: break;
  }
  return "";
}

// Repetitions that carry identical rates wrote the rate once instead of measuring it again: they
// say nothing about its noise, so only a non-zero spread counts as a measurement.
void set_noise(RateVariation& v, const std::vector<Point>& points) {
  std::vector<double> spreads;
  bool any_moved = false;
  for (const auto& p : points) {
    const double s = spread_of(v.rate, p);
    if (!std::isfinite(s)) continue;
    spreads.push_back(s);
    any_moved = any_moved || s > 0;
  }
  if (any_moved) {
    v.noise = median(spreads);
    v.noise_from = "repetitions";
  } else {
    v.noise = noise_floor(v.rate);
    v.noise_from = "floor";
  }
  v.threshold = std::max(kMinVariedRange, kJitterFactor * v.noise);
}

}  // namespace

RateVariation rate_variation(Rate r, const std::vector<Point>& points) {
  RateVariation v;
  v.rate = r;
  std::vector<double> vals;
  for (const auto& p : points) {
    const double x = rate_value(r, p);
    if (!std::isfinite(x) || x <= 0) return v;
    vals.push_back(x);
  }
  if (vals.empty()) return v;
  v.present = true;
  const auto [lo, hi] = std::minmax_element(vals.begin(), vals.end());
  v.lo = *lo, v.hi = *hi, v.median = median(vals);
  v.range = v.hi / v.lo - 1;
  set_noise(v, points);
  // "Exceeds": a range of exactly 5 % (2.0 to 2.1 GHz) is 0.050000000000000044 in floating point,
  // which must not count as varied by the rounding of a division.
  v.varied = v.range > v.threshold + kRangeTolerance;
  if (v.varied && design_varied(r, points) == false) v.varied = false, v.held_by_design = true;
  return v;
}

std::vector<RateVariation> rate_variations(const std::vector<Point>& points) {
  std::vector<RateVariation> out{rate_variation(Rate::cpu_ghz, points), rate_variation(Rate::mem_gbs, points)};
  for (Rate r : {Rate::lat_ns, Rate::net_latency_us, Rate::net_ns_per_byte})
    if (RateVariation v = rate_variation(r, points); v.present) out.push_back(v);
  return out;
}

bool rate_varied(Rate r, const std::vector<Point>& points) { return rate_variation(r, points).varied; }

std::string held_constant_note(const RateVariation& v) {
  if (!v.present || v.varied || v.range <= 0) return "";
  if (v.held_by_design)
    return fmt::format(
        "{} moved {} between points ({:g} to {:g}) although the sweep's knobs held it at one setting: that is "
        "measurement noise, treated as constant at its median {:g} {}; {} was not varied by this sweep, so no "
        "sensitivity to it is stated",
        rate_name(v.rate), percent(v.range, 1), v.lo, v.hi, v.median, unit_of(v.rate), varied_words(v.rate));
  const std::string noise =
      v.noise_from == "repetitions"
          ? fmt::format("its repeated measurements at one configuration spread by {}", percent(v.noise, 1))
          : fmt::format("no repetitions re-measured it, so a spread of {} is assumed", percent(v.noise, 1));
  return fmt::format(
      "{} moved only {} between points ({:g} to {:g}), within its measurement noise ({}; a varied rate must move "
      "more than {}): treated as constant at its median {:g} {}; {} was not varied by this sweep, so no sensitivity "
      "to it is stated",
      rate_name(v.rate), percent(v.range, 1), v.lo, v.hi, noise, percent(v.threshold, 1), v.median, unit_of(v.rate),
      varied_words(v.rate));
}

}  // namespace hpcsens::model
