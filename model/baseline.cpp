#include "model/baseline.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "common/errors.h"
#include "model/analysis.h"
#include "model/dataset.h"
#include "model/knob_design.h"
#include "model/rate_variation.h"

namespace hpcsens::model {
namespace {

struct Axis {
  Rate rate;
  bool higher_is_better;
  double floor;  // measured values this close to the best are one setting when no knob says so
  const char* words;
};

constexpr Axis kAxes[] = {
    {Rate::cpu_ghz, true, kCpuNoiseFloor, "core clock"},
    {Rate::net_latency_us, false, kNetNoiseFloor, "network latency"},
    {Rate::net_ns_per_byte, false, kNetNoiseFloor, "network time per byte"},
    {Rate::mem_gbs, true, kMemNoiseFloor, "memory bandwidth"},
};

// How good a configuration is on this axis, larger better: the measured rate, or for the
// network knob the delay it added (a loaded host's ping-pong scatter must not pick a throttled
// point).
double merit(const Axis& a, const Point& p, bool by_knob) {
  if (by_knob && a.rate == Rate::net_latency_us) return -p.knobs.net_added_latency_us;
  if (by_knob && a.rate == Rate::net_ns_per_byte) return -p.knobs.net_added_ns_per_byte;
  const double v = rate_value(a.rate, p);
  return a.higher_is_better ? v : -v;
}

// The configurations of the best knob setting of the axis: settings ranked by the median merit of
// their configurations.
std::vector<size_t> best_setting(const Axis& a, const std::vector<Point>& pts, const std::vector<size_t>& cand) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i : cand) groups[setting_key(a.rate, pts[i].knobs)].push_back(i);
  const std::vector<size_t>* best = nullptr;
  double best_m = -INFINITY;
  for (const auto& [key, g] : groups) {
    std::vector<double> m;
    for (size_t i : g) m.push_back(merit(a, pts[i], true));
    if (median(m) > best_m) best_m = median(m), best = &g;
  }
  return *best;
}

// Without knob settings: every configuration within the rate's measurement noise (the spread of
// its repetitions, else the floor) of the best measured value counts as that setting.
std::vector<size_t> near_best(const Axis& a, const std::vector<Point>& pts, const std::vector<size_t>& cand,
                              double& tol) {
  const RateVariation v = rate_variation(a.rate, pts);
  tol = std::isfinite(v.noise) && v.noise_from == "repetitions" ? std::max(0.5 * a.floor, 2 * v.noise) : a.floor;
  double best = -INFINITY;
  for (size_t i : cand) best = std::max(best, merit(a, pts[i], false));
  std::vector<size_t> keep;
  for (size_t i : cand)
    if (merit(a, pts[i], false) >= best - tol * std::fabs(best)) keep.push_back(i);
  return keep;
}

BaselineChoice named(const std::vector<Point>& pts, const std::string& label) {
  std::string labels;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].label == label) return {i, "chosen with --baseline " + label};
    labels += (labels.empty() ? "" : ", ") + pts[i].label;
  }
  throw InputError("--baseline", "no configuration is labelled '" + label + "' (the labels are: " + labels +
                                     "); name one of them, or leave --baseline out to use the fastest setting");
}

}  // namespace

BaselineChoice choose_baseline(const std::vector<Point>& pts, const std::string& label) {
  if (!label.empty()) return named(pts, label);
  std::vector<size_t> cand(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) cand[i] = i;
  std::string why;
  for (const Axis& a : kAxes) {
    if (!rate_varied(a.rate, pts)) continue;
    const bool by_knob = design_varied(a.rate, pts).has_value();
    const char* best = a.higher_is_better ? "highest" : "lowest";
    std::string part;
    if (by_knob) {
      cand = best_setting(a, pts, cand);
      part = fmt::format("the {} {} the sweep's knobs set", best, a.words);
    } else {
      double tol = 0;
      cand = near_best(a, pts, cand, tol);
      part = fmt::format("the {} {} (measured values within {:.1f} % of the best count as one setting: jitter, not "
                         "a different setting)",
                         best, a.words, 100 * tol);
    }
    why += (why.empty() ? "" : ", then ") + part;
  }
  // Within one setting of every varied rate: the fastest measured, deterministic.
  auto key = [&](const Point& p) {
    return std::make_tuple(p.cpu_ghz, -p.net_latency_us.value_or(0), -p.net_ns_per_byte.value_or(0), p.mem_gbs);
  };
  size_t b = cand.front();
  for (size_t i : cand)
    if (key(pts[i]) > key(pts[b])) b = i;
  if (why.empty()) why = "no rate was varied: the fastest measured configuration";
  return {b, "the configuration with " + why};
}

size_t pick_baseline(const std::vector<Point>& points) { return choose_baseline(points).index; }

}  // namespace hpcsens::model
