#include "model/analysis.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "model/identifiability.h"
#include "model/validation.h"

namespace hpcsens::model {
namespace {

std::vector<double> times_of(const std::vector<Point>& pts) {
  std::vector<double> t;
  for (const auto& p : pts) t.push_back(p.time_s);
  return t;
}

std::vector<std::string> candidate_names(const std::vector<Point>& pts) {
  std::vector<std::string> c{"cpu+mem", "cpu+mem+io"};
  const bool lat = std::all_of(pts.begin(), pts.end(), [](const Point& p) { return p.lat_ns.has_value(); });
  if (lat) c.insert(c.end(), {"cpu+mem+lat", "cpu+mem+io+lat"});
  c.push_back("overlap");
  return c;
}

// Terms beyond cpu+mem (io, lat, overlap w) must be distinguishable from zero, or the simpler
// model explains the data as well and LOOCV differences are noise.
bool extra_terms_significant(const ModelSpec& spec, const std::vector<Point>& pts, const std::vector<double>& times,
                             const std::vector<double>& params, const FitOptions& fo, std::string& note) {
  std::vector<std::pair<std::string, int>> extra;
  for (size_t k = 0; k < spec.terms.size(); ++k)
    if (spec.terms[k] != Term::cpu && spec.terms[k] != Term::mem) extra.push_back({term_name(spec.terms[k]), int(k)});
  if (spec.overlap) extra.push_back({"overlap w", static_cast<int>(spec.terms.size())});
  if (extra.empty()) return true;
  auto cov = covariance_at(spec, pts, times, params, fo);
  if (!cov) cov = bootstrap_covariance(spec, pts, times, params, fo, 100);
  for (const auto& [name, i] : extra) {
    const double se = std::sqrt(std::max(0.0, (*cov)[i][i]));
    if (!(params[i] > 2 * se)) {
      note = fmt::format("{} = {:.4g} +/- {:.2g} is not significantly above zero", name, params[i], se);
      return false;
    }
  }
  return true;
}

std::string pct(double f) { return fmt::format("{:.2f}%", 100 * f); }

// --model auto: simplest identifiable model, replaced only by a more complex one that beats
// it by the margin in LOOCV MAPE.
ModelSpec choose_model(const std::vector<Point>& pts, const AnalyzeOptions& opts, ModelReport& rep) {
  const auto times = times_of(pts);
  const CandidateScore* best = nullptr;
  std::string first_error;
  std::vector<std::string> passed_over;
  for (const auto& name : candidate_names(pts)) {
    const ModelSpec spec = parse_model_spec(name);
    CandidateScore c;
    c.model = name;
    const auto id = check_identifiability(spec, pts);
    if (!id.ok()) {
      c.note = id.errors.front();
      if (first_error.empty()) first_error = id.errors.front();
      rep.candidates.push_back(c);
      continue;
    }
    c.identifiable = true;
    const FitResult f = fit_model(spec, pts, times, opts.fit);
    std::vector<double> pred;
    for (const auto& p : pts) pred.push_back(model_time(spec, f.params, p));
    c.mape = diagnose(times, pred).mape;
    c.loocv_mape = mean_abs(loocv_errors(spec, pts, times, opts.fit));
    c.significant_extra = extra_terms_significant(spec, pts, times, f.params, opts.fit, c.note);
    rep.candidates.push_back(c);
  }
  for (const auto& c : rep.candidates) {
    if (!c.identifiable || !std::isfinite(c.loocv_mape)) continue;
    if (!best) {
      best = &c;
      continue;
    }
    const bool better = c.significant_extra && c.loocv_mape < best->loocv_mape * (1 - opts.auto_margin_rel) &&
                        best->loocv_mape - c.loocv_mape > opts.auto_margin_abs;
    if (better) {
      passed_over.push_back(fmt::format("{} (LOOCV MAPE {})", best->model, pct(best->loocv_mape)));
      best = &c;
    }
  }
  if (!best)
    throw InputError("model auto", "design cannot identify any model: " +
                                       (first_error.empty() ? std::string("no candidate converged") : first_error));
  std::string others;
  for (const auto& c : rep.candidates) {
    if (&c == best) continue;
    others += fmt::format("{}{} {}", others.empty() ? "" : ", ", c.model,
                          c.identifiable ? pct(c.loocv_mape) : "not identifiable");
  }
  rep.selection_reason = fmt::format(
      "picked {} with LOOCV MAPE {} (others: {}); a more complex model is chosen only if it lowers the LOOCV MAPE by "
      "at least {:.0f}% relative and {:.1f} percentage points and its extra terms differ from zero by more than "
      "2 standard errors",
      best->model, pct(best->loocv_mape), others, 100 * opts.auto_margin_rel, 100 * opts.auto_margin_abs);
  return parse_model_spec(best->model);
}

}  // namespace

size_t pick_baseline(const std::vector<Point>& points) {
  size_t b = 0;
  for (size_t j = 1; j < points.size(); ++j)
    if (points[j].cpu_ghz > points[b].cpu_ghz ||
        (points[j].cpu_ghz == points[b].cpu_ghz && points[j].mem_gbs > points[b].mem_gbs))
      b = j;
  return b;
}

ModelReport analyze(const Dataset& data, const AnalyzeOptions& opts) {
  ModelReport rep;
  rep.points = data.points;
  rep.emulated = data.emulated;
  rep.robust = opts.fit.robust;
  rep.sources = data.sources;
  const auto& pts = rep.points;
  const auto times = times_of(pts);

  rep.spec = opts.model == "auto" ? choose_model(pts, opts, rep) : parse_model_spec(opts.model);
  const auto id = check_identifiability(rep.spec, pts);
  require_identifiable(rep.spec, id);
  rep.condition_number = id.condition_number;
  rep.warnings = id.warnings;

  const FitResult f = fit_model(rep.spec, pts, times, opts.fit);
  if (!f.converged) throw std::runtime_error("the fit did not converge: " + f.message);
  rep.params = f.params;
  for (const auto& p : pts) rep.predicted.push_back(model_time(rep.spec, rep.params, p));
  rep.diag = diagnose(times, rep.predicted);
  rep.loocv_err = loocv_errors(rep.spec, pts, times, opts.fit);
  rep.diag.loocv_mape = mean_abs(rep.loocv_err);

  std::vector<double> cpu, mem, lat;
  for (const auto& p : pts) cpu.push_back(p.cpu_ghz), mem.push_back(p.mem_gbs), lat.push_back(p.lat_ns.value_or(0));
  rep.diag.trends.push_back(residual_trend("cpu_ghz", cpu, rep.diag.rel_err));
  rep.diag.trends.push_back(residual_trend("mem_gbs", mem, rep.diag.rel_err));
  if (rep.spec.has(Term::lat)) rep.diag.trends.push_back(residual_trend("lat_ns", lat, rep.diag.rel_err));
  for (const auto& t : rep.diag.trends)
    if (t.significant && rep.diag.mape > 0.005)
      rep.warnings.push_back(fmt::format(
          "residuals trend with {} (correlation {:.2f}): the model misses part of the dependence on this rate; "
          "try --model overlap or +lat, or check the measured rates",
          t.rate, t.r));
  if (std::fabs(rep.diag.slope - 1) > 0.05)
    rep.warnings.push_back(fmt::format(
        "slope of observed against modelled time is {:.3f} (should be near 1): the model does not describe how this "
        "code scales",
        rep.diag.slope));
  if (rep.diag.mape > 0.05)
    rep.warnings.push_back(fmt::format("MAPE {} is above 5%: treat the work terms with caution", pct(rep.diag.mape)));

  if (auto cov = covariance_at(rep.spec, pts, times, rep.params, opts.fit)) {
    rep.covariance = *cov;
    rep.stderr_method = "covariance";
  } else {
    rep.covariance = bootstrap_covariance(rep.spec, pts, times, rep.params, opts.fit);
    rep.stderr_method = "bootstrap";
    rep.warnings.push_back(
        "the Jacobian is rank-deficient at the solution (a term at zero or terms not separable): standard errors "
        "come from a residual bootstrap");
  }

  rep.baseline = pick_baseline(pts);
  rep.bounds = overlap_bounds(rep.spec.terms, pts, opts.bounds_slack);
  if (!rep.bounds.unavailable.empty())
    rep.warnings.push_back("overlap bounds unavailable: " + rep.bounds.unavailable);
  else if (!rep.bounds.feasible)
    rep.warnings.push_back("no work values satisfy the overlap constraints even with 32% slack: the times are not "
                           "consistent with any mix of these components");
  else if (rep.bounds.slack > opts.bounds_slack + 1e-12)
    rep.warnings.push_back(fmt::format("overlap bounds needed a noise allowance of {} (asked {}): the times are "
                                       "noisier than assumed",
                                       pct(rep.bounds.slack), pct(opts.bounds_slack)));
  const Point& b = pts[rep.baseline];
  for (size_t k = 0; k < rep.spec.terms.size(); ++k) {
    TermResult t;
    t.term = rep.spec.terms[k];
    t.work = rep.params[k];
    t.stderr_ = std::sqrt(std::max(0.0, rep.covariance[k][k]));
    if (rep.bounds.feasible) t.bounds = rep.bounds.terms[k];
    const double x = basis(t.term, b) / b.time_s;
    t.share = t.work * x;
    t.share_lo = t.bounds.lo * x;
    // The noise slack lets a bound exceed the measured time; no component can take more than all of it.
    t.share_hi = std::min(1.0, t.bounds.hi * x);
    rep.terms.push_back(t);
  }
  if (rep.spec.overlap) {
    const size_t n = rep.spec.terms.size();
    rep.overlap_w = rep.params[n];
    rep.overlap_w_stderr = std::sqrt(std::max(0.0, rep.covariance[n][n]));
  }

  if (opts.per_rank) {
    if (data.ranks.empty()) {
      rep.warnings.push_back("--per-rank: the inputs have no per-rank times (run records with ranks[] or a CSV "
                             "rank column)");
    } else {
      rep.has_per_rank = true;
      rep.per_rank = fit_per_rank(rep.spec, pts, data.ranks, data.rank_times, rep.baseline, opts.fit);
      rep.groups = group_ranks(rep.per_rank);
    }
  }
  if (rep.emulated)
    rep.warnings.insert(rep.warnings.begin(), "EMULATED: the input runs were produced by the emulated launcher, "
                                              "not measured");
  return rep;
}

}  // namespace hpcsens::model
