#include "model/predict_rates.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace hpcsens::model {

const std::vector<UserRate>& user_rates() {
  static const std::vector<UserRate> rates = {
      {Rate::cpu_ghz, "cpu_ghz", "--cpu-ghz", "GHz"},
      {Rate::mem_gbs, "mem_gbs", "--mem-gbs", "GB/s"},
      {Rate::lat_ns, "lat_ns", "--lat-ns", "ns"},
      {Rate::net_latency_us, "net_latency_us", "--net-latency-us", "us"},
      {Rate::net_ns_per_byte, "net_bandwidth_gbs", "--net-bandwidth-gbs", "GB/s"}};
  return rates;
}

double user_value(const UserRate& r, const Point& p) {
  const double v = rate_value(r.rate, p);
  return r.rate == Rate::net_ns_per_byte ? 1.0 / v : v;  // 1 GB/s = 1 byte/ns
}

bool model_uses(const ModelSpec& spec, Rate r) {
  return std::any_of(spec.terms.begin(), spec.terms.end(), [&](Term t) { return term_info(t).rate == r; });
}

std::pair<double, double> measured_range(const ModelReport& m, const UserRate& r) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : m.points) {
    const double v = user_value(r, p);
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  return lo <= hi ? std::make_pair(lo, hi) : std::make_pair(double(NAN), double(NAN));
}

double system_value(const UserRate& r, const SystemSpec& s) {
  switch (r.rate) {
    case Rate::cpu_ghz: return s.cpu_ghz > 0 ? s.cpu_ghz : NAN;
    case Rate::mem_gbs: return s.mem_gbs > 0 ? s.mem_gbs : NAN;
    case Rate::lat_ns: return s.lat_ns.value_or(NAN);
    case Rate::net_latency_us: return s.net_latency_us.value_or(NAN);
    case Rate::net_ns_per_byte: return s.net_bandwidth_gbs.value_or(NAN);
    case Rate::none: break;
  }
  return NAN;
}

namespace {

void set_value(const UserRate& r, SystemSpec& s, double v) {
  if (!std::isfinite(v)) return;  // the sweep did not measure it either: stays absent
  switch (r.rate) {
    case Rate::cpu_ghz: s.cpu_ghz = v; break;
    case Rate::mem_gbs: s.mem_gbs = v; break;
    case Rate::lat_ns: s.lat_ns = v; break;
    case Rate::net_latency_us: s.net_latency_us = v; break;
    case Rate::net_ns_per_byte: s.net_bandwidth_gbs = v; break;
    case Rate::none: break;
  }
}

const char* what_rate(Rate r) {
  switch (r) {
    case Rate::cpu_ghz: return "core clock";
    case Rate::mem_gbs: return "memory bandwidth";
    case Rate::lat_ns: return "memory latency";
    case Rate::net_latency_us: return "network latency per message";
    case Rate::net_ns_per_byte: return "network bandwidth";
    case Rate::none: break;
  }
  return "rate";
}

}  // namespace

std::vector<PredictedRate> resolve_rates(const ModelReport& m, SystemSpec& sys) {
  std::vector<PredictedRate> out;
  const Point& base = m.points[m.baseline];
  for (const auto& r : user_rates()) {
    const bool uses = model_uses(m.spec, r.rate);
    const double given = system_value(r, sys);
    const bool has = std::isfinite(given);
    if (uses && !has)
      throw InputError(sys.where.empty() ? std::string(r.option) : sys.where + ": field '" + r.name + "'",
                       std::string("missing: model '") + m.spec.name() + "' has a term for the " + what_rate(r.rate) +
                           ": give " + r.name + " [" + r.unit + "] of '" + sys.name + "'");
    if (!has) set_value(r, sys, user_value(r, base));
    const double value = system_value(r, sys);
    if (!std::isfinite(value)) continue;  // neither given nor measured
    const auto [lo, hi] = measured_range(m, r);
    out.push_back({r.name, r.unit, value, has, uses, lo, hi, 1});
  }
  return out;
}

}  // namespace hpcsens::model
