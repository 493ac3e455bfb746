#include "model/identifiability.h"

#include <Eigen/Dense>
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "common/errors.h"
#include "model/diagnostics.h"
#include "model/rate_variation.h"

namespace hpcsens::model {
namespace {

const char* rate_of(Term t) { return rate_name(term_info(t).rate); }
const char* what_to_vary(Term t) { return term_info(t).identified_by; }
bool constant(Term t) { return term_info(t).rate == Rate::none; }

}  // namespace

IdentifiabilityReport check_identifiability(const ModelSpec& spec, const std::vector<Point>& points) {
  IdentifiabilityReport rep;
  const std::string model = spec.name();

  for (Term t : spec.terms)
    if (t == Term::lat)
      for (const auto& p : points)
        if (!p.lat_ns) {
          rep.errors.push_back(fmt::format(
              "model '{}' needs a memory latency per configuration but '{}' has none (add config.lat_ns to "
              "the run records or a lat_ns column to the CSV)",
              model, p.label));
          return rep;
        }
  if (spec.has(Term::mem))
    for (const auto& p : points)
      if (!std::isfinite(p.mem_gbs)) {
        rep.errors.push_back(fmt::format(
            "model '{}' needs the memory bandwidth of every configuration but '{}' has none (the sweep ran with "
            "calibration.stream: off): choose a model without mem (e.g. --model net_lat+net_bw+fixed or "
            "cpu+fixed), or sweep again with STREAM on",
            model, p.label));
        return rep;
      }
  if (has_network_term(spec))
    for (const auto& p : points)
      if (!p.net_latency_us || !p.net_ns_per_byte) {
        rep.errors.push_back(fmt::format(
            "model '{}' needs the network rates of every configuration but '{}' has none (sweep knobs.network "
            "writes config.net_latency_us and config.net_ns_per_byte)",
            model, p.label));
        return rep;
      }

  // Distinct configurations by the rates the model uses: repeated labels at the same rates add
  // nothing, and neither does the jitter of a rate the model does not use (STREAM in a core-only
  // or network-only sweep).
  const bool uses_cpu = spec.has(Term::cpu), uses_mem = spec.has(Term::mem), uses_lat = spec.has(Term::lat);
  const bool uses_nl = spec.has(Term::net_lat), uses_nb = spec.has(Term::net_bw);
  std::set<std::tuple<double, double, double, double, double>> distinct;
  for (const auto& p : points)
    distinct.insert({uses_cpu ? p.cpu_ghz : 0, uses_mem ? p.mem_gbs : 0, uses_lat ? p.lat_ns.value_or(0) : 0,
                     uses_nl ? p.net_latency_us.value_or(0) : 0, uses_nb ? p.net_ns_per_byte.value_or(0) : 0});
  std::vector<Point> uniq;
  for (const auto& [c, m, l, nl, nb] : distinct) {
    Point p;
    p.cpu_ghz = c;
    p.mem_gbs = m;
    if (spec.has(Term::lat)) p.lat_ns = l;
    if (has_network_term(spec)) p.net_latency_us = nl, p.net_ns_per_byte = nb;
    uniq.push_back(p);
  }
  rep.distinct_configs = static_cast<int>(uniq.size());
  const int np = spec.num_params();
  if (rep.distinct_configs <= np)
    rep.errors.push_back(fmt::format(
        "model '{}' has {} parameters but the sweep has only {} distinct configuration(s); add at least {} more "
        "configuration(s) with different rates so the fit is over-determined",
        model, np, rep.distinct_configs, np + 1 - rep.distinct_configs));

  for (Term t : spec.terms) {
    if (constant(t)) continue;
    const RateVariation v = rate_variation(term_info(t).rate, points);
    const double lo = v.lo, hi = v.hi, ratio = hi / lo;
    if (v.range <= 0) {
      rep.errors.push_back(fmt::format(
          "{} was not varied (all {:g}), so the '{}' term cannot be told apart from fixed time; add "
          "configurations at other {}",
          rate_of(t), lo, term_name(t), what_to_vary(t)));
    } else if (!v.varied) {
      rep.errors.push_back(fmt::format(
          "{} moved only {:.1f}% ({:g} to {:g}), within its measurement noise (a varied rate must move more than "
          "{:.1f}%), so the '{}' term cannot be told apart from fixed time; add configurations at other {}",
          rate_of(t), 100 * v.range, lo, hi, 100 * v.threshold, term_name(t), what_to_vary(t)));
    } else if (ratio < kMinRateRatio) {
      rep.warnings.push_back(fmt::format(
          "{} varied only by a factor {:.3f} ({:g} to {:g}); the '{}' work will be poorly determined: widen the "
          "range to at least {:.1f}x",
          rate_of(t), ratio, lo, hi, term_name(t), kMinRateRatio));
    }
  }

  // Pairs of rate columns varied together cannot be separated.
  const size_t n = uniq.size(), k = spec.terms.size();
  std::vector<std::vector<double>> cols(k, std::vector<double>(n));
  for (size_t a = 0; a < k; ++a)
    for (size_t j = 0; j < n; ++j) cols[a][j] = basis(spec.terms[a], uniq[j]);
  for (size_t a = 0; a < k; ++a)
    for (size_t b = a + 1; b < k; ++b) {
      if (constant(spec.terms[a]) || constant(spec.terms[b])) continue;
      const double r = linear_fit(cols[a], cols[b]).r;
      if (std::fabs(r) > kCollinearCorrelation)
        rep.errors.push_back(fmt::format(
            "{} and {} were varied together (collinear: correlation of their terms {:.4f}), so the '{}' and '{}' "
            "work cannot be separated; add configurations that change {} while holding {} fixed",
            rate_of(spec.terms[a]), rate_of(spec.terms[b]), r, term_name(spec.terms[a]),
            term_name(spec.terms[b]), rate_of(spec.terms[a]), rate_of(spec.terms[b])));
    }

  if (n >= k && k > 0) {
    Eigen::MatrixXd X(n, k);
    for (size_t a = 0; a < k; ++a) {
      double norm = 0;
      for (size_t j = 0; j < n; ++j) norm += cols[a][j] * cols[a][j];
      norm = std::sqrt(norm);
      for (size_t j = 0; j < n; ++j) X(j, a) = norm > 0 ? cols[a][j] / norm : 0;
    }
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(X);
    const auto& s = svd.singularValues();
    rep.condition_number = s(s.size() - 1) > 0 ? s(0) / s(s.size() - 1) : INFINITY;
    if (rep.errors.empty()) {
      if (rep.condition_number > kConditionError)
        rep.errors.push_back(fmt::format(
            "the design matrix of model '{}' is nearly singular (condition number {:.3g}): the rates were varied "
            "too little or together; add configurations that vary CPU and memory rates independently and widely",
            model, rep.condition_number));
      else if (rep.condition_number > kConditionWarn)
        rep.warnings.push_back(fmt::format(
            "the design matrix of model '{}' is ill-conditioned (condition number {:.3g}); the work terms are "
            "correlated and their uncertainties large: vary the rates over a wider range",
            model, rep.condition_number));
    }
  }
  return rep;
}

void require_identifiable(const ModelSpec& spec, const IdentifiabilityReport& rep) {
  if (rep.ok()) return;
  std::string msg;
  for (const auto& e : rep.errors) msg += (msg.empty() ? "" : "; ") + e;
  throw InputError("model " + spec.name(), "design cannot identify the model: " + msg);
}

}  // namespace hpcsens::model
