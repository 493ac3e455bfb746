#pragma once
// Was a rate varied by the sweep's design, or did it only jitter? Measured rates (STREAM at every
// visit of a point, the calibrated clock) always move a little between configurations; a term fed
// by such jitter would take over the constant time and report a sensitivity nobody measured.
// Pure functions over the points (docs/methodology.md, "Varied by design or only jittered").
#include <cmath>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace hpcsens::model {

// A varied rate's range hi/lo - 1 must exceed both this and kJitterFactor x its measurement noise.
inline constexpr double kMinVariedRange = 0.05;
inline constexpr double kJitterFactor = 3.0;
// Ranges are compared with this tolerance: hi / lo - 1 carries rounding error of a few 1e-17.
inline constexpr double kRangeTolerance = 1e-9;
// Measurement noise (relative spread of repeated measurements at one configuration) assumed when
// the data has no repetitions that re-measured the rate.
inline constexpr double kCpuNoiseFloor = 0.01;  // calibrated clock: a dependent add chain, ~0.1-1 %
inline constexpr double kMemNoiseFloor = 0.03;  // STREAM Triad between visits of one point: 1-3 %
inline constexpr double kLatNoiseFloor = 0.03;  // pointer-chasing latency, same order as STREAM
// Network rates: ping-pong latency and streaming bandwidth, medians of many round trips, move by
// a few per cent between runs on a shared host (docs/methodology.md, "The interconnect").
inline constexpr double kNetNoiseFloor = 0.05;

struct RateVariation {
  Rate rate = Rate::none;
  bool present = false;        // every point gives this rate
  double lo = NAN, hi = NAN, median = NAN;
  double range = 0;            // hi / lo - 1
  double noise = NAN;          // relative spread of repeated measurements of the rate
  std::string noise_from;      // "repetitions" or "floor"
  double threshold = 0;        // what range must exceed: max(kMinVariedRange, kJitterFactor x noise)
  bool varied = false;
  // The sweep's knobs held this rate's drivers at one setting (model/knob_design.h): not varied
  // whatever its measurements did.
  bool held_by_design = false;
};

RateVariation rate_variation(Rate r, const std::vector<Point>& points);
// cpu_ghz, mem_gbs, and lat_ns and the network rates when every point has them.
std::vector<RateVariation> rate_variations(const std::vector<Point>& points);
// Whether the sweep varied a rate by design (rate_variation(r, points).varied).
bool rate_varied(Rate r, const std::vector<Point>& points);

// A rate counts as varied when it moved by more than its threshold and, where the records say what
// the knobs set, the knobs behind it took more than one setting.
// "mem_gbs moved only 2.9 % between points (98.5 to 101.4), within its measurement noise ...:
// treated as constant at its median 100 GB/s; memory bandwidth was not varied by this sweep".
// Empty for a varied rate or one that did not move at all.
std::string held_constant_note(const RateVariation& v);

}  // namespace hpcsens::model
