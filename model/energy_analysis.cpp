#include "model/energy_analysis.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/core.h>

#include "model/jackknife.h"

namespace hpcsens::model {
namespace {

// The time model's covariance and interval multiplier: the jackknife's when it has one.
std::pair<const Matrix*, double> time_covariance(const ModelReport& m) {
  if (!m.jackknife_covariance.empty()) return {&m.jackknife_covariance, jackknife_t(m.jackknife_n)};
  return {&m.covariance, 1.96};
}

double half_of(const ModelReport& m, const std::vector<double>& g) {
  const auto [c, t] = time_covariance(m);
  if (c->empty() || c->size() < g.size()) return 0;
  double v = 0;
  for (size_t a = 0; a < g.size(); ++a)
    for (size_t b = 0; b < g.size(); ++b) v += g[a] * (*c)[a][b] * g[b];
  return t * std::sqrt(std::max(0.0, v));
}

// d ln T / d params at a point.
std::vector<double> ln_time_gradient(const ModelReport& m, const Point& p) {
  std::vector<double> g = model_gradient(m.spec, m.params, p);
  const double t = model_time(m.spec, m.params, p);
  for (double& x : g) x /= t;
  return g;
}

// The 95 % half-width of ln T of a measured time: its repetitions' half range, at least the
// run-to-run noise (twice each: about two standard deviations).
double measured_ln_half(const ModelReport& m, const Point& p) {
  const double spread = p.reps > 1 && p.time_s > 0 ? (p.max_s - p.min_s) / (2 * p.time_s) : 0;
  return std::log1p(2 * std::max(spread, std::isfinite(m.noise) ? m.noise : 0.0));
}

// A time model without a memory term cannot see the uncore clock: where the power model varies
// it, the measured configurations keep their measured times (the model would give them all the
// baseline's uncore time).
bool has_uncore_term(const PowerForm& form) {
  for (PowerTerm t : form)
    if (t == PowerTerm::uncore_lin || t == PowerTerm::uncore_cub) return true;
  return false;
}

bool uncore_blind(const ModelReport& m, const PowerForm& form) { return has_uncore_term(form) && !m.spec.has(Term::mem); }

void use_measured_times(const ModelReport& m, std::vector<EnergyConfig>& out) {
  const Point& b = m.points[m.baseline];
  const double hb = measured_ln_half(m, b);
  for (size_t j = 0; j < out.size(); ++j) {
    EnergyConfig& c = out[j];
    c.time_s = m.points[j].time_s;
    c.time_ln_half = measured_ln_half(m, m.points[j]);
    c.slow_ln = std::log(c.time_s / b.time_s);
    c.slow_ln_half = j == m.baseline ? 0 : std::hypot(c.time_ln_half, hb);
  }
}

std::vector<EnergyConfig> measured_configs(const ModelReport& m, const PowerForm& form) {
  std::vector<EnergyConfig> out;
  const Point& b = m.points[m.baseline];
  const double tb = model_time(m.spec, m.params, b);
  const std::vector<double> gb = ln_time_gradient(m, b);
  for (const Point& p : m.points) {
    EnergyConfig c;
    c.label = p.label, c.cpu_ghz = p.cpu_ghz, c.mem_gbs = p.mem_gbs, c.uncore_ghz = p.uncore_ghz;
    c.time_s = model_time(m.spec, m.params, p);
    std::vector<double> g = ln_time_gradient(m, p);
    c.time_ln_half = half_of(m, g);
    c.slow_ln = std::log(c.time_s / tb);
    for (size_t k = 0; k < g.size(); ++k) g[k] -= gb[k];
    c.slow_ln_half = half_of(m, g);
    c.measured_time_s = p.time_s;
    if (std::isfinite(p.energy_j)) c.measured_energy_j = p.energy_j;
    if (!p.power_reps_w.empty()) c.measured_power_w = median(p.power_reps_w);
    out.push_back(std::move(c));
  }
  if (uncore_blind(m, form)) use_measured_times(m, out);
  return out;
}

std::string missing_reason(const std::vector<Point>& points) {
  std::set<std::string> reasons;
  const Point* first = nullptr;
  for (const auto& p : points)
    if (p.power_reps_w.empty()) {
      if (!first) first = &p;
      reasons.insert(p.energy_reason);
    }
  if (!first) return "";
  const std::string why = first->energy_reason.empty() ? "no energy measured" : first->energy_reason;
  size_t lacking = 0;
  for (const auto& p : points) lacking += p.power_reps_w.empty();
  if (lacking == points.size() && reasons.size() == 1) return why;
  return fmt::format("{} of {} configurations have no energy; '{}': {}", lacking, points.size(), first->label, why);
}

// What the energy figures cover. Emulated energy is the spec's power truth, not RAPL: saying
// what RAPL covers there would claim a measurement that never happened.
void describe_domains(const std::vector<Point>& points, EnergyReport& e) {
  std::set<std::string> d, src;
  for (const auto& p : points) {
    d.insert(p.energy_domains), src.insert(p.energy_source);
    e.nodes_per_job = std::max(e.nodes_per_job, p.energy_nodes);
  }
  e.domains = d.size() == 1 ? *d.begin() : "package";
  e.source = src.size() == 1 ? *src.begin() : src.count("emulated") ? "emulated" : "mixed";
  if (e.source == "emulated") {
    e.domains_note = std::string("EMULATED: ") + (e.domains == "package+dram" ? "package and DRAM" : "package") +
                     " energy computed from the sweep spec's power truth (emulated.power) and read back through "
                     "the powercap reader, not measured" +
                     (src.size() > 1 ? "; some configurations' energy is measured, some emulated" : "");
    return;
  }
  const std::string rest = "RAPL covers neither fans, PSU losses, disks nor the network";
  if (e.domains == "package+dram") e.domains_note = "package and DRAM energy; " + rest;
  else if (e.domains == "package") e.domains_note = "package only: no DRAM zone, memory energy is not in these figures; " + rest;
  else e.domains_note = "the CSV's " + e.domains + " column; " + rest;
}

// The verdict on the times the decisions use: the time model's, or, where the measured times
// stand in for it (uncore_blind), theirs, with a note saying so.
Verdict time_side(const ModelReport& m, EnergyReport& e) {
  if (!uncore_blind(m, e.power.form)) return m.verdict;
  e.notes.push_back("the measured configurations' times are their measured ones: the time model (" + m.spec.name() +
                    ") has no term for the uncore clock the power model varies");
  Verdict v;
  bool repeated = false;
  for (const auto& p : m.points) repeated = repeated || p.reps > 1;
  if (!repeated) v.caution("one run per configuration: the measured times carry no interval");
  return v;
}

}  // namespace

EnergyReport analyze_energy(const ModelReport& rep, double max_slowdown) {
  EnergyReport e;
  e.max_slowdown = max_slowdown;
  if (rep.points.empty()) return e;
  e.reason = missing_reason(rep.points);
  if (!e.reason.empty()) return e;
  std::vector<PowerSample> samples;
  for (const auto& p : rep.points) samples.push_back({p.cpu_ghz, p.uncore_ghz, p.power_reps_w});
  e.power = fit_power(samples);
  if (!e.power.ok) {
    e.reason = e.power.reason;
    return e;
  }
  describe_domains(rep.points, e);
  e.available = true;
  decide_energy(e, measured_configs(rep, e.power.form), rep.baseline, time_side(rep, e));
  return e;
}

namespace {

EnergyConfig candidate_config(const ModelReport& m, const Prediction& p) {
  EnergyConfig c;
  c.label = p.system.name, c.source = "predicted";
  c.cpu_ghz = p.system.cpu_ghz, c.mem_gbs = p.system.mem_gbs;
  c.uncore_ghz = candidate_uncore(m, p);
  c.time_s = p.predicted_s;
  c.time_ln_half = p.fit_low_s > 0 ? std::log(p.fit_high_s / p.fit_low_s) / 2 : std::log(p.fit_high_s / p.predicted_s);
  c.slow_ln = std::log(p.predicted_s / p.baseline_model_s);
  c.slow_ln_half = std::isfinite(p.speedup_high) ? std::log(p.speedup_high / p.speedup_low) / 2 : c.time_ln_half;
  c.verdict = p.verdict;
  c.reasons = p.doubts;
  for (auto& why : candidate_power_doubts(m, p)) {
    if (c.verdict == "ok") c.verdict = "caution";
    c.reasons.push_back(std::move(why));
  }
  if (const std::string note = candidate_uncore_note(m, p); !note.empty()) c.reasons.push_back(note);
  return c;
}

}  // namespace

EnergyReport energy_with_candidates(const ModelReport& rep, const std::vector<Prediction>& preds,
                                    double max_slowdown) {
  EnergyReport e = rep.energy;
  e.max_slowdown = max_slowdown;
  if (!e.available || !e.power.ok) return e;
  e.notes.clear();
  std::vector<EnergyConfig> configs = measured_configs(rep, e.power.form);
  const Verdict time_verdict = time_side(rep, e);
  for (const auto& p : preds) configs.push_back(candidate_config(rep, p));
  decide_energy(e, configs, rep.baseline, time_verdict);
  return e;
}

std::optional<double> candidate_uncore(const ModelReport& m, const Prediction& p) {
  return p.system.uncore_ghz ? p.system.uncore_ghz : m.points[m.baseline].uncore_ghz;
}

std::vector<std::string> candidate_power_doubts(const ModelReport& m, const Prediction& p) {
  std::vector<std::string> out;
  double lo = INFINITY, hi = 0, ulo = INFINITY, uhi = 0;
  for (const auto& x : m.points) {
    lo = std::min(lo, x.cpu_ghz), hi = std::max(hi, x.cpu_ghz);
    if (x.uncore_ghz) ulo = std::min(ulo, *x.uncore_ghz), uhi = std::max(uhi, *x.uncore_ghz);
  }
  if (p.system.cpu_ghz > hi * kExtrapolationFactor || p.system.cpu_ghz < lo / kExtrapolationFactor)
    out.push_back(fmt::format("the power model is extrapolated: {:g} GHz lies beyond the measured {:g}-{:g} GHz",
                              p.system.cpu_ghz, lo, hi));
  const bool uncore_term = has_uncore_term(m.energy.power.form);
  const auto& u = p.system.uncore_ghz;
  if (u && uncore_term && (*u > uhi * kExtrapolationFactor || *u < ulo / kExtrapolationFactor))
    out.push_back(fmt::format("the power model is extrapolated: uncore {:g} GHz lies beyond the measured {:g}-{:g} GHz",
                              *u, ulo, uhi));
  if (p.system.cpu_work_factor != 1.0)
    out.push_back("the power model is the measured node's; this candidate is another machine");
  return out;
}

std::string candidate_uncore_note(const ModelReport& m, const Prediction& p) {
  const bool uncore_term = has_uncore_term(m.energy.power.form);
  const auto& u = p.system.uncore_ghz;
  if (!u && uncore_term && m.points[m.baseline].uncore_ghz)
    return fmt::format("the candidate names no uncore_ghz: the power model takes the baseline's uncore {:g} GHz",
                       *m.points[m.baseline].uncore_ghz);
  if (u && !uncore_term)
    return "uncore_ghz is given but changes nothing: the power model has no uncore term (the sweep did not vary the "
           "uncore clock)";
  return "";
}

std::optional<CandidatePower> candidate_power(const ModelReport& rep, const Prediction& p) {
  if (!rep.energy.available || !rep.energy.power.ok) return std::nullopt;
  CandidatePower c;
  c.power_w = power_at(rep.energy.power.form, rep.energy.power.params, p.system.cpu_ghz, candidate_uncore(rep, p));
  c.energy_j = c.power_w * p.predicted_s;
  const Point& b = rep.points[rep.baseline];
  c.baseline_power_w = power_at(rep.energy.power.form, rep.energy.power.params, b.cpu_ghz, b.uncore_ghz);
  c.baseline_energy_j = c.baseline_power_w * p.baseline_model_s;
  return c;
}

}  // namespace hpcsens::model
