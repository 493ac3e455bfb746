#include "model/verdict.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "model/identifiability.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {


}  // namespace

void Verdict::caution(const std::string& why) {
  if (word == "ok") word = "caution";
  reasons.push_back(why);
}

void Verdict::unreliable(const std::string& why) {
  word = "unreliable";
  reasons.push_back(why);
}

double run_to_run_noise(const std::vector<Point>& points) {
  std::vector<double> half;
  for (const auto& p : points)
    if (p.reps >= 2 && p.time_s > 0) half.push_back((p.max_s - p.min_s) / (2 * p.time_s));
  return half.empty() ? NAN : median(half);
}

namespace {

// How much the times moved when only this rate changed: the largest relative time range among
// configurations that share every other rate (the whole sweep when no two do).
double response_to(Rate rate, const std::vector<Point>& points) {
  std::map<std::vector<double>, std::vector<const Point*>> groups;
  for (const auto& p : points) {
    std::vector<double> others;
    for (Rate r : {Rate::cpu_ghz, Rate::mem_gbs, Rate::lat_ns, Rate::net_latency_us, Rate::net_ns_per_byte})
      if (r != rate) others.push_back(std::isfinite(rate_value(r, p)) ? rate_value(r, p) : 0);
    groups[others].push_back(&p);
  }
  double best = -1;
  for (const auto& [key, g] : groups) {
    double rlo = INFINITY, rhi = 0, tlo = INFINITY, thi = 0;
    std::vector<double> times;
    for (const Point* p : g) {
      const double r = rate_value(rate, *p);
      rlo = std::min(rlo, r), rhi = std::max(rhi, r), tlo = std::min(tlo, p->time_s), thi = std::max(thi, p->time_s);
      times.push_back(p->time_s);
    }
    if (rhi > rlo * (1 + 1e-9)) best = std::max(best, (thi - tlo) / median(times));
  }
  if (best >= 0) return best;
  std::vector<double> times;
  for (const auto& p : points) times.push_back(p.time_s);
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  return (*hi - *lo) / median(times);
}

}  // namespace

std::vector<Unresponsive> unresponsive_rates(const ModelSpec& spec, const std::vector<Point>& points, double noise) {
  std::vector<Unresponsive> out;
  for (Term t : spec.terms) {
    const TermInfo& info = term_info(t);
    if (info.rate == Rate::none) continue;
    double rlo = INFINITY, rhi = 0;
    for (const auto& p : points) {
      const double r = rate_value(info.rate, p);
      rlo = std::min(rlo, r), rhi = std::max(rhi, r);
    }
    if (!(rhi > rlo * (1 + 1e-9))) continue;  // not varied: identifiability says so
    const double response = response_to(info.rate, points);
    const double limit = std::isfinite(noise) ? std::max(2 * noise, 0.002) : kNoEffectFloor;
    if (response <= limit) out.push_back({info.rate, response, rlo, rhi});
  }
  return out;
}

namespace {

std::string within_noise(double noise) {
  return std::isfinite(noise) ? "within the run-to-run spread of " + percent(noise, 1)
                              : "less than " + percent(kNoEffectFloor, 1);
}

const char* term_of(Rate r) {
  for (const auto& t : all_terms())
    if (t.rate == r) return t.name;
  return "";
}

}  // namespace

std::string no_effect_sentence(const Unresponsive& u, double noise) {
  return fmt::format(
      "the times changed by only {} while {} varied {:.2f}-fold ({:g} to {:g}), {}: the {} knob probably had no "
      "effect (e.g. Slurm without a cpufreq plugin, a VM, a governor that overrode it); check the measured rate "
      "(calibration.clock, STREAM) before trusting the '{}' work",
      percent(u.response, 1), rate_name(u.rate), u.hi / u.lo, u.lo, u.hi, within_noise(noise), rate_name(u.rate),
      term_of(u.rate));
}

std::string insensitive_sentence(const Unresponsive& u, double noise) {
  return fmt::format(
      "the times changed by only {} while the measured {} moved {:.2f}-fold ({:g} to {:g}), {}: the run time does "
      "not respond to it measurably, so its sensitivity is near 0 and its size is not determined",
      percent(u.response, 1), rate_name(u.rate), u.hi / u.lo, u.lo, u.hi, within_noise(noise));
}

std::vector<std::string> knobs_without_effect(const ModelSpec& spec, const std::vector<Point>& points,
                                              double noise) {
  std::vector<std::string> out;
  for (const auto& u : unresponsive_rates(spec, points, noise)) out.push_back(no_effect_sentence(u, noise));
  return out;
}

Verdict judge_statements(const Verdict& global, const std::vector<StatementIssues>& issues,
                         std::vector<Elasticity>& es) {
  Verdict model = global;
  std::vector<std::string> weaker, standing;
  for (size_t i = 0; i < es.size(); ++i) {
    Verdict own;
    if (i < issues.size()) {
      for (const auto& s : issues[i].unreliable) own.unreliable(s);
      for (const auto& s : issues[i].caution) own.caution(s);
    }
    Elasticity& e = es[i];
    e.verdict = own.word == "unreliable" || global.word == "unreliable" ? "unreliable"
                : own.word == "caution" || global.word == "caution"  ? "caution"
                                                                     : "ok";
    e.verdict_reasons = own.reasons;
    const std::string name = std::string(rate_words(e.rate)) + " sensitivity";
    model.covers.push_back(name + ": " + e.verdict);
    if (own.reasons.empty())
      standing.push_back(name);
    else
      weaker.push_back(fmt::format("the {} is {} ({})", name, own.word, own.reasons.front()));
  }
  if (weaker.empty()) return model;
  if (standing.empty()) {  // nothing the model states stands: its statements' reasons come first
    Verdict v;
    v.covers = model.covers;
    for (size_t i = 0; i < es.size() && i < issues.size(); ++i) {
      for (const auto& s : issues[i].unreliable) v.unreliable(s);
      for (const auto& s : issues[i].caution) v.caution(s);
    }
    if (global.word == "unreliable") v.word = "unreliable";
    if (global.word == "caution" && v.word == "ok") v.word = "caution";
    v.reasons.insert(v.reasons.end(), global.reasons.begin(), global.reasons.end());
    return v;
  }
  std::string stand;
  for (const auto& s : standing) stand += (stand.empty() ? "" : " and ") + s;
  for (const auto& w : weaker)
    model.caution(fmt::format("{}; the {} does not rest on it and is stated with its own verdict", w, stand));
  return model;
}

std::vector<std::string> term_effect_problems(const ModelSpec& spec, const std::vector<double>& params,
                                              const std::vector<Point>& points, double baseline_s, double noise) {
  std::vector<std::string> out(spec.terms.size());
  const double limit = kTermEffectFactor * (std::isfinite(noise) ? noise : kNoEffectFloor);
  for (size_t k = 0; k < spec.terms.size(); ++k) {
    const TermInfo& info = term_info(spec.terms[k]);
    if (info.rate == Rate::none) continue;
    double lo = INFINITY, hi = 0, blo = INFINITY, bhi = -INFINITY;
    for (const auto& p : points) {
      const double r = rate_value(info.rate, p), b = basis(spec.terms[k], p);
      lo = std::min(lo, r), hi = std::max(hi, r), blo = std::min(blo, b), bhi = std::max(bhi, b);
    }
    const double change = params[k] * (bhi - blo) / baseline_s;
    if (hi / lo < kMinRateRatio)
      out[k] = fmt::format("the '{}' term is unreliable: {} varied only {:.3f}-fold ({:g} to {:g}), too narrow to "
                           "determine its work; widen the range to at least {:.1f}x",
                           info.name, rate_name(info.rate), hi / lo, lo, hi, kMinRateRatio);
    else if (change < limit)
      out[k] = fmt::format("the '{}' term is unreliable: over the measured {} range ({:g} to {:g}) it changes the run "
                           "time by only {}, less than {:g} x the {} {}; its work and sensitivity cannot be told "
                           "apart from noise (widen the range of {})",
                           info.name, rate_name(info.rate), lo, hi, percent(change, 2), kTermEffectFactor,
                           std::isfinite(noise) ? "run-to-run noise" : "assumed noise",
                           percent(std::isfinite(noise) ? noise : kNoEffectFloor, 2), rate_name(info.rate));
  }
  return out;
}

std::string trend_cause(const std::string& rate) {
  if (rate == "cpu_ghz")
    return "the time does not scale as 1/clock: part of the run follows the core clock only partly (a cache or "
           "uncore clocked with the cores, turbo or power limits) or the recorded clock was not the one reached";
  if (rate == "mem_gbs")
    return "the time does not scale as 1/bandwidth: a bandwidth knee (the code saturates below the highest "
           "bandwidth), latency-bound accesses, or memory time overlapping computation (try --model overlap or +lat)";
  return "the time does not follow the latency linearly: prefetching or memory-level parallelism hides part of it";
}

namespace {

// Rules that need evidence the model was tested at all (docs/methodology.md, "Verdict rules").
void judge_evidence(const VerdictInput& in, Verdict& v) {
  const Diagnostics& d = *in.diag;
  if (in.distinct >= 0 && in.distinct - in.params < kMinDof)
    v.caution(fmt::format("only {} degree(s) of freedom ({} distinct configurations for {} parameters): too few to "
                          "test the model; add at least {} configuration(s)",
                          std::max(0, in.distinct - in.params), in.distinct, in.params,
                          kMinDof - (in.distinct - in.params)));
  if (std::isfinite(d.loocv_mape) && d.loocv_mape > kLoocvUnreliable) {
    v.unreliable(fmt::format("leave-one-out error {} is above {}: the fit does not predict configurations it has "
                             "not seen",
                             percent(d.loocv_mape, 1), percent(kLoocvUnreliable, 1)));
  } else if (std::isfinite(d.loocv_mape) && d.loocv_mape > kLoocvCaution) {
    v.caution(fmt::format("leave-one-out error {} is above {}: predictions of configurations the fit has not seen "
                          "are that far off",
                          percent(d.loocv_mape, 1), percent(kLoocvCaution, 1)));
  } else if (std::isfinite(d.loocv_mape) && in.distinct > in.params && in.params > 0) {
    const double expected = static_cast<double>(in.distinct) / (in.distinct - in.params);
    const double floor = std::max(kLoocvRatioFloor, std::isfinite(in.noise) ? kNoiseFactor * in.noise : 0.0);
    if (d.loocv_mape > kLoocvRatio * expected * d.mape && d.loocv_mape > floor)
      v.caution(fmt::format("leave-one-out error {} is {:.1f} times the in-sample error {} (a correct model loses "
                            "about {:.1f}x): the fit leans on individual configurations",
                            percent(d.loocv_mape, 1), d.loocv_mape / d.mape, percent(d.mape, 1), expected));
  }
  const double trend_floor = std::max(0.005, std::isfinite(in.noise) ? in.noise : 0.0);
  for (const auto& t : in.trends)
    if (t.strong && d.mape > trend_floor)
      v.caution(fmt::format("the residuals trend with {} (correlation {:.2f}, significant at 1 %): {}", t.rate, t.r,
                            trend_cause(t.rate)));
}

}  // namespace

Verdict judge(const VerdictInput& in) {
  Verdict v;
  const Diagnostics& d = *in.diag;
  const double off = std::fabs(d.slope - 1);
  if (off > kSlopeUnreliable)
    v.unreliable(fmt::format("slope of observed against modelled time is {:.2f}, far from 1: the model does not "
                             "describe how this code scales", d.slope));
  else if (off > kSlopeCaution)
    v.caution(fmt::format("slope of observed against modelled time is {:.3f}, not close to 1", d.slope));
  if (d.mape > kMapeUnreliable)
    v.unreliable(fmt::format("mean error {} is above {}", percent(d.mape, 1), percent(kMapeUnreliable, 1)));
  else if (std::isfinite(in.noise) && d.mape > kMapeCautionFloor && d.mape > kNoiseFactor * in.noise)
    v.caution(
        fmt::format("mean error {} is well above the run-to-run noise {}", percent(d.mape, 1), percent(in.noise, 1)));
  else if (!std::isfinite(in.noise) && d.mape > kMapeCautionNoNoise)
    v.caution(fmt::format("mean error {} is above {} (no repetitions to estimate the noise)", percent(d.mape, 1),
                          percent(kMapeCautionNoNoise, 1)));
  if (in.points >= 3 && in.no_effect.empty()) {
    if (d.r2 < kR2Unreliable)
      v.unreliable(fmt::format("R² {:.2f} is near 0: the model explains little of how the times vary", d.r2));
    else if (d.r2 < kR2Caution)
      v.caution(fmt::format("R² {:.2f} is below {:.1f}", d.r2, kR2Caution));
  }
  judge_evidence(in, v);
  for (const auto& s : in.clock_problems) v.caution(s);
  if (!in.confounded.empty()) v.caution(in.confounded);
  if (in.mixed_apps) v.caution("the inputs mix several applications (--allow-mixed)");
  if (!in.bounds_feasible) v.caution("the overlap bounds are infeasible: the times are not consistent with any mix "
                                     "of these components");
  return v;
}

}  // namespace hpcsens::model
