// A workload mix as a table, JSON (hpcsens.mix.v1) or a tidy CSV (one row per system and
// application, plus one "(workload)" row per system).
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "common/errors.h"
#include "common/human_units.h"
#include "model/fit_tables.h"
#include "model/mix.h"
#include "model/number_format.h"

namespace hpcsens::model {
namespace {

using nlohmann::json;

json system_json(const MixSystem& s) {
  json apps = json::array();
  for (const auto& a : s.apps)
    apps.push_back({{"name", a.name},
                    {"weight", a.weight},
                    {"predicted_s", a.pred.predicted_s},
                    {"fit_low_s", a.pred.fit_low_s},
                    {"fit_high_s", a.pred.fit_high_s},
                    {"overlap_low_s", json_number(a.pred.overlap_low_s)},
                    {"overlap_high_s", json_number(a.pred.overlap_high_s)},
                    {"speedup", a.pred.speedup},
                    {"speedup_low", json_number(a.pred.speedup_low)},
                    {"speedup_high", json_number(a.pred.speedup_high)},
                    {"verdict", a.verdict},
                    {"extrapolated", !a.pred.extrapolated.empty()},
                    {"extrapolated_rates", a.pred.extrapolated},
                    {"extrapolation", a.pred.extrapolation},
                    {"verdict_reasons", a.pred.verdict_reasons},
                    {"warnings", a.pred.warnings},
                    {"power_w", json_number(a.power_w)},
                    {"energy_j", json_number(a.energy_j)}});
  json j = {{"name", s.system.name},
            {"cpu_ghz", s.system.cpu_ghz},
            {"mem_gbs", s.system.mem_gbs},
            {"cpu_work_factor", s.system.cpu_work_factor},
            {"speedup", s.speedup},
            {"speedup_low", json_number(s.speedup_low)},
            {"speedup_high", json_number(s.speedup_high)},
            {"verdict", s.verdict},
            {"extrapolation", s.extrapolation},
            {"applications", apps},
            {"warnings", s.warnings}};
  if (s.system.nodes) j["nodes"] = *s.system.nodes;
  if (s.system.price) j["price"] = *s.system.price;
  if (s.system.power_w) j["power_w"] = *s.system.power_w;
  if (s.system.uncore_ghz) j["uncore_ghz"] = *s.system.uncore_ghz;
  if (s.throughput) j["throughput"] = *s.throughput;
  if (s.per_price) j["per_price"] = *s.per_price;
  if (s.per_watt) j["per_watt"] = *s.per_watt;
  if (s.node_power_w) j["node_power_w"] = *s.node_power_w;
  if (s.energy_ratio) j["energy_ratio"] = *s.energy_ratio;
  return j;
}

// A ranking resting on extrapolated predictions says so in its conclusion (and names them).
std::string extrapolation_note(const MixResult& r) {
  std::string names;
  for (const auto& n : extrapolated_pairs(r)) names += (names.empty() ? "" : ", ") + n;
  return names.empty() ? "" : ", but it rests on extrapolated predictions (" + names + ")";
}

bool winner_changes(const MixResult& r) {
  for (const auto& w : r.winners)
    if (w.second != r.winners.front().second) return true;
  return false;
}

std::string render_json(const MixResult& r) {
  json apps = json::array(), systems = json::array();
  for (const auto& a : r.mix->apps)
    apps.push_back({{"name", a.name}, {"model", a.model_path}, {"weight", a.weight}, {"verdict", a.model.verdict.word},
                    {"verdict_reasons", a.model.verdict.reasons}, {"emulated", a.model.emulated}});
  for (const auto& s : r.systems) systems.push_back(system_json(s));
  json winners = json::object(), grouped = json::array();
  for (const auto& [by, name] : r.winners) winners[rank_by_name(by)] = name;
  for (const auto& g : r.warnings)
    grouped.push_back({{"warning", g.text}, {"systems", g.systems}, {"applications", g.applications}});
  json out = {{"schema", kMixSchema},
              {"rank_by", rank_by_name(r.rank_by)},
              {"winners", winners},
              {"winner_changes", winner_changes(r)},
              {"warnings", r.mix->warnings},
              {"warnings_grouped", grouped},
              {"emulated", r.emulated},
              {"assumption", kMixAssumption},
              {"baseline_nodes", r.mix->baseline_nodes},
              {"power_basis", power_basis_name(r.power_basis)},
              {"power_note", r.power_note},
              {"ranking_holds", r.overlaps.empty()},
              {"ranking_overlaps", r.overlaps},
              {"ranking_extrapolated", !extrapolated_pairs(r).empty()},
              {"answer", answer_json(r.answer)},
              {"applications", apps},
              {"systems", systems}};
  return out.dump(2) + "\n";
}

std::string render_csv(const MixResult& r) {
  std::string o =
      "system,rank,application,weight,predicted_s,fit_low_s,fit_high_s,speedup,speedup_low,speedup_high,verdict,"
      "extrapolation,throughput,per_price,per_watt,power_basis,power_w,energy_j,energy_ratio,emulated\n";
  const std::string emu = r.emulated ? "true" : "false";
  const std::string basis = csv_cell(power_basis_name(r.power_basis));
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const auto& s = r.systems[i];
    const std::string sys = csv_cell(s.system.name);
    for (const auto& a : s.apps)
      o += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},,,,{},{},{},,{}\n", sys, i + 1, csv_cell(a.name),
                       csv_number(a.weight), csv_number(a.pred.predicted_s), csv_number(a.pred.fit_low_s),
                       csv_number(a.pred.fit_high_s), csv_number(a.pred.speedup), csv_number(a.pred.speedup_low),
                       csv_number(a.pred.speedup_high), a.verdict, csv_number(a.pred.extrapolation), basis,
                       csv_number(a.power_w), csv_number(a.energy_j), emu);
    // The workload row's power_w is the mix's mean power per node (an application row's: one job's).
    o += fmt::format("{},{},(workload),1,,,,{},{},{},{},{},{},{},{},{},{},,{},{}\n", sys, i + 1, csv_number(s.speedup),
                     csv_number(s.speedup_low), csv_number(s.speedup_high), s.verdict, csv_number(s.extrapolation),
                     csv_number(s.throughput), csv_number(s.per_price), csv_number(s.per_watt), basis,
                     csv_number(s.node_power_w), csv_number(s.energy_ratio), emu);
  }
  return o;
}

// The power column: the mix's modelled power per node, or the system's nominal power_w.
std::string mix_power_column(const MixResult& r, const MixSystem& s) {
  if (s.node_power_w) return fmt::format("{:.4g}", *s.node_power_w);
  if (r.power_basis == PowerBasis::nominal && s.system.power_w) return fmt::format("{:.4g}", *s.system.power_w);
  return "-";
}

std::string system_rows(const MixResult& r) {
  std::string o = fmt::format("  {:<4} {:<16} {:>8} {:>15} {:>11} {:>22} {:>22} {:>10} {:>8}  {}\n", "rank", "system",
                              "speedup", "interval", "throughput", "per price", "per watt", "power [W]", "energy",
                              "verdict");
  auto show = [](const std::optional<double>& v, bool money) {
    return !v ? std::string("-") : money ? human::per_money(*v) : fmt::format("{:.4g}", *v);
  };
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const auto& s = r.systems[i];
    o += fmt::format("  {:<4} {:<16} {:>7.3f}x {:>15} {:>11} {:>22} {:>22} {:>10} {:>8}  {}{}\n", i + 1, s.system.name,
                     s.speedup, fmt::format("{:.3f}-{:.3f}", s.speedup_low, s.speedup_high), show(s.throughput, false),
                     show(s.per_price, true), show(s.per_watt, true), mix_power_column(r, s),
                     s.energy_ratio ? fmt::format("{:.3f}x", *s.energy_ratio) : "-",
                     s.verdict == "unreliable" ? std::string("UNRELIABLE") : s.verdict,
                     s.extrapolation > 1 ? fmt::format(" EXTRAPOLATED {:.2f}x", s.extrapolation) : "");
    for (const auto& a : s.apps)
      o += fmt::format("       {:<14} {:>7.3f}x  predicted {} (fit {} to {}){}{}\n", a.name, a.pred.speedup,
                       human::seconds(a.pred.predicted_s), human::seconds(a.pred.fit_low_s),
                       human::seconds(a.pred.fit_high_s),
                       a.energy_j ? fmt::format(", {:.4g} W, {:.4g} J per job", *a.power_w, *a.energy_j) : "",
                       std::string(a.verdict == "unreliable" ? "  UNRELIABLE" : "") +
                           (a.pred.extrapolated.empty() ? "" : fmt::format("  EXTRAPOLATED {:.2f}x", a.pred.extrapolation)));
  }
  return o;
}

// What the per-watt, power and energy columns hold: the label every format carries.
std::string mix_power_lines(const MixResult& r) {
  std::string o = fmt::format("power basis: {}: {}\n", power_basis_name(r.power_basis), r.power_note);
  if (r.power_basis == PowerBasis::measured)
    o += "power [W]: the mix's mean power per node on the system (each application's weighted by its node-hours "
         "there); energy: the mix's energy for the same work over the baseline's; per application: one job's "
         "power and energy.\n";
  else if (r.power_basis == PowerBasis::nominal)
    o += "power [W]: the system's nominal power_w (the whole system); no energy without a measured power model.\n";
  return o;
}

std::string render_table(const MixResult& r, bool md) {
  std::string o;
  if (r.emulated) o += md ? "**EMULATED**: at least one model was fitted to emulated runs, not measurements\n\n"
                          : "EMULATED — at least one model was fitted to emulated runs, not measurements\n";
  o += md ? answer_markdown(r.answer) : answer_text(r.answer);
  o += "workload mix:";
  for (const auto& a : r.mix->apps)
    o += fmt::format(" {} {:.0f}% (model's verdict {})", a.name, 100 * a.weight, a.model.verdict.word);
  o += fmt::format("\nassumption: {}\n\n", kMixAssumption);
  o += md ? "```\n" + system_rows(r) + "```\n" : system_rows(r);
  o += "\nspeedup: weighted harmonic mean of the applications' speed-ups over their baselines (the same node-hours of "
       "work run that much faster); interval from the fit intervals.\nthroughput: speedup x nodes / baseline_nodes ("
       + fmt::format("{:g}", r.mix->baseline_nodes) + "); per price divides it by the system's price, per watt by the "
       "system's power (below).\n" + mix_power_lines(r) +
       "verdict: the weakest of the system's projections (an application's model verdict, one step lower where its "
       "projection is extrapolated).\n";
  if (r.systems.size() > 1) {
    std::string pairs;
    for (const auto& x : r.overlaps) pairs += (pairs.empty() ? "" : ", ") + x;
    o += (r.overlaps.empty() ? "the ranking holds across the intervals"
                             : "the ranking does not hold across the intervals between " + pairs) +
         extrapolation_note(r) + "\n";
  }
  return o;  // the systems' warnings are the answer's caveats, each said once
}

}  // namespace

std::string render_mix(const MixResult& r, const std::string& format) {
  if (format == "json") return render_json(r);
  if (format == "csv") return render_csv(r);
  if (format == "table" || format == "md") return render_table(r, format == "md");
  throw InputError("--format", "unknown format '" + format + "' (expected table, md, json, csv or html)");
}

}  // namespace hpcsens::model
