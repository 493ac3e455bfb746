#include "model/energy_render.h"

#include <cmath>

#include <fmt/core.h>

namespace hpcsens::model {
namespace {

std::string kj(double j) { return j >= 1e4 ? fmt::format("{:.4g} kJ", j / 1e3) : fmt::format("{:.4g} J", j); }

std::string power_lines(const PowerFit& f, const char* item) {
  std::string o = fmt::format("{}power model: {}  (verdict {}; MAPE {:.2f} %, LOOCV {}, intervals by {})\n", item,
                              power_form_text(f.form), f.verdict.word, 100 * f.diag.mape,
                              std::isfinite(f.diag.loocv_mape) ? fmt::format("{:.2f} %", 100 * f.diag.loocv_mape)
                                                               : std::string("n/a"),
                              f.interval_method);
  std::string terms;
  for (size_t k = 0; k < f.form.size(); ++k)
    terms += fmt::format("{}{} {:.4g} {} ({:.4g} to {:.4g})", k ? ", " : "", power_term_name(f.form[k]), f.params[k],
                         power_term_unit(f.form[k]), k < f.low.size() ? f.low[k] : NAN,
                         k < f.high.size() ? f.high[k] : NAN);
  o += fmt::format("{}  {}\n", item[0] == '-' ? "" : "  ", terms);
  for (const auto& r : f.verdict.reasons) o += fmt::format("{}  - {}\n", item[0] == '-' ? "" : "  ", r);
  return o;
}

std::string decision_line(const EnergyReport& e, const EnergyDecision& d, const char* item) {
  const EnergyPoint& p = e.points[d.point];
  std::string name = d.criterion == "energy"                   ? "energy optimum"
                     : d.criterion == "energy within slowdown" ? fmt::format("within {} slowdown", pct_words(e.max_slowdown))
                                                               : d.criterion + " optimum";
  return fmt::format("{}{}: '{}'{}  E {} ({}-{})  T {:.4g} s  saving {} ({:.1f} to {:.1f} %)  slowdown {} ({:.1f} to "
                     "{:.1f} %)  [{}]\n",
                     item, name, p.cfg.label, p.cfg.source == "predicted" ? " (candidate)" : "", kj(p.energy_j),
                     kj(p.energy_low), kj(p.energy_high), p.cfg.time_s, pct_words(d.saving), 100 * d.saving_low,
                     100 * d.saving_high, pct_words(d.slowdown), 100 * d.slowdown_low, 100 * d.slowdown_high, d.verdict);
}

std::string points_table(const EnergyReport& e, bool md) {
  std::string o = md ? "\n| config | source | cpu_ghz | uncore_ghz | time_s | energy | power_w | model energy | pareto |\n"
                       "|---|---|---|---|---|---|---|---|---|\n"
                     : fmt::format("\n  {:<14} {:<9} {:>7} {:>10} {:>9} {:>10} {:>8} {:>12} {}\n", "config", "source",
                                   "cpu_ghz", "uncore_ghz", "time_s", "energy", "power_w", "model energy", "pareto");
  for (const auto& p : e.points) {
    const std::string unc = p.cfg.uncore_ghz ? fmt::format("{:g}", *p.cfg.uncore_ghz) : "-";
    const double w = p.cfg.measured_power_w.value_or(p.power_w);
    o += md ? fmt::format("| {} | {} | {:g} | {} | {:.4g} | {} | {:.4g} | {} | {} |\n", p.cfg.label, p.cfg.source,
                          p.cfg.cpu_ghz, unc, p.shown_time(), kj(p.shown_energy()), w, kj(p.energy_j),
                          p.pareto ? "yes" : "")
            : fmt::format("  {:<14} {:<9} {:>7g} {:>10} {:>9.4g} {:>10} {:>8.4g} {:>12} {}\n", p.cfg.label,
                          p.cfg.source, p.cfg.cpu_ghz, unc, p.shown_time(), kj(p.shown_energy()), w, kj(p.energy_j),
                          p.pareto ? "yes" : "");
  }
  const std::string swept = e.source == "emulated" ? "EMULATED from the power truth, not measured"
                            : e.source == "csv"    ? "the CSV's"
                            : e.source == "mixed"  ? "measured or emulated (the records differ)"
                                                   : "measured";
  return o + fmt::format("{}source: swept = a configuration the sweep ran (energy and time {}); predicted = a "
                         "candidate (the models' values)\n",
                         md ? "\n" : "  ", swept);
}

}  // namespace

std::string render_energy(const EnergyReport& e, bool md) {
  if (!e.available) return fmt::format("\n{}energy: {}\n", md ? "**" : "", e.reason + (md ? "**" : ""));
  const char* item = md ? "- " : "  ";
  std::string o = fmt::format("\n{}energy ({}; {})\n", md ? "#### " : "", e.domains, e.domains_note);
  o += fmt::format("{}{}answer: {}{}\n", md ? "\n" : "", md ? "**" : "  ", e.sentence, md ? "**\n" : "");
  o += power_lines(e.power, item);
  for (const EnergyDecision* d : {&e.energy_optimal, &e.within_slowdown, &e.edp, &e.ed2p}) {
    o += decision_line(e, *d, item);
    for (const auto& r : d->reasons)  // the models' own reasons are shown with the models
      if (r.rfind("time model: ", 0) != 0 && r.rfind("power model: ", 0) != 0)
        o += fmt::format("{}  - {}\n", md ? "" : "  ", r);
  }
  o += fmt::format("{}energies are the models' (E = P x T, 95 % intervals); savings and slowdowns against the "
                   "baseline '{}'\n",
                   item, e.baseline);
  for (const auto& n : e.notes) o += fmt::format("{}note: {}\n", item, n);
  o += points_table(e, md);
  return o;
}

}  // namespace hpcsens::model
