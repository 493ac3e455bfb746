#include "report/rate_axes.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace hpcsens::report {
namespace {

using nlohmann::json;
using model::Rate;

const std::vector<std::string> kMemoryKnobs = {"memory_config", "mem_bw_requested", "uncore_min_ghz", "uncore_max_ghz"};

// Words, shown unit and knob keys of the rates that have them; a rate added to the term registry
// later is still shown, by its key, until it gets a line here.
RateAxis describe(Rate r) {
  RateAxis a;
  a.rate = r;
  a.key = a.shown_key = model::rate_name(r);
  switch (r) {
    case Rate::cpu_ghz: a.words = "core clock", a.unit = "GHz", a.knob_keys = {"cpu_ghz_requested"}; break;
    case Rate::mem_gbs: a.words = "memory bandwidth", a.unit = "GB/s", a.knob_keys = kMemoryKnobs; break;
    case Rate::lat_ns: a.words = "memory latency", a.unit = "ns", a.knob_keys = kMemoryKnobs; break;
    case Rate::net_latency_us:
      a.words = "network latency", a.unit = "us", a.knob_keys = {"net_added_latency_us"};
      break;
    case Rate::net_ns_per_byte:
      // Stored as a time per byte (linear in the model); the user typed a bandwidth.
      a.words = "network bandwidth", a.unit = "GB/s", a.inverse = true, a.shown_key = "net_bandwidth_gbs";
      a.knob_keys = {"net_added_bandwidth_gbs"};
      break;
    case Rate::none: break;
  }
  if (a.words.empty()) a.words = a.key;
  return a;
}

// One knob value in words: "+200 us latency", "0.25 GB/s link", "2.4 GHz set", "ddr5-4400".
std::string knob_words(const std::string& key, const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) return key + "=" + v.dump();
  const double x = v.get<double>();
  if (key == "cpu_ghz_requested") return fmt::format("{:g} GHz set", x);
  if (key == "mem_bw_requested") return fmt::format("{:g} GB/s requested", x);
  if (key == "uncore_min_ghz" || key == "uncore_max_ghz") return fmt::format("uncore {:g} GHz", x);
  if (key == "net_added_latency_us") return x > 0 ? fmt::format("+{:g} us latency", x) : "no added latency";
  if (key == "net_added_bandwidth_gbs") return x > 0 ? fmt::format("{:g} GB/s link", x) : "no bandwidth limit";
  return fmt::format("{}={:g}", key, x);
}

RateRole role(const RateAxis* axis, bool varied, double lo, double hi, double median) {
  RateRole r;
  r.axis = axis;
  r.varied = varied;
  const double a = axis->shown(lo), b = axis->shown(hi);
  r.lo = std::min(a, b), r.hi = std::max(a, b), r.median = axis->shown(median);
  return r;
}

double number_or_nan(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : NAN;
}

// An older model file: roles from its points' rates.
std::vector<RateRole> roles_from_points(const json& points) {
  std::vector<RateRole> out;
  for (const auto& axis : rate_axes()) {
    std::vector<double> v;
    for (const auto& p : points) {
      const double x = number_or_nan(p, axis.key);
      if (!std::isfinite(x) || x <= 0) break;
      v.push_back(x);
    }
    if (v.empty() || v.size() != points.size()) continue;
    std::sort(v.begin(), v.end());
    const bool varied = v.back() / v.front() - 1 > model::kMinVariedRange;
    out.push_back(role(&axis, varied, v.front(), v.back(), v[v.size() / 2]));
  }
  return out;
}

}  // namespace

double RateAxis::shown(double stored) const { return inverse ? (stored > 0 ? 1.0 / stored : NAN) : stored; }

const std::vector<RateAxis>& rate_axes() {
  static const std::vector<RateAxis> axes = [] {
    std::vector<RateAxis> out;
    for (const auto& t : model::all_terms())
      if (t.rate != Rate::none && std::none_of(out.begin(), out.end(), [&](const RateAxis& a) { return a.rate == t.rate; }))
        out.push_back(describe(t.rate));
    return out;
  }();
  return axes;
}

const RateAxis* rate_axis(const std::string& key) {
  for (const auto& a : rate_axes())
    if (a.key == key) return &a;
  return nullptr;
}

std::vector<RateRole> rate_roles(const json& model) {
  const json rv = model.is_object() ? model.value("rate_variation", json()) : json();
  if (!rv.is_array() || rv.empty()) return roles_from_points(model.value("points", json::array()));
  std::vector<RateRole> out;
  for (const auto& v : rv) {
    const RateAxis* axis = rate_axis(v.value("rate", std::string()));
    const double lo = number_or_nan(v, "lo"), hi = number_or_nan(v, "hi"), med = number_or_nan(v, "median");
    if (!axis || !std::isfinite(lo) || !std::isfinite(hi)) continue;  // not measured by this sweep
    out.push_back(role(axis, v.value("varied", false), lo, hi, med));
  }
  return out;
}

std::vector<RateRole> rate_roles(const std::vector<model::RateVariation>& variations) {
  std::vector<RateRole> out;
  for (const auto& v : variations)
    if (const RateAxis* axis = rate_axis(model::rate_name(v.rate)); axis && v.present)
      out.push_back(role(axis, v.varied, v.lo, v.hi, v.median));
  return out;
}

std::vector<const RateRole*> varied_roles(const std::vector<RateRole>& roles) {
  std::vector<const RateRole*> out;
  for (const auto& r : roles)
    if (r.varied) out.push_back(&r);
  return out;
}

std::string shown_value(const RateAxis& axis, double shown) { return fmt::format("{:.4g} {}", shown, axis.unit); }

std::string range_text(const RateRole& r) {
  return fmt::format("{} {:.4g} to {:.4g} {}", r.axis->words, r.lo, r.hi, r.axis->unit);
}

std::string held_text(const RateRole& r) {
  std::string s = r.axis->words + " held at " + shown_value(*r.axis, r.median);
  if (r.hi > r.lo) s += fmt::format(" (measured {:.4g} to {:.4g} {}: noise, not a setting)", r.lo, r.hi, r.axis->unit);
  return s;
}

json roles_json(const std::vector<RateRole>& roles) {
  json out = json::array();
  for (const auto& r : roles)
    out.push_back({{"rate", r.axis->key}, {"shown_key", r.axis->shown_key}, {"words", r.axis->words},
                   {"unit", r.axis->unit}, {"varied", r.varied}, {"lo", r.lo}, {"hi", r.hi}, {"median", r.median}});
  return out;
}

std::string knob_setting(const RateAxis& axis, const json& config) {
  std::string out;
  for (const auto& k : axis.knob_keys)
    if (config.is_object() && config.contains(k) && !config[k].is_null())
      out += (out.empty() ? "" : ", ") + knob_words(k, config[k]);
  return out;
}

}  // namespace hpcsens::report
