// Model choice for --model auto (docs/methodology.md, "Model selection").
#include "model/model_choice.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "common/errors.h"
#include "model/diagnostics.h"
#include "model/identifiability.h"
#include "model/number_format.h"
#include "model/rate_variation.h"
#include "model/validation.h"

namespace hpcsens::model {
namespace {

// The network terms a design varied ("+net_lat", "+net_bw", both, or none): only a sweep over
// knobs.network identifies them.
std::string network_suffix(const std::vector<Point>& pts) {
  std::string s;
  if (rate_varied(Rate::net_latency_us, pts)) s += "+net_lat";
  if (rate_varied(Rate::net_ns_per_byte, pts)) s += "+net_bw";
  return s;
}

std::vector<std::string> two_rate_names(const std::vector<Point>& pts) {
  std::vector<std::string> c{"cpu+mem", "cpu+mem+io"};
  const bool lat = std::all_of(pts.begin(), pts.end(), [](const Point& p) { return p.lat_ns.has_value(); });
  if (lat) c.insert(c.end(), {"cpu+mem+lat", "cpu+mem+io+lat"});
  if (const std::string net = network_suffix(pts); !net.empty()) c.push_back("cpu+mem+io" + net);
  c.push_back("overlap");
  return c;
}

// The one-rate models the design can support, simplest first: the network alone (a network
// sweep holds the node's rates), the core clock (the sweep most users run), memory, then a node
// rate with the network when both were varied.
std::vector<std::string> one_rate_names(const std::vector<Point>& pts) {
  std::vector<std::string> node, c;
  if (rate_varied(Rate::cpu_ghz, pts)) node.push_back("cpu");
  if (rate_varied(Rate::mem_gbs, pts)) node.push_back("mem");
  const std::string net = network_suffix(pts);
  if (!net.empty()) c.push_back(net.substr(1) + "+fixed");
  for (const auto& n : node) c.push_back(n + "+fixed");
  if (!net.empty())
    for (const auto& n : node) c.push_back(n + net + "+fixed");
  return c;
}

// A design in which no rate moved beyond its noise: too few configurations or one setting only.
std::string no_rate_varied(const std::vector<Point>& pts) {
  std::set<std::pair<double, double>> distinct;
  for (const auto& p : pts) distinct.insert({p.cpu_ghz, p.mem_gbs});
  return fmt::format(
      "design cannot identify any model: {} distinct configuration(s) and no rate varied beyond its measurement "
      "noise; a core-clock sweep needs at least 3 clocks for model cpu+fixed (W_cpu / f + fixed), a memory sweep 3 "
      "bandwidths for mem+fixed, and cpu+mem at least 3 configurations that vary both rates independently: add "
      "configurations at other core clocks (or memory bandwidths)",
      distinct.size());
}

// The parameters that make a form what it is: its terms beyond cpu+mem (io, lat, the network's)
// and overlap's w, each with its value and standard error. Overlap's constant time is not among
// them: it is an allowance the fit sets to 0 for a code without fixed time (a roofline-like GPU
// kernel), not part of the form, and LOOCV already charges a needless constant its variance.
std::vector<ExtraParameter> form_parameters(const ModelSpec& spec, const std::vector<Point>& pts,
                                            const std::vector<double>& times, const std::vector<double>& params,
                                            const FitOptions& fo) {
  std::vector<ExtraParameter> extra;
  for (size_t k = 0; k < spec.terms.size(); ++k)
    if (spec.terms[k] != Term::cpu && spec.terms[k] != Term::mem && !(spec.overlap && spec.terms[k] == Term::io))
      extra.push_back({term_name(spec.terms[k]), params[k], 0});
  if (spec.overlap) extra.push_back({"overlap w", params[spec.terms.size()], 0});
  if (extra.empty()) return extra;
  auto cov = covariance_at(spec, pts, times, params, fo);
  if (!cov) cov = bootstrap_covariance(spec, pts, times, params, fo, 100);
  size_t e = 0;
  for (size_t k = 0; k < spec.terms.size(); ++k)
    if (spec.terms[k] != Term::cpu && spec.terms[k] != Term::mem && !(spec.overlap && spec.terms[k] == Term::io))
      extra[e++].stderr_ = std::sqrt(std::max(0.0, (*cov)[k][k]));
  if (spec.overlap) extra[e].stderr_ = std::sqrt(std::max(0.0, (*cov)[spec.terms.size()][spec.terms.size()]));
  return extra;
}

// What `c` must show against `best`: each parameter of its form that `best` lacks more than 2
// standard errors above zero ("" when it does). A term both forms carry is not asked again.
std::string unneeded_parameter(const CandidateScore& c, const CandidateScore& best) {
  for (const auto& x : c.extra) {
    const bool shared = std::any_of(best.extra.begin(), best.extra.end(),
                                    [&](const ExtraParameter& y) { return y.name == x.name; });
    if (!shared && !(x.value > 2 * x.stderr_))
      return fmt::format("{} = {:.4g} +/- {:.2g} is not significantly above zero", x.name, x.value, x.stderr_);
  }
  return "";
}

// Standard error of the mean of |a_i| - |b_i| over configurations both predicted: how much of a
// difference in LOOCV MAPE is the luck of which configurations were measured.
double paired_se(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) d.push_back(std::fabs(a[i]) - std::fabs(b[i]));
  if (d.size() < 2) return INFINITY;
  double m = 0, ss = 0;
  for (double x : d) m += x / d.size();
  for (double x : d) ss += (x - m) * (x - m);
  return std::sqrt(ss / (d.size() - 1) / d.size());
}

CandidateScore score(const std::string& name, const std::vector<Point>& pts, const std::vector<double>& times,
                     const AnalyzeOptions& opts, std::string& first_error) {
  const ModelSpec spec = parse_model_spec(name);
  CandidateScore c;
  c.model = name;
  const auto id = check_identifiability(spec, pts);
  if (!id.ok()) {
    c.note = id.errors.front();
    if (first_error.empty()) first_error = id.errors.front();
    return c;
  }
  c.identifiable = true;
  const FitResult f = fit_model(spec, pts, times, opts.fit);
  std::vector<double> pred;
  for (const auto& p : pts) pred.push_back(model_time(spec, f.params, p));
  c.mape = diagnose(times, pred).mape;
  c.loo_err = leave_one_out(spec, pts, times, opts.fit, f.params).err;
  c.loocv_mape = mean_abs(c.loo_err);
  c.loocv_se = paired_se(c.loo_err, std::vector<double>(c.loo_err.size(), 0.0));
  c.extra = form_parameters(spec, pts, times, f.params, opts.fit);
  c.note = unneeded_parameter(c, CandidateScore{});
  return c;
}

// Whether `c` (more complex) beats `best`; says why in either case.
bool beats(const CandidateScore& c, const CandidateScore& best, const AnalyzeOptions& opts, std::string& why) {
  const double gain = best.loocv_mape - c.loocv_mape, se = paired_se(best.loo_err, c.loo_err);
  const bool margins = c.loocv_mape < best.loocv_mape * (1 - opts.auto_margin_rel) && gain > opts.auto_margin_abs;
  const std::string unneeded = unneeded_parameter(c, best);
  if (gain > se && margins && unneeded.empty()) {
    why = fmt::format("{} lowers the LOOCV MAPE by {} points, more than one standard error ({}) of the difference, "
                      "and what its form adds to {} is significant",
                      c.model, percent(gain), percent(se), best.model);
    return true;
  }
  if (!(gain > 0))
    why = fmt::format("{} does not lower the LOOCV MAPE", c.model);
  else if (!(gain > se))
    why = fmt::format("{} lowers the LOOCV MAPE by {} points, within one standard error ({}) of the difference: "
                      "noise, so the smaller model stays",
                      c.model, percent(gain), percent(se));
  else if (!margins)
    why = fmt::format("{} lowers the LOOCV MAPE by only {} points (needs {:.0f}% relative and {:.1f} points)", c.model,
                      percent(gain), 100 * opts.auto_margin_rel, 100 * opts.auto_margin_abs);
  else
    why = fmt::format("{}: {}", c.model, unneeded);
  return false;
}

// --model auto: simplest identifiable model, replaced only by a more complex one that beats it
// beyond one standard error of the LOOCV difference (and the margins).
ModelSpec choose_among(const std::vector<std::string>& names, const std::vector<Point>& pts,
                       const AnalyzeOptions& opts, ModelReport& rep) {
  const auto times = times_of(pts);
  std::string first_error;
  for (const auto& name : names) rep.candidates.push_back(score(name, pts, times, opts, first_error));
  const CandidateScore* best = nullptr;
  std::vector<std::string> why;
  for (const auto& c : rep.candidates) {
    if (!c.identifiable || !std::isfinite(c.loocv_mape)) continue;
    if (!best) {
      best = &c;
      continue;
    }
    std::string w;
    if (beats(c, *best, opts, w)) best = &c;
    why.push_back(w);
  }
  if (!best) {
    rep.selection_reason = first_error.empty() ? std::string("no candidate converged") : first_error;
    return {};
  }
  std::string others;
  for (const auto& c : rep.candidates) {
    if (&c == best) continue;
    others += fmt::format("{}{} {}", others.empty() ? "" : ", ", c.model,
                          c.identifiable ? percent(c.loocv_mape) : "not identifiable");
  }
  std::string reasons;
  for (const auto& w : why) reasons += "; " + w;
  rep.selection_reason = fmt::format(
      "picked {} with LOOCV MAPE {} ({}){}; a more complex model is chosen only if it lowers the LOOCV MAPE by more "
      "than one standard error of the difference, by at least {:.0f}% relative and {:.1f} percentage points, and "
      "what its form adds to the smaller one (io, lat or network terms, overlap's w; not overlap's optional constant "
      "time) differs from zero by more than 2 standard errors",
      best->model, percent(best->loocv_mape), others.empty() ? "the only candidate" : "others: " + others, reasons,
      100 * opts.auto_margin_rel, 100 * opts.auto_margin_abs);
  return parse_model_spec(best->model);
}

}  // namespace

// --model auto: simplest identifiable model, replaced only by a more complex one that beats
// it by the margin in LOOCV MAPE. Two-rate models first; when none is identifiable, the largest
// identifiable one-rate model, with a note saying which terms could not be separated and why.
ModelSpec choose_model(const std::vector<Point>& pts, const AnalyzeOptions& opts, ModelReport& rep) {
  if (!rate_variation(Rate::mem_gbs, pts).present) {
    ModelSpec spec = choose_among(one_rate_names(pts), pts, opts, rep);
    if (spec.terms.empty())
      throw InputError("model auto", "design cannot identify any model without memory bandwidth (the sweep measured "
                                     "none: calibration.stream off) and no rate was varied");
    rep.notes.push_back("the records carry no memory bandwidth (calibration.stream: off): only models without mem "
                        "were considered");
    return spec;
  }
  ModelSpec spec = choose_among(two_rate_names(pts), pts, opts, rep);
  if (!spec.terms.empty()) return spec;
  const std::string why = rep.selection_reason;  // the first two-rate error
  rep.candidates.clear();
  const auto one_rate = one_rate_names(pts);
  spec = choose_among(one_rate, pts, opts, rep);
  // Say what this design lacks for the model it comes closest to, not what cpu+mem would need.
  if (spec.terms.empty() && one_rate.empty()) throw InputError("model auto", no_rate_varied(pts));
  if (spec.terms.empty())
    throw InputError("model auto", "design cannot identify any model: " + rep.selection_reason);
  rep.notes.push_back(fmt::format("no two-rate model is identifiable ({}); fitted the largest identifiable model, "
                                  "the one-rate {}",
                                  why, spec.name()));
  return spec;
}

}  // namespace hpcsens::model
