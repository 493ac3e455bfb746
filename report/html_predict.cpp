// HTML pages of `hpcsens predict --format json`: candidates ranked with the fit interval and the
// overlap range drawn separately; for mixes, the workload and per-application speed-ups per system.
// The answer is the one the JSON carries (model/predict_answer.h), never recomputed here; each
// candidate has its own verdict badge and extrapolation beside the model's labelled verdict.
#include <fmt/core.h>

#include <algorithm>

#include "common/answer.h"
#include "common/human_units.h"
#include "report/headline.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/json_access.h"

namespace hpcsens::report {
namespace {

namespace ja = json_access;
using html::json;

std::string g(const json& v) { return v.is_number() ? fmt::format("{:.5g}", v.get<double>()) : std::string("-"); }

json range(const json& p, const char* lo, const char* hi) {
  const json a = ja::maybe(p, lo), b = ja::maybe(p, hi);
  return a.is_number() && b.is_number() ? json::array({a, b}) : json(nullptr);
}

// The criterion the systems are ranked by, when it is not the speed-up drawn anyway. Money and
// power ratios are drawn per million (of the currency, of watts) so the axis reads in plain numbers.
json criterion_chart(const json& mix, const std::vector<std::string>& labels) {
  const std::string by = ja::text(mix, "rank_by", "speedup");
  if (by == "speedup") return json();
  const bool tp = by == "throughput";
  const std::string key = tp ? "throughput" : by == "per-price" ? "per_price" : "per_watt";
  const double scale = tp ? 1.0 : 1e6;
  json values = json::array();
  for (const auto& sys : mix.value("systems", json::array())) {
    const json v = ja::maybe(sys, key);
    values.push_back(v.is_number() ? json(v.get<double>() * scale) : json(nullptr));
  }
  const std::string axis = tp ? "throughput vs baseline [x]"
                          : by == "per-price" ? "throughput per million of price" : "throughput per MW (million watts)";
  return html::bar_chart("Ranked by " + by + ": " + axis + " per candidate system", "candidate system", axis, labels,
                         {html::series(by, values, {{"color", 2}})}, false, true);
}

// The page's answer box from the file's `answer` (headline, tone, caveats, advice with figures).
json file_answer(const json& source, const char* command) {
  const json a = source.value("answer", json());
  if (!a.is_object() || !a.contains("headline") || !a["headline"].is_string())
    return {{"headline", std::string("This file has no answer (written by an older hpcsens): run ") + command +
                             " --format json again."},
            {"tone", "info"}, {"caveats", json::array()}, {"advice", json::array()}};
  json advice = json::array(), caveats = json::array();
  for (const auto& c : a.value("caveats", json::array()))
    if (c.is_string()) caveats.push_back(c);
  for (const auto& x : a.value("advice", json::array())) {
    const answer::Advice item{ja::text(x, "text"), ja::text(x, "figure")};
    if (!item.text.empty()) advice.push_back(answer::advice_line(item));  // as Markdown shows it
  }
  return {{"headline", a["headline"]}, {"tone", ja::text(a, "tone", "info")}, {"caveats", caveats}, {"advice", advice}};
}

// "4.00x (mem_gbs)" or "-" inside the measured rates.
std::string extrapolation_cell(const json& p) {
  const json f = ja::maybe(p, "extrapolation");
  if (!p.value("extrapolated", false) || !f.is_number()) return "-";
  std::string rates;
  for (const auto& r : p.value("extrapolated_rates", json::array()))
    if (r.is_string()) rates += (rates.empty() ? "" : ", ") + r.get<std::string>();
  return fmt::format("{:.2f}x", f.get<double>()) + (rates.empty() ? "" : " (" + rates + ")");
}

// The rate columns: the file's `rates` (the model's and the given ones, in the user's units), or
// cpu and memory for files from before them.
json rate_columns(const json& pred) {
  const json r = pred.value("rates", json());
  if (r.is_array() && !r.empty()) return r;
  return json::array({{{"name", "cpu_ghz"}, {"unit", "GHz"}, {"modelled", true}},
                      {{"name", "mem_gbs"}, {"unit", "GB/s"}, {"modelled", true}}});
}

std::string rate_cell(const json& p, const std::string& name) {
  for (const auto& r : p.value("rates", json::array()))
    if (ja::text(r, "name") == name)
      return g(ja::maybe(r, "value")) + (r.value("given", true) ? "" : " (baseline)");
  return g(ja::maybe(p, name));
}

}  // namespace

Table candidate_table(const json& pred, const json& list) {
  Table t;
  t.title = "Projected time per candidate (fastest first), each with its own verdict";
  t.header = {"candidate"};
  const json columns = rate_columns(pred);
  for (const auto& c : columns)
    t.header.push_back(ja::text(c, "name") + " [" + ja::text(c, "unit") + "]" +
                       (c.value("modelled", true) ? "" : " (not in model)"));
  for (const char* h : {"projected [s]", "fit interval [s]", "overlap range [s]", "speed-up vs baseline", "verdict",
                        "extrapolation", "warnings"})
    t.header.push_back(h);
  t.numeric.assign(t.header.size(), false);
  for (std::size_t c = 1; c <= columns.size() + 1; ++c) t.numeric[c] = true;
  t.numeric[columns.size() + 4] = true;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& p = list[i];
    std::vector<std::string> row{ja::text(p, "name", fmt::format("predictions[{}]", i))};
    for (const auto& c : columns) row.push_back(rate_cell(p, ja::text(c, "name")));
    std::string warn;
    for (const auto& w : p.value("warnings", json::array()))  // EMULATED: the page's banner says it
      if (w.is_string() && w.get<std::string>().rfind("EMULATED", 0) != 0)
        warn += (warn.empty() ? "" : "; ") + w.get<std::string>();
    auto span = [&](const char* lo, const char* hi) { return g(ja::maybe(p, lo)) + " to " + g(ja::maybe(p, hi)); };
    for (const auto& v : {g(ja::maybe(p, "predicted_s")), span("fit_low_s", "fit_high_s"),
                          span("overlap_low_s", "overlap_high_s"), g(ja::maybe(p, "speedup")),
                          ja::text(p, "verdict", "-"), extrapolation_cell(p), warn})
      row.push_back(v);
    t.rows.push_back(std::move(row));
  }
  return t;
}

json prediction_page(const json& pred, const std::string& file) {
  const json& list = ja::array(pred, "predictions", file, "");
  json s = html::section("Candidates ranked by projected time");
  const std::string verdict = ja::text(pred, "verdict");
  if (!verdict.empty())
    s["verdict"] = {{"word", verdict}, {"text", "The model's verdict: " + verdict + " (of the fit; each candidate's "
                                                "own verdict is in the table)"}};
  std::vector<std::string> labels;
  json predicted = json::array(), fit = json::array(), overlap = json::array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& p = list[i];
    labels.push_back(ja::text(p, "name", fmt::format("predictions[{}]", i)));
    predicted.push_back(ja::number(p, "predicted_s", file, fmt::format("predictions[{}]", i)));
    fit.push_back(range(p, "fit_low_s", "fit_high_s"));
    overlap.push_back(range(p, "overlap_low_s", "overlap_high_s"));
  }
  json chart = html::bar_chart("Projected run time per candidate", "candidate system", "projected time [s]", labels,
                               {html::series("fit interval (parameter uncertainty)", fit, {{"color", 0}}),
                                html::series("overlap range (none to full overlap)", overlap, {{"color", 1}}),
                                html::series("projected", predicted, {{"color", 3}})},
                               false, true);
  chart["note"] = "The two ranges are separate questions: how well the fit pins the works down, and how much the "
                  "terms may overlap on the candidate. Projections in cycles assume the same microarchitecture.";
  s["charts"].push_back(chart);
  json table = html::table_json(candidate_table(pred, list));
  table["badges"] = rate_columns(pred).size() + 5;  // the verdict column, drawn as a badge per candidate
  s["tables"].push_back(std::move(table));
  const json base = pred.value("baseline", json::object());
  const std::string app = ja::text(pred, "app").empty() ? "" : ja::text(pred, "app") + ", ";
  return {{"title", "hpcsens prediction: " + app + "model " + ja::text(pred, "model", "?")},
          {"emulated", pred.value("emulated", false)},
          {"answer", file_answer(pred, "hpcsens predict MODEL --system FILE.yaml")},
          {"notes", {fmt::format("Speed-up is the model's time at the baseline '{}' ({} modelled, {} measured) over "
                                 "the projection, so a candidate with the baseline's rates is 1.00x.",
                                 ja::text(base, "label", "?"), human::seconds(ja::maybe(base, "model_s").is_number()
                                                                                 ? base["model_s"].get<double>() : NAN),
                                 human::seconds(base.value("time_s", NAN)))}},
          {"sections", json::array({s})}};
}

// A system's verdict: the file's (the weakest of its applications'), else the worst of theirs.
std::string system_verdict(const json& sys) {
  std::string v = ja::text(sys, "verdict");
  if (!v.empty()) return v;
  v = "ok";
  for (const auto& a : sys.value("applications", json::array())) {
    const std::string w = ja::text(a, "verdict", "ok");
    if (w == "unreliable" || (w == "caution" && v == "ok")) v = w;
  }
  return v;
}

std::string system_extrapolation(const json& sys) {
  const json f = ja::maybe(sys, "extrapolation");
  return f.is_number() && f.get<double>() > 1 ? fmt::format("{:.2f}x", f.get<double>()) : "-";
}

// The mix's power per node from the measured power model, else the system's nominal power_w.
std::string mix_power_cell(const json& mix, const json& sys) {
  if (ja::maybe(sys, "node_power_w").is_number()) return g(ja::maybe(sys, "node_power_w"));
  if (ja::text(mix, "power_basis", "") == "nominal, from SYSTEMS file") return g(ja::maybe(sys, "power_w"));
  return "-";
}

json mix_page(const json& mix, const std::string& file) {
  const json& systems = ja::array(mix, "systems", file, "");
  std::vector<std::string> labels, apps;
  for (std::size_t i = 0; i < systems.size(); ++i) {
    labels.push_back(ja::text(systems[i], "name", fmt::format("system {}", i)));
    for (const auto& a : systems[i].value("applications", json::array()))
      if (std::find(apps.begin(), apps.end(), ja::text(a, "name")) == apps.end()) apps.push_back(ja::text(a, "name"));
  }
  json w = html::section("Workload speed-up per system");
  w["text"].push_back("Workload speed-up = weighted harmonic mean of the applications' speed-ups (node-hour "
                      "weights); the range combines the applications' ranges.");
  if (mix.contains("assumption") && mix["assumption"].is_string()) w["text"].push_back(mix["assumption"].get<std::string>());
  // Its caveats (ranking, extrapolation, warnings, each once) are the answer's, above.
  Table per_system;
  per_system.title = "Systems, best first by " + ja::text(mix, "rank_by", "speedup") + " (the other criteria beside it)";
  per_system.header = {"rank", "system", "speed-up", "range", "throughput", "per price", "per watt", "verdict",
                       "extrapolation", "power [W]", "energy vs baseline"};
  per_system.numeric = {true, false, true, false, true, true, true, false, false, true, true};
  // What per watt rests on (measured power model, nominal power_w, or none), as the JSON says it.
  const std::string basis = ja::text(mix, "power_basis", "");
  if (!basis.empty()) w["text"].push_back("Power basis: " + basis + ": " + ja::text(mix, "power_note", "") + ".");
  auto money = [](const json& v) { return v.is_number() ? human::per_money(v.get<double>()) : std::string("-"); };
  for (std::size_t i = 0; i < systems.size(); ++i) {
    const json& sys = systems[i];
    per_system.rows.push_back({std::to_string(i + 1), ja::text(sys, "name"), g(ja::maybe(sys, "speedup")),
                               g(ja::maybe(sys, "speedup_low")) + " to " + g(ja::maybe(sys, "speedup_high")),
                               g(ja::maybe(sys, "throughput")), money(ja::maybe(sys, "per_price")),
                               money(ja::maybe(sys, "per_watt")), system_verdict(sys), system_extrapolation(sys),
                               mix_power_cell(mix, sys), g(ja::maybe(sys, "energy_ratio"))});
  }
  json systems_table = html::table_json(per_system);
  systems_table["badges"] = 7;
  w["tables"].push_back(std::move(systems_table));
  json speed = json::array(), spread = json::array();
  for (std::size_t i = 0; i < systems.size(); ++i) {
    speed.push_back(ja::number(systems[i], "speedup", file, fmt::format("systems[{}]", i)));
    spread.push_back(range(systems[i], "speedup_low", "speedup_high"));
  }
  w["charts"].push_back(html::bar_chart("Workload speed-up per candidate system", "candidate system",
                                        "speed-up vs baseline [x]", labels,
                                        {html::series("range", spread, {{"color", 0}}),
                                         html::series("workload speed-up", speed, {{"color", 3}})},
                                        false, true));
  if (json c = criterion_chart(mix, labels); c.is_object()) w["charts"].push_back(std::move(c));
  json a = html::section("Per-application speed-up per system");
  std::vector<json> series;
  Table t;
  t.title = "Applications per system";
  t.header = {"system", "application", "projected [s]", "speed-up", "verdict", "extrapolation", "power [W]",
              "energy per job [J]"};
  t.numeric = {false, false, true, true, false, false, true, true};
  for (const auto& app : apps) {
    json v = json::array();
    for (std::size_t i = 0; i < systems.size(); ++i) {
      json value = nullptr;
      for (const auto& x : systems[i].value("applications", json::array()))
        if (ja::text(x, "name") == app) value = ja::maybe(x, "speedup");
      v.push_back(value);
    }
    series.push_back(html::series(app, v));
  }
  for (std::size_t i = 0; i < systems.size(); ++i)
    for (const auto& x : systems[i].value("applications", json::array()))
      t.rows.push_back({labels[i], ja::text(x, "name"), g(ja::maybe(x, "predicted_s")), g(ja::maybe(x, "speedup")),
                        ja::text(x, "verdict", "-"), extrapolation_cell(x), g(ja::maybe(x, "power_w")),
                        g(ja::maybe(x, "energy_j"))});
  a["charts"].push_back(html::bar_chart("Speed-up per application and system", "candidate system",
                                        "speed-up vs baseline [x]", labels, series));
  json apps_table = html::table_json(t);
  apps_table["badges"] = 4;
  a["tables"].push_back(std::move(apps_table));
  return {{"title", "hpcsens workload mix: " + std::to_string(systems.size()) + " candidate systems"},
          {"emulated", mix.value("emulated", false)},
          {"answer", file_answer(mix, "hpcsens predict --mix MIX.yaml --system FILE.yaml")},
          {"notes", json::array()},
          {"sections", json::array({w, a})}};
}

}  // namespace hpcsens::report
