#include "model/energy_decision.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include <fmt/core.h>

#include "common/errors.h"

namespace hpcsens::model {
namespace {

int rank_of(const std::string& w) { return w == "unreliable" ? 2 : w == "caution" ? 1 : 0; }

void lower_to(std::string& verdict, const std::string& w) {
  if (rank_of(w) > rank_of(verdict)) verdict = w;
}

EnergyPoint energy_point(const PowerFit& pf, const EnergyConfig& c, const EnergyConfig& base) {
  EnergyPoint p;
  p.cfg = c;
  p.power_w = power_at(pf.form, pf.params, c.cpu_ghz, c.uncore_ghz);
  p.energy_j = p.power_w * c.time_s;
  // ln E = ln P + ln T; the power and time fits rest on different measurements (joules, seconds):
  // their errors are combined as independent.
  const double half = std::hypot(power_ln_half(pf, c.cpu_ghz, c.uncore_ghz), c.time_ln_half);
  p.energy_low = p.energy_j * std::exp(-half), p.energy_high = p.energy_j * std::exp(half);
  const double pb = power_at(pf.form, pf.params, base.cpu_ghz, base.uncore_ghz);
  p.save_ln = std::log(p.power_w / pb) + c.slow_ln;
  p.save_ln_half = std::hypot(power_ln_diff_half(pf, c.cpu_ghz, c.uncore_ghz, base.cpu_ghz, base.uncore_ghz),
                              c.slow_ln_half);
  return p;
}

// A percentage without its sign for the lower end of a range: "15" of "15-21 %".
std::string bare(double f) {
  const std::string s = pct_words(f);
  return s.substr(0, s.size() - 2) + (f < 0 ? " to " : "-");
}

// "saves 18 % (15-21 %) energy" / "uses 3 % (1-5 %) more energy".
std::string energy_words(const EnergyDecision& d) {
  if (d.saving >= 0)
    return fmt::format("saves {} ({}{}) energy", pct_words(d.saving), bare(d.saving_low), pct_words(d.saving_high));
  return fmt::format("uses {} ({}{}) more energy", pct_words(-d.saving), bare(-d.saving_high),
                     pct_words(-d.saving_low));
}

// "for 4 % (3-5 %) more time" / "and 3 % (2-4 %) less time".
std::string time_words(const EnergyDecision& d) {
  if (d.slowdown >= 0)
    return fmt::format("for {} ({}{}) more time", pct_words(d.slowdown), bare(d.slowdown_low),
                       pct_words(d.slowdown_high));
  return fmt::format("and {} ({}{}) less time", pct_words(-d.slowdown), bare(-d.slowdown_high),
                     pct_words(-d.slowdown_low));
}

EnergyDecision decision(const EnergyReport& rep, std::size_t i, std::size_t base, const std::string& criterion,
                        const Verdict& time_verdict) {
  const EnergyPoint& p = rep.points[i];
  EnergyDecision d;
  d.criterion = criterion;
  d.point = i;
  d.saving = 1 - std::exp(p.save_ln);
  d.saving_low = 1 - std::exp(p.save_ln + p.save_ln_half), d.saving_high = 1 - std::exp(p.save_ln - p.save_ln_half);
  d.slowdown = std::exp(p.cfg.slow_ln) - 1;
  d.slowdown_low = std::exp(p.cfg.slow_ln - p.cfg.slow_ln_half) - 1;
  d.slowdown_high = std::exp(p.cfg.slow_ln + p.cfg.slow_ln_half) - 1;
  d.time_low = p.cfg.time_s * std::exp(-p.cfg.time_ln_half), d.time_high = p.cfg.time_s * std::exp(p.cfg.time_ln_half);
  d.verdict = time_verdict.word;
  for (const auto& r : time_verdict.reasons) d.reasons.push_back("time model: " + r);
  lower_to(d.verdict, rep.power.verdict.word);
  for (const auto& r : rep.power.verdict.reasons) d.reasons.push_back("power model: " + r);
  lower_to(d.verdict, p.cfg.verdict);
  for (const auto& r : p.cfg.reasons) d.reasons.push_back(p.cfg.label + ": " + r);
  const std::string where = settings_words(rep.points, p.cfg);
  if (i == base) {
    d.sentence = criterion == "energy within slowdown"
                     ? fmt::format("no configuration saves energy within {} slowdown: stay at {}",
                                   pct_words(rep.max_slowdown), where)
                     : fmt::format("the baseline {} is already the {} optimum", where, criterion);
    return d;
  }
  if (d.saving_low <= 0 && d.saving_high >= 0 && criterion != "EDP" && criterion != "ED2P") {
    lower_to(d.verdict, "caution");
    d.reasons.push_back("the saving's interval includes 0: it cannot be told apart from the baseline's energy");
  }
  d.sentence = fmt::format("running at {} {} {}", where, energy_words(d), time_words(d));
  if (criterion == "energy within slowdown")
    d.sentence += " (the lowest energy within " + pct_words(rep.max_slowdown) + " slowdown)";
  else if (criterion != "energy")
    d.sentence += " (the " + criterion + " optimum)";
  return d;
}

std::size_t argmin(const std::vector<EnergyPoint>& pts, const std::function<double(const EnergyPoint&)>& f,
                   const std::function<bool(const EnergyPoint&)>& allowed) {
  std::size_t best = pts.size();
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (allowed(pts[i]) && (best == pts.size() || f(pts[i]) < f(pts[best]))) best = i;
  return best;
}

}  // namespace

double parse_max_slowdown(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (!t.empty() && t.back() == '%') t.pop_back();
  while (!t.empty() && t.back() == ' ') t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  const bool decimal = !t.empty() && end == t.c_str() + t.size() && t.find_first_of("xXnNiI") == std::string::npos;
  if (!decimal || !std::isfinite(v) || v < 0 || v > 100)
    throw InputError("--max-slowdown", "must be a percentage from 0 to 100, e.g. 5% (got '" + text + "')");
  return v / 100;
}

std::string pct_words(double f) {
  const double v = 100 * f;
  return std::fabs(v) >= 10 || std::fabs(v - std::round(v)) < 0.05 ? fmt::format("{:.0f} %", v)
                                                                    : fmt::format("{:.1f} %", v);
}

// A measured clock scatters by a few kHz around the set one (2.60003 GHz for 2.6): a sentence
// names the setting, to 10 MHz, finer than any DVFS step but one (AMD's 25 MHz: 2.83 for 2.825).
std::string clock_words(double ghz) { return fmt::format("{:g} GHz", std::round(ghz * 100) / 100); }

std::string settings_words(const std::vector<EnergyPoint>& points, const EnergyConfig& c) {
  const auto varies = [&](const std::function<double(const EnergyConfig&)>& get) {
    for (const auto& p : points)
      if (std::fabs(get(p.cfg) - get(points.front().cfg)) > 1e-9 * std::fabs(get(c))) return true;
    return false;
  };
  std::vector<std::string> parts;
  if (varies([](const EnergyConfig& x) { return x.cpu_ghz; }) || points.size() < 2)
    parts.push_back(clock_words(c.cpu_ghz));
  if (c.uncore_ghz && varies([](const EnergyConfig& x) { return x.uncore_ghz.value_or(0); }))
    parts.push_back("uncore " + clock_words(*c.uncore_ghz));
  if (std::isfinite(c.mem_gbs) && varies([](const EnergyConfig& x) { return std::isfinite(x.mem_gbs) ? x.mem_gbs : 0; }))
    parts.push_back(fmt::format("{:g} GB/s", c.mem_gbs));
  std::string s;
  for (const auto& x : parts) s += (s.empty() ? "" : ", ") + x;
  return (s.empty() ? "" : s + " ") + "('" + c.label + "')";
}

void mark_pareto(std::vector<EnergyPoint>& pts) {
  for (auto& p : pts) {
    p.pareto = true;
    for (const auto& q : pts)
      if (q.shown_time() < p.shown_time() && q.shown_energy() < p.shown_energy()) p.pareto = false;
  }
}

void decide_energy(EnergyReport& rep, const std::vector<EnergyConfig>& configs, std::size_t base,
                   const Verdict& time_verdict) {
  rep.points.clear();
  for (const auto& c : configs) rep.points.push_back(energy_point(rep.power, c, configs[base]));
  rep.baseline = configs[base].label;
  mark_pareto(rep.points);
  const auto all = [](const EnergyPoint&) { return true; };
  const auto energy = [](const EnergyPoint& p) { return p.energy_j; };
  const double limit = std::log1p(rep.max_slowdown);
  const std::size_t opt = argmin(rep.points, energy, all);
  std::size_t within = argmin(rep.points, energy, [&](const EnergyPoint& p) { return p.cfg.slow_ln <= limit + 1e-12; });
  if (within == rep.points.size() || rep.points[within].energy_j >= rep.points[base].energy_j) within = base;
  const std::size_t edp = argmin(rep.points, [](const EnergyPoint& p) { return p.energy_j * p.cfg.time_s; }, all);
  const std::size_t ed2p =
      argmin(rep.points, [](const EnergyPoint& p) { return p.energy_j * p.cfg.time_s * p.cfg.time_s; }, all);
  rep.energy_optimal = decision(rep, opt, base, "energy", time_verdict);
  rep.within_slowdown = decision(rep, within, base, "energy within slowdown", time_verdict);
  rep.edp = decision(rep, edp, base, "EDP", time_verdict);
  rep.ed2p = decision(rep, ed2p, base, "ED2P", time_verdict);
  rep.sentence = within != base ? rep.within_slowdown.sentence
                 : opt != base  ? rep.within_slowdown.sentence + "; " + rep.energy_optimal.sentence
                                : rep.energy_optimal.sentence;
}

}  // namespace hpcsens::model
