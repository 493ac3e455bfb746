#include "model/analysis.h"
#include "model/energy_analysis.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "common/errors.h"
#include "model/baseline.h"
#include "model/identifiability.h"
#include "model/jackknife.h"
#include "model/knob_design.h"
#include "model/model_choice.h"
#include "model/node_effects.h"
#include "model/number_format.h"
#include "model/rate_variation.h"
#include "model/validation.h"

namespace hpcsens::model {
namespace {

// What the constant term of a one-rate model stands for, and which sweep would split it.
std::string one_rate_note(const ModelSpec& spec, const Point& b, double fixed_s, double share) {
  const Rate r = one_rate_of(spec);
  if (r == Rate::none)  // a network-only model: the node's rates were held
    return fmt::format(
        "'fixed' ({:.4g} s, {} of the run at the baseline) is all time that does not scale with the network at the "
        "swept core clock ({:g} GHz) and memory bandwidth ({}): core work, memory traffic, I/O and waiting "
        "together; a sweep that also varies the core clock would split it",
        fixed_s, percent(share), b.cpu_ghz, gbs_text(b.mem_gbs, "not measured"));
  if (r == Rate::cpu_ghz)
    return fmt::format(
        "'fixed' ({:.4g} s, {} of the run at the baseline) is all time that does not scale with the core clock at the "
        "swept memory configuration ({}): memory traffic, I/O, network and waiting together; a sweep that "
        "also varies the memory bandwidth (memory configurations or uncore frequency) would split it into mem and io",
        fixed_s, percent(share), gbs_text(b.mem_gbs, "not measured"));
  return fmt::format(
      "'fixed' ({:.4g} s, {} of the run at the baseline) is all time that does not scale with the memory bandwidth at "
      "the swept core clock ({:g} GHz): core work, I/O, network and waiting together; a sweep that also varies the "
      "core clock would split it into cpu and io",
      fixed_s, percent(share), b.cpu_ghz);
}

// An explicit two-rate model on a one-rate design: say which model would fit.
void require_with_hint(const ModelSpec& spec, const IdentifiabilityReport& id, const std::vector<Point>& pts) {
  if (id.ok()) return;
  try {
    require_identifiable(spec, id);
  } catch (const InputError& e) {
    const bool cpu = rate_varied(Rate::cpu_ghz, pts), mem = rate_varied(Rate::mem_gbs, pts);
    if (one_rate_of(spec) == Rate::none && cpu != mem)
      throw InputError(std::string(e.what()) + " (this design identifies " + (cpu ? "cpu+fixed" : "mem+fixed") +
                       ", which --model auto fits)");
    throw;
  }
}

// A one-rate model on a design that also varied the other rate: said differently when the design
// separates the two (an explicit --model chose to lump them) and when it does not.
std::string other_rate_note(Rate one, const std::vector<Point>& pts) {
  const char* term = one == Rate::cpu_ghz ? "cpu" : "mem";
  const char* other = one == Rate::cpu_ghz ? "mem_gbs" : "cpu_ghz";
  if (check_identifiability(parse_model_spec("cpu+mem"), pts).ok())
    return fmt::format("{} was also varied, independently of {}, but model '{}+fixed' has no term for it: 'fixed' "
                       "holds that rate's time although it changed between configurations; --model auto (or "
                       "cpu+mem, cpu+mem+io) separates the two",
                       other, rate_name(one), term);
  return fmt::format("cpu_ghz and mem_gbs both varied but could not be separated: the '{}' term also holds the time "
                     "of the other rate that changed with it",
                     term);
}

// A clock that the records only requested may not have been reached: a sweep whose times do not
// follow it says the knob had no effect. Every other rate here was measured where it moved (STREAM,
// the calibrated clock, the network's ping-pong), so times that do not follow it are the code's
// answer: no measurable sensitivity, not a knob that failed.
bool rate_confirmed_by_measurement(Rate r, const Dataset& data) { return r != Rate::cpu_ghz || data.clock_measured; }

// What bears on each elasticity beyond the model's global rules: its term undetermined, its rate
// without response (aligned with rep.elasticities). Marks the terms; fills `no_effect`.
std::vector<StatementIssues> statement_issues(ModelReport& rep, const Dataset& data,
                                              std::vector<std::string>& no_effect) {
  std::vector<StatementIssues> issues(rep.elasticities.size());
  auto of = [&](Rate r) -> StatementIssues* {
    for (size_t i = 0; i < rep.elasticities.size(); ++i)
      if (rep.elasticities[i].rate == r) return &issues[i];
    return nullptr;
  };
  // A knob without effect first: it is the cause of the undetermined term, not the other way round.
  for (const auto& u : unresponsive_rates(rep.spec, rep.points, rep.noise)) {
    const bool knob = !rate_confirmed_by_measurement(u.rate, data);
    const std::string said = knob ? no_effect_sentence(u, rep.noise) : insensitive_sentence(u, rep.noise);
    rep.warnings.push_back(said);
    if (knob) no_effect.push_back(said);
    if (StatementIssues* s = of(u.rate)) (knob ? s->unreliable : s->caution).push_back(said);
  }
  const auto weak = term_effect_problems(rep.spec, rep.params, rep.points, rep.points[rep.baseline].time_s, rep.noise);
  for (size_t k = 0; k < weak.size(); ++k) {
    if (weak[k].empty()) continue;
    rep.terms[k].unreliable = weak[k];
    const Rate r = term_info(rep.spec.terms[k]).rate;
    for (auto& e : rep.elasticities)
      if (e.rate == r) e.unreliable = true;
    if (StatementIssues* s = of(r)) s->unreliable.push_back(weak[k]);
  }
  return issues;
}

void judge_model(ModelReport& rep, const Dataset& data, const IdentifiabilityReport& id) {
  rep.noise = run_to_run_noise(rep.points);
  VerdictInput in;
  in.diag = &rep.diag;
  in.noise = rep.noise;
  in.clock_problems = data.clock_problems;
  in.mixed_apps = data.apps.size() > 1;
  const Rate one = one_rate_of(rep.spec);
  if (one != Rate::none && rate_varied(Rate::cpu_ghz, rep.points) && rate_varied(Rate::mem_gbs, rep.points))
    in.confounded = other_rate_note(one, rep.points);
  in.bounds_feasible = rep.bounds.feasible || !rep.bounds.unavailable.empty();
  in.points = rep.points.size();
  in.distinct = id.distinct_configs;
  in.params = rep.spec.num_params();
  for (const auto& t : rep.diag.trends)
    for (Term term : rep.spec.terms)
      if (rate_name(term_info(term).rate) == t.rate) in.trends.push_back(t);
  const auto issues = statement_issues(rep, data, in.no_effect);
  rep.verdict = judge_statements(judge(in), issues, rep.elasticities);
  if (data.requested_clock_runs > 0 && rate_varied(Rate::cpu_ghz, rep.points))
    rep.notes.push_back(fmt::format("{} run(s) record only the requested core clock (no calibration.clock): if the "
                                    "knob did not take effect, the fit cannot tell",
                                    data.requested_clock_runs));
}

// Shares are of the modelled baseline time, as the elasticities and the per-rank shares are: then a
// term's share is minus its elasticity and never exceeds 1 (the overlap variant's time is at least
// its larger part), where a share of the measured time would exceed 1 wherever the fit over-predicts
// the baseline. The measured time stands in only when the model predicts no time at all.
double modelled_baseline(const ModelReport& rep) {
  const double t = rep.predicted[rep.baseline];
  return t > 0 && std::isfinite(t) ? t : rep.points[rep.baseline].time_s;
}

// Intervals from the jackknife over configurations (the leave-one-out fits), which widen when the
// model misses how the code scales; the covariance ones stay beside them, labelled.
void apply_jackknife(ModelReport& rep) {
  rep.jackknife_covariance = jackknife_covariance(rep.loo_params);
  rep.jackknife_n = usable_fits(rep.loo_params);
  if (rep.jackknife_covariance.empty()) return;
  rep.interval_method = "jackknife";
  const double t = jackknife_t(rep.jackknife_n);
  const Point& b = rep.points[rep.baseline];
  for (size_t k = 0; k < rep.terms.size(); ++k) {
    TermResult& term = rep.terms[k];
    term.jk_stderr = std::sqrt(std::max(0.0, rep.jackknife_covariance[k][k]));
    term.work_lo = std::max(0.0, term.work - t * term.jk_stderr);
    term.work_hi = term.work + t * term.jk_stderr;
    const double x = basis(term.term, b) / modelled_baseline(rep);
    term.share_jk_lo = term.work_lo * x;
    term.share_jk_hi = std::min(1.0, term.work_hi * x);
  }
  std::vector<double> half;
  for (const auto& e : rep.elasticities) {
    const auto reps = replicates(rep.loo_params, [&](const std::vector<double>& p) {
      for (const auto& x : elasticities(rep.spec, p, std::vector<double>(p.size(), 0.0), b, model_time(rep.spec, p, b)))
        if (x.rate == e.rate) return x.elasticity;
      return double(NAN);
    });
    double lo = NAN, hi = NAN;
    for (const auto& v : rep.rates)
      if (v.rate == e.rate) lo = v.lo, hi = v.hi;
    const double jk = t * std::sqrt(jackknife_variance(reps)), model = model_error_half(rep.diag.max_abs_err, lo, hi);
    double h = std::sqrt(jk * jk + model * model);
    // The data's own slope over the top step: a knee or a power law bends where the fit does not.
    if (const double fd = top_step_elasticity(rep.points, b, e.rate); std::isfinite(fd))
      h = std::max(h, kFiniteDifferenceReach * std::fabs(fd - e.elasticity));
    half.push_back(h);
  }
  set_resampled_intervals(rep.elasticities, half);
}

}  // namespace

ModelReport analyze(const Dataset& data, const AnalyzeOptions& opts) {
  ModelReport rep;
  rep.points = data.points;
  rep.emulated = data.emulated;
  rep.robust = opts.fit.robust;
  rep.sources = data.sources;
  const auto& pts = rep.points;
  const auto times = times_of(pts);

  rep.app = data.app;
  rep.rates = rate_variations(pts);
  for (const auto& v : rep.rates)
    if (auto note = held_constant_note(v); !note.empty()) rep.notes.push_back(note);
  rep.spec = opts.model == "auto" ? choose_model(pts, opts, rep) : parse_model_spec(opts.model);
  const auto id = check_identifiability(rep.spec, pts);
  require_with_hint(rep.spec, id, pts);
  rep.condition_number = id.condition_number;
  rep.warnings = id.warnings;
  rep.warnings.insert(rep.warnings.end(), data.warnings.begin(), data.warnings.end());
  rep.warnings.insert(rep.warnings.end(), data.clock_problems.begin(), data.clock_problems.end());

  const FitResult f = fit_model(rep.spec, pts, times, opts.fit);
  if (!f.converged) throw std::runtime_error("the fit did not converge: " + f.message);
  rep.params = f.params;
  for (const auto& p : pts) rep.predicted.push_back(model_time(rep.spec, rep.params, p));
  rep.diag = diagnose(times, rep.predicted);
  {
    LeaveOneOut loo = leave_one_out(rep.spec, pts, times, opts.fit, rep.params);
    rep.loocv_err = std::move(loo.err);
    rep.loo_params = std::move(loo.params);
    rep.loo_closed_form = loo.closed_form;
  }
  rep.diag.loocv_mape = mean_abs(rep.loocv_err);

  rep.node_effects = judge_node_effects(data.node_runs, rep.predicted, run_to_run_noise(rep.points));
  rep.notes.push_back(node_effects_note(rep.node_effects, data.runs_without_node));
  const std::vector<std::string> node_warnings = node_effect_warnings(rep.node_effects);
  rep.warnings.insert(rep.warnings.end(), node_warnings.begin(), node_warnings.end());

  std::vector<double> cpu, mem, lat;
  for (const auto& p : pts) cpu.push_back(p.cpu_ghz), mem.push_back(p.mem_gbs), lat.push_back(p.lat_ns.value_or(0));
  rep.diag.trends.push_back(residual_trend("cpu_ghz", cpu, rep.diag.rel_err));
  // A sweep with STREAM off has no memory bandwidth: no trend against it (NaN reads as a perfect one).
  if (std::all_of(mem.begin(), mem.end(), [](double m) { return std::isfinite(m); }))
    rep.diag.trends.push_back(residual_trend("mem_gbs", mem, rep.diag.rel_err));
  if (rep.spec.has(Term::lat)) rep.diag.trends.push_back(residual_trend("lat_ns", lat, rep.diag.rel_err));
  for (Term t : {Term::net_lat, Term::net_bw}) {
    if (!rep.spec.has(t)) continue;
    std::vector<double> net;
    for (const auto& p : pts) net.push_back(rate_value(term_info(t).rate, p));
    rep.diag.trends.push_back(residual_trend(rate_name(term_info(t).rate), net, rep.diag.rel_err));
  }
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
    rep.warnings.push_back(
        fmt::format("MAPE {} is above 5%: treat the work terms with caution", percent(rep.diag.mape)));

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

  {
    const BaselineChoice b = choose_baseline(pts, opts.baseline);
    rep.baseline = b.index;
    rep.baseline_reason = b.reason;
  }
  rep.bounds = overlap_bounds(rep.spec.terms, pts, opts.bounds_slack);
  if (!rep.bounds.unavailable.empty())
    rep.warnings.push_back("overlap bounds unavailable: " + rep.bounds.unavailable);
  else if (!rep.bounds.feasible)
    rep.warnings.push_back("no work values satisfy the overlap constraints even with 32% slack: the times are not "
                           "consistent with any mix of these components");
  else if (rep.bounds.slack > opts.bounds_slack + 1e-12)
    rep.warnings.push_back(
        fmt::format("overlap bounds needed a noise allowance of {} (asked {}): the times are "
                    "noisier than assumed",
                    percent(rep.bounds.slack), percent(opts.bounds_slack)));
  const Point& b = pts[rep.baseline];
  for (size_t k = 0; k < rep.spec.terms.size(); ++k) {
    TermResult t;
    t.term = rep.spec.terms[k];
    t.work = rep.params[k];
    t.stderr_ = std::sqrt(std::max(0.0, rep.covariance[k][k]));
    if (rep.bounds.feasible) t.bounds = rep.bounds.terms[k];
    const double x = basis(t.term, b) / modelled_baseline(rep);
    t.share = t.work * x;
    t.share_lo = t.bounds.lo * x;
    // The noise slack lets a bound exceed the measured time; no component can take more than all of it.
    t.share_hi = std::min(1.0, t.bounds.hi * x);
    rep.terms.push_back(t);
  }
  {
    std::vector<double> work, se;
    for (const auto& t : rep.terms) work.push_back(t.work), se.push_back(t.stderr_);
    if (rep.spec.overlap) work.push_back(rep.params.back());  // w: the hidden part responds by (1 - w)
    rep.elasticities = elasticities(rep.spec, work, se, b, rep.predicted[rep.baseline]);
    apply_jackknife(rep);
    const int f = rep.spec.index_of(Term::fixed);
    if (f >= 0) rep.notes.push_back(one_rate_note(rep.spec, b, rep.params[f], rep.terms[f].share));
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
  judge_model(rep, data, id);
  rep.sensitivity = sensitivity_sentence(rep.elasticities, b);
  // A node effect beyond the noise inflates the repetition noise the other rules judge against, so
  // those rules can say "ok" on exactly the data the node effect makes doubtful.
  for (const auto& w : node_warnings) rep.verdict.caution(w);
  if (rep.emulated)
    rep.warnings.insert(rep.warnings.begin(), "EMULATED: the input runs were produced by the emulated launcher, "
                                              "not measured");
  rep.energy = analyze_energy(rep, opts.max_slowdown);
  return rep;
}

}  // namespace hpcsens::model
