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
                    {"warnings", a.pred.warnings}});
  json j = {{"name", s.system.name},
            {"cpu_ghz", s.system.cpu_ghz},
            {"mem_gbs", s.system.mem_gbs},
            {"cpu_work_factor", s.system.cpu_work_factor},
            {"speedup", s.speedup},
            {"speedup_low", json_number(s.speedup_low)},
            {"speedup_high", json_number(s.speedup_high)},
            {"applications", apps},
            {"warnings", s.warnings}};
  if (s.system.nodes) j["nodes"] = *s.system.nodes;
  if (s.system.price) j["price"] = *s.system.price;
  if (s.system.power_w) j["power_w"] = *s.system.power_w;
  if (s.throughput) j["throughput"] = *s.throughput;
  if (s.per_price) j["per_price"] = *s.per_price;
  if (s.per_watt) j["per_watt"] = *s.per_watt;
  return j;
}

// A ranking resting on extrapolated predictions says so in its conclusion (and names them).
std::string extrapolation_note(const MixResult& r) {
  std::string names;
  for (const auto& s : r.systems)
    for (const auto& a : s.apps)
      if (!a.pred.extrapolated.empty()) names += (names.empty() ? "" : ", ") + s.system.name + "/" + a.name;
  return names.empty() ? "" : ", but it rests on extrapolated predictions (" + names + ")";
}

bool winner_changes(const MixResult& r) {
  for (const auto& w : r.winners)
    if (w.second != r.winners.front().second) return true;
  return false;
}

// "per-watt: big-mem; throughput: fast-cpu" -- which system each criterion puts first.
std::string winners_line(const MixResult& r) {
  std::string o;
  for (const auto& [by, name] : r.winners) o += fmt::format("{}{}: {}", o.empty() ? "" : "; ", rank_by_name(by), name);
  return o;
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
              {"ranking_holds", r.overlaps.empty()},
              {"ranking_overlaps", r.overlaps},
              {"ranking_extrapolated", !extrapolation_note(r).empty()},
              {"applications", apps},
              {"systems", systems}};
  return out.dump(2) + "\n";
}

std::string render_csv(const MixResult& r) {
  std::string o =
      "system,rank,application,weight,predicted_s,fit_low_s,fit_high_s,speedup,speedup_low,speedup_high,verdict,"
      "throughput,per_price,per_watt,emulated\n";
  const std::string emu = r.emulated ? "true" : "false";
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const auto& s = r.systems[i];
    const std::string sys = csv_cell(s.system.name);
    for (const auto& a : s.apps)
      o += fmt::format("{},{},{},{},{},{},{},{},{},{},{},,,,{}\n", sys, i + 1, csv_cell(a.name), csv_number(a.weight),
                       csv_number(a.pred.predicted_s), csv_number(a.pred.fit_low_s), csv_number(a.pred.fit_high_s),
                       csv_number(a.pred.speedup), csv_number(a.pred.speedup_low), csv_number(a.pred.speedup_high),
                       a.verdict, emu);
    o += fmt::format("{},{},(workload),1,,,,{},{},{},,{},{},{},{}\n", sys, i + 1, csv_number(s.speedup),
                     csv_number(s.speedup_low), csv_number(s.speedup_high), csv_number(s.throughput),
                     csv_number(s.per_price), csv_number(s.per_watt), emu);
  }
  return o;
}

std::string system_rows(const MixResult& r) {
  std::string o = fmt::format("  {:<4} {:<16} {:>8} {:>15} {:>11} {:>22} {:>22}\n", "rank", "system", "speedup",
                              "interval", "throughput", "per price", "per watt");
  auto show = [](const std::optional<double>& v, bool money) {
    return !v ? std::string("-") : money ? human::per_money(*v) : fmt::format("{:.4g}", *v);
  };
  for (size_t i = 0; i < r.systems.size(); ++i) {
    const auto& s = r.systems[i];
    o += fmt::format("  {:<4} {:<16} {:>7.3f}x {:>15} {:>11} {:>22} {:>22}\n", i + 1, s.system.name, s.speedup,
                     fmt::format("{:.3f}-{:.3f}", s.speedup_low, s.speedup_high), show(s.throughput, false),
                     show(s.per_price, true), show(s.per_watt, true));
    for (const auto& a : s.apps)
      o += fmt::format("       {:<14} {:>7.3f}x  predicted {} (fit {} to {}){}\n", a.name, a.pred.speedup,
                       human::seconds(a.pred.predicted_s), human::seconds(a.pred.fit_low_s),
                       human::seconds(a.pred.fit_high_s),
                       std::string(a.verdict == "unreliable" ? "  UNRELIABLE" : "") +
                           (a.pred.extrapolated.empty() ? "" : "  EXTRAPOLATED"));
  }
  return o;
}

std::string render_table(const MixResult& r) {
  std::string o;
  if (r.emulated) o += "EMULATED — at least one model was fitted to emulated runs, not measurements\n";
  if (!r.systems.empty()) {
    o += fmt::format("Answer: ranked by {}, {} comes first", rank_by_name(r.rank_by), r.systems.front().system.name);
    o += r.systems.size() < 2 ? "" : r.overlaps.empty() ? ", and the ranking holds across the intervals"
                                                         : ", but the ranking does not hold across the intervals";
    o += extrapolation_note(r) + ".\n";
    if (winner_changes(r)) o += "The winner changes with the criterion: " + winners_line(r) + ".\n";
    else if (r.winners.size() > 1) o += "It wins on every criterion given (" + winners_line(r) + ").\n";
  }
  o += "\nworkload mix:";
  for (const auto& a : r.mix->apps) o += fmt::format(" {} {:.0f}% ({})", a.name, 100 * a.weight, a.model.verdict.word);
  o += fmt::format("\nassumption: {}\n\n", kMixAssumption);
  o += system_rows(r);
  o += "\nspeedup: weighted harmonic mean of the applications' speed-ups over their baselines (the same node-hours of "
       "work run that much faster); interval from the fit intervals.\nthroughput: speedup x nodes / baseline_nodes ("
       + fmt::format("{:g}", r.mix->baseline_nodes) + "); per price and per watt divide it by the system's price and "
       "power_w.\n";
  if (r.systems.size() > 1) {
    std::string pairs;
    for (const auto& x : r.overlaps) pairs += (pairs.empty() ? "" : ", ") + x;
    o += (r.overlaps.empty() ? "the ranking holds across the intervals"
                             : "the ranking does not hold across the intervals between " + pairs) +
         extrapolation_note(r) + "\n";
  }
  if (r.mix->weights_normalised) o += "note: the weights did not sum to 1 and were normalised\n";
  for (const auto& w : r.mix->warnings) o += "warning: " + w + "\n";
  for (const auto& g : r.warnings) {
    auto list = [](const std::vector<std::string>& v) {
      std::string o;
      for (const auto& n : v) o += (o.empty() ? "" : ", ") + n;
      return o;
    };
    std::string where = g.applications.empty() ? "" : "applications " + list(g.applications);
    if (r.systems.size() > 1)
      where += (where.empty() ? "" : "; ") +
               (g.systems.size() == r.systems.size() ? std::string("every system") : "systems " + list(g.systems));
    o += "warning: " + g.text + (where.empty() ? "" : " [" + where + "]") + "\n";
  }
  return o;
}

}  // namespace

std::string render_mix(const MixResult& r, const std::string& format) {
  if (format == "json") return render_json(r);
  if (format == "csv") return render_csv(r);
  if (format == "table") return render_table(r);
  throw InputError("--format", "unknown format '" + format + "' (expected table, json or csv)");
}

}  // namespace hpcsens::model
