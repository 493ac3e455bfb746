#include "model/predict.h"

#include <fmt/core.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/safe_file.h"
#include "model/dataset.h"
#include "model/glpk_guard.h"
#include "model/jackknife.h"
#include "model/number_format.h"
#include "model/predict_rates.h"
#include "model/prediction_verdict.h"
#include "model/rate_variation.h"
#include "model/yaml_position.h"

namespace hpcsens::model {
namespace {

// `v` is the rate as the model sees it (the cpu clock scaled by cpu_work_factor).
void check_range(PredictedRate& r, double v, Prediction& p) {
  const double lo = r.measured_lo, hi = r.measured_hi;
  if (!std::isfinite(v) || !(v < lo / kExtrapolationFactor || v > hi * kExtrapolationFactor)) return;
  r.beyond = std::max(v / hi, lo / v);
  p.extrapolated.push_back(r.name);
  p.extrapolation = std::max(p.extrapolation, r.beyond);
  p.warnings.push_back(fmt::format("{} {:g} {} is far outside the measured range {:g} to {:g}: extrapolating", r.name,
                                   v, r.unit, lo, hi));
}

// An extrapolated prediction rests on the model being right where nothing was measured: its
// interval widens by the model's error (LOOCV MAPE, at least kMinModelError) times how far out it
// is, and its verdict drops one step (to unreliable beyond kFarExtrapolationFactor).
void judge_extrapolation(const ModelReport& m, Prediction& p) {
  p.verdict = m.verdict.word;
  p.verdict_reasons = m.verdict.reasons;
  if (p.extrapolated.empty()) return;
  const double err = std::max(kMinModelError, std::isfinite(m.diag.loocv_mape) ? m.diag.loocv_mape : 0.0);
  const double extra = p.predicted_s * err * p.extrapolation;
  p.fit_low_s = std::max(0.0, p.fit_low_s - extra);
  p.fit_high_s += extra;
  p.low_s = std::min(p.low_s, p.fit_low_s);
  p.high_s = std::max(p.high_s, p.fit_high_s);
  std::string rates;
  for (const auto& r : p.extrapolated) rates += (rates.empty() ? "" : ", ") + r;
  const std::string why = fmt::format(
      "extrapolated: {} up to {:.2f}x beyond the measured range; the interval is widened by the model error {} x "
      "{:.2f}",
      rates, p.extrapolation, percent(err, 1), p.extrapolation);
  if (p.extrapolation > kFarExtrapolationFactor || p.verdict != "ok") p.verdict = "unreliable";
  else p.verdict = "caution";
  p.verdict_reasons.push_back(why);
}

// The one rate a one-rate model cannot project: cpu+fixed holds the memory part as measured.
void check_unmodelled_rate(const ModelReport& m, const SystemSpec& sys, std::vector<std::string>& warnings) {
  const Rate r = one_rate_of(m.spec);
  if (r == Rate::none) return;
  const bool cpu_model = r == Rate::cpu_ghz;
  const Rate other = cpu_model ? Rate::mem_gbs : Rate::cpu_ghz;
  const double swept = held_rate(m, other);
  const double target = cpu_model ? sys.mem_gbs : sys.cpu_ghz;
  // Within the jitter the sweep measured (or 1 % of the held value) is the same configuration.
  const RateVariation v = rate_variation(other, m.points);
  if (!std::isfinite(target)) return;  // neither given nor measured
  if (std::fabs(target - swept) <= 0.01 * swept || (target >= v.lo && target <= v.hi)) return;
  warnings.push_back(fmt::format(
      "{} {:g} differs from the {:g} of the sweep, but model {} does not model this change: the 'fixed' part is "
      "held at its measured value",
      cpu_model ? "mem_gbs" : "cpu_ghz", target, swept, m.spec.name()));
}

double yaml_number(const YAML::Node& sys, const char* key, const std::string& path, bool required,
                   PlausibleRange range, bool* present = nullptr) {
  const YAML::Node v = sys[key];
  if (present) *present = bool(v);
  if (!v) {
    if (required) throw InputError(yaml_position(path, sys) + ": field '" + key + "'", "missing");
    return 0;
  }
  if (!v.IsScalar())
    throw InputError(yaml_position(path, v) + ": field '" + key + "'", "not a number (a list or mapping)");
  double d = 0;
  try {
    d = v.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(yaml_position(path, v) + ": field '" + key + "'", "'" + v.Scalar() + "' is not a number");
  }
  if (!std::isfinite(d) || d <= 0)
    throw InputError(yaml_position(path, v) + ": field '" + key + "'", "must be a finite number greater than zero");
  check_plausible(d, range, yaml_position(path, v) + ": field '" + key + "'");
  return d;
}

// The rates of a candidate as a model configuration: its network as time per message and per byte.
Point system_point(const SystemSpec& sys, double cpu_ghz) {
  Point at;
  at.label = sys.name;
  at.cpu_ghz = cpu_ghz, at.mem_gbs = sys.mem_gbs, at.lat_ns = sys.lat_ns;
  at.net_latency_us = sys.net_latency_us;
  if (sys.net_bandwidth_gbs) at.net_ns_per_byte = 1.0 / *sys.net_bandwidth_gbs;  // 1 GB/s = 1 byte/ns
  return at;
}

SystemSpec parse_system(const YAML::Node& n, const std::string& path) {
  if (!n.IsMap()) throw InputError(yaml_position(path, n), "expected a system mapping with a name and the rates it changes (cpu_ghz, mem_gbs, ...)");
  static const std::set<std::string> known{"name",    "cpu_ghz", "mem_gbs",         "lat_ns",         "description",
                                           "nodes",   "price",   "power_w",         "cpu_work_factor", "net_latency_us",
                                           "net_bandwidth_gbs", "uncore_ghz"};
  for (const auto& kv : n) {
    if (!kv.first.IsScalar())
      throw InputError(yaml_position(path, kv.first), "a field name must be a plain word, not a list or mapping");
    const std::string k = kv.first.as<std::string>();
    if (!known.count(k))
      throw InputError(yaml_position(path, kv.first) + ": field '" + k + "'",
                       "unknown field (expected name, cpu_ghz, mem_gbs, lat_ns, net_latency_us, net_bandwidth_gbs, "
                       "nodes, price, power_w, cpu_work_factor, uncore_ghz, description)");
  }
  SystemSpec s;
  s.where = yaml_position(path, n);
  if (!n["name"]) throw InputError(yaml_position(path, n) + ": field 'name'", "missing");
  if (!n["name"].IsScalar() || n["name"].Scalar().empty())
    throw InputError(yaml_position(path, n["name"]) + ": field 'name'",
                     "must be a non-empty word, not a list or mapping");
  s.name = n["name"].as<std::string>();
  // A rate left out is the model's baseline value; predict() refuses one the model has a term for.
  s.cpu_ghz = yaml_number(n, "cpu_ghz", path, false, kCpuGhzRange);
  s.mem_gbs = yaml_number(n, "mem_gbs", path, false, kMemGbsRange);
  bool has = false;
  const double lat = yaml_number(n, "lat_ns", path, false, kLatNsRange, &has);
  if (has) s.lat_ns = lat;
  const double net_lat = yaml_number(n, "net_latency_us", path, false, kNetLatencyUsRange, &has);
  if (has) s.net_latency_us = net_lat;
  const double net_bw = yaml_number(n, "net_bandwidth_gbs", path, false, kNetBandwidthGbsRange, &has);
  if (has) s.net_bandwidth_gbs = net_bw;
  const double nodes = yaml_number(n, "nodes", path, false, {1, 1e7}, &has);
  if (has) s.nodes = nodes;
  const double price = yaml_number(n, "price", path, false, {1e-6, 1e15}, &has);
  if (has) s.price = price;
  const double power = yaml_number(n, "power_w", path, false, {1e-3, 1e10}, &has);
  if (has) s.power_w = power;
  const double f = yaml_number(n, "cpu_work_factor", path, false, {0.01, 100}, &has);
  if (has) s.cpu_work_factor = f;
  const double uncore = yaml_number(n, "uncore_ghz", path, false, kCpuGhzRange, &has);
  if (has) s.uncore_ghz = uncore;
  return s;
}

}  // namespace

std::vector<SystemSpec> parse_systems_yaml(const std::string& text, const std::string& path);

namespace {

// The fit interval at `at`: the jackknife's when the model has one, else the covariance's.
void fit_interval(const ModelReport& m, const Point& at, Prediction& p) {
  const auto g = model_gradient(m.spec, m.params, at);
  auto quad = [&](const std::vector<std::vector<double>>& c) {
    double v = 0;
    for (size_t a = 0; a < g.size(); ++a)
      for (size_t b = 0; b < g.size(); ++b) v += g[a] * c[a][b] * g[b];
    return std::sqrt(std::max(0.0, v));
  };
  const double half = 1.96 * quad(m.covariance);
  p.cov_low_s = std::max(0.0, p.predicted_s - half);
  p.cov_high_s = p.predicted_s + half;
  p.fit_low_s = p.cov_low_s, p.fit_high_s = p.cov_high_s;
  if (!m.jackknife_covariance.empty()) {
    const double jhalf = jackknife_t(m.jackknife_n) * quad(m.jackknife_covariance);
    p.fit_low_s = std::max(0.0, p.predicted_s - jhalf);
    p.fit_high_s = p.predicted_s + jhalf;
    p.interval_method = "jackknife";
  }
  p.low_s = p.fit_low_s;
  p.high_s = p.fit_high_s;
}

void overlap_interval(const ModelReport& m, const Point& at, Prediction& p) {
  if (!m.bounds.feasible) return;
  try {
    if (auto r = overlap_time_range(m.spec.terms, m.points, m.bounds.slack, at)) {
      p.overlap_low_s = r->lo;
      p.overlap_high_s = r->hi;
      p.low_s = std::min(p.low_s, r->lo);
      p.high_s = std::max(p.high_s, r->hi);
    }
  } catch (const GlpkError& e) {
    p.warnings.push_back(std::string("overlap bounds unavailable: ") + e.what());
  }
}

// Only the rates the model uses are judged: a network model holds the node as measured.
void check_ranges(const SystemSpec& sys, double cpu, Prediction& p) {
  for (auto& r : p.rates) {
    if (!r.modelled) continue;
    const UserRate* u = nullptr;
    for (const auto& x : user_rates())
      if (r.name == x.name) u = &x;
    check_range(r, u->rate == Rate::cpu_ghz ? cpu : system_value(*u, sys), p);
  }
}

}  // namespace

Prediction predict(const ModelReport& m, const SystemSpec& given) {
  Prediction p;
  p.system = given;
  p.rates = resolve_rates(m, p.system);
  const SystemSpec& sys = p.system;
  const double cpu = sys.cpu_ghz / sys.cpu_work_factor;  // effective clock (see SystemSpec)
  const Point at = system_point(sys, cpu);
  p.predicted_s = model_time(m.spec, m.params, at);
  fit_interval(m, at, p);
  overlap_interval(m, at, p);
  if (sys.cpu_work_factor != 1.0)
    p.warnings.push_back(fmt::format("cpu_work_factor {:g}: the cpu work is scaled as if the clock were {:g} GHz",
                                     sys.cpu_work_factor, cpu));
  check_unmodelled_rate(m, sys, p.warnings);
  if (m.verdict.word == "unreliable")
    p.warnings.insert(p.warnings.begin(), "UNRELIABLE model: this prediction inherits its verdict");
  check_ranges(sys, cpu, p);
  judge_extrapolation(m, p);
  judge_prediction(m, p);  // `ok` only within +-5 %, on tested ground (model/prediction_verdict.h)
  p.baseline_model_s = model_time(m.spec, m.params, m.points[m.baseline]);
  const double base = p.baseline_model_s;
  p.speedup = base / p.predicted_s;
  p.speedup_low = base / p.fit_high_s;
  p.speedup_high = p.fit_low_s > 0 ? base / p.fit_low_s : INFINITY;
  if (m.emulated) p.warnings.insert(p.warnings.begin(), "EMULATED: the model was fitted to emulated runs");
  return p;
}

std::vector<SystemSpec> parse_systems(const std::string& text, const std::string& path) {
  try {
    return parse_systems_yaml(text, path);
  } catch (const YAML::Exception& e) {
    throw InputError(path + ":" + std::to_string(e.mark.line + 1), "not valid YAML (" + e.msg + ")");
  }
}

std::vector<SystemSpec> parse_systems_yaml(const std::string& text, const std::string& path) {
  YAML::Node root = YAML::Load(text);
  YAML::Node list = root;
  if (root.IsMap() && root["systems"]) list = root["systems"];
  std::vector<SystemSpec> out;
  if (list.IsSequence()) {
    for (const auto& n : list) out.push_back(parse_system(n, path));
  } else if (list.IsMap()) {
    out.push_back(parse_system(list, path));
  } else {
    throw InputError(path, "expected a system (name, cpu_ghz, mem_gbs) or a list of them under 'systems:'");
  }
  if (out.empty()) throw InputError(path + ": field 'systems'", "empty list");
  check_unique_names(out);
  return out;
}

std::vector<SystemSpec> load_systems(const std::string& path) {
  return parse_systems(safe_file::read_input_file(path, kMaxInputBytes), path);
}

void check_unique_names(const std::vector<SystemSpec>& systems) {
  std::map<std::string, const SystemSpec*> seen;
  for (const auto& s : systems) {
    auto [it, fresh] = seen.emplace(s.name, &s);
    if (!fresh)
      throw InputError((s.where.empty() ? std::string("--name") : s.where) + ": field 'name'",
                       "duplicate system name '" + s.name + "'" +
                           (it->second->where.empty() ? "" : " (first at " + it->second->where + ")"));
  }
}

double held_rate(const ModelReport& m, Rate r) {
  std::vector<double> v;
  for (const auto& p : m.points) v.push_back(rate_value(r, p));
  return median(v);
}

std::vector<std::string> ranking_overlaps(const std::vector<Prediction>& r) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < r.size(); ++i)
    if (r[i].fit_high_s >= r[i + 1].fit_low_s) out.push_back(r[i].system.name + " and " + r[i + 1].system.name);
  return out;
}

void rank_predictions(std::vector<Prediction>& preds) {
  std::stable_sort(preds.begin(), preds.end(),
                   [](const Prediction& a, const Prediction& b) { return a.predicted_s < b.predicted_s; });
}

}  // namespace hpcsens::model
