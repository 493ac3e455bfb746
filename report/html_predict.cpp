// HTML pages of `hpcsens predict --format json`: candidates ranked with the fit interval and the
// overlap range drawn separately; for mixes, the workload and per-application speed-ups per system.
#include <fmt/core.h>

#include <algorithm>

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

// "The ranking holds" or which neighbours' intervals overlap (predict's ranking_holds/_overlaps).
void add_ranking(json& section, const json& source) {
  if (!source.contains("ranking_holds") || !source["ranking_holds"].is_boolean()) return;
  if (source["ranking_holds"].get<bool>()) {
    section["text"].push_back("The ranking holds: each candidate's interval lies entirely beside the next one's.");
    return;
  }
  std::string pairs;
  for (const auto& p : source.value("ranking_overlaps", json::array()))
    pairs += (pairs.empty() ? "" : "; ") + (p.is_string() ? p.get<std::string>() : p.dump());
  section["warnings"].push_back("The ranking is not certain: intervals overlap" + (pairs.empty() ? "" : " (" + pairs + ")") +
                                ".");
}

// Each warning once, with the systems it applies to (the mix's warnings_grouped; older mix files:
// grouped here from the systems' own lists).
void add_grouped_warnings(json& section, const json& mix, std::size_t nsystems) {
  json grouped = mix.value("warnings_grouped", json());
  if (!grouped.is_array()) {
    grouped = json::array();
    for (const auto& sys : mix.value("systems", json::array()))
      for (const auto& x : sys.value("warnings", json::array())) {
        if (!x.is_string()) continue;
        auto at = std::find_if(grouped.begin(), grouped.end(), [&](const json& e) { return e["warning"] == x; });
        if (at == grouped.end()) grouped.push_back({{"warning", x}, {"systems", json::array()}}), at = grouped.end() - 1;
        (*at)["systems"].push_back(ja::text(sys, "name"));
      }
  }
  auto list = [](const json& v) {
    std::string o;
    for (const auto& n : v) o += (o.empty() ? "" : ", ") + (n.is_string() ? n.get<std::string>() : n.dump());
    return o;
  };
  for (const auto& e : grouped) {
    const json systems = e.value("systems", json::array()), apps = e.value("applications", json::array());
    std::string where = apps.empty() ? "" : "applications " + list(apps);
    if (nsystems > 1)
      where += (where.empty() ? "" : "; ") + (systems.size() == nsystems ? std::string("every system") : "systems " + list(systems));
    section["warnings"].push_back(ja::text(e, "warning") + (where.empty() ? "" : " [applies to: " + where + "]"));
  }
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

void add_warnings(json& section, const json& source) {
  for (const char* key : {"warnings", "verdict_reasons"})
    if (source.contains(key) && source[key].is_array())
      for (const auto& w : source[key])
        if (w.is_string()) section["warnings"].push_back(w.get<std::string>());
}

}  // namespace

json prediction_page(const json& pred, const std::string& file) {
  const json& list = ja::array(pred, "predictions", file, "");
  json s = html::section("Candidates ranked by projected time");
  const std::string verdict = ja::text(pred, "verdict");
  if (!verdict.empty()) s["verdict"] = {{"word", verdict}, {"text", "Model verdict: " + verdict}};
  add_warnings(s, pred);
  add_ranking(s, pred);
  std::vector<std::string> labels;
  json predicted = json::array(), fit = json::array(), overlap = json::array();
  Table t;
  t.title = "Projected time per candidate (fastest first)";
  t.header = {"candidate", "cpu [GHz]", "mem [GB/s]", "projected [s]", "fit interval [s]", "overlap range [s]",
              "speed-up vs baseline", "warnings"};
  t.numeric = {false, true, true, true, false, false, true, false};
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& p = list[i];
    const std::string where = fmt::format("predictions[{}]", i);
    const std::string name = ja::text(p, "name", where);
    labels.push_back(name);
    predicted.push_back(ja::number(p, "predicted_s", file, where));
    fit.push_back(range(p, "fit_low_s", "fit_high_s"));
    overlap.push_back(range(p, "overlap_low_s", "overlap_high_s"));
    std::string warn;
    for (const auto& w : p.value("warnings", json::array())) if (w.is_string()) warn += (warn.empty() ? "" : "; ") + w.get<std::string>();
    auto span = [&](const char* lo, const char* hi) { return g(ja::maybe(p, lo)) + " to " + g(ja::maybe(p, hi)); };
    t.rows.push_back({name, g(ja::maybe(p, "cpu_ghz")), g(ja::maybe(p, "mem_gbs")), g(p["predicted_s"]),
                      span("fit_low_s", "fit_high_s"), span("overlap_low_s", "overlap_high_s"),
                      g(ja::maybe(p, "speedup")), warn});
  }
  json chart = html::bar_chart("Projected run time per candidate", "candidate system", "projected time [s]", labels,
                               {html::series("fit interval (parameter uncertainty)", fit, {{"color", 0}}),
                                html::series("overlap range (none to full overlap)", overlap, {{"color", 1}}),
                                html::series("projected", predicted, {{"color", 3}})},
                               false, true);
  chart["note"] = "The two ranges are separate questions: how well the fit pins the works down, and how much the "
                  "terms may overlap on the candidate. Projections in cycles assume the same microarchitecture.";
  s["charts"].push_back(chart);
  s["tables"].push_back(html::table_json(t));
  const json base = pred.value("baseline", json::object());
  const std::string app = ja::text(pred, "app").empty() ? "" : ja::text(pred, "app") + ", ";
  return {{"title", "hpcsens prediction: " + app + "model " + ja::text(pred, "model", "?")},
          {"emulated", pred.value("emulated", false)},
          {"answer", html::answer(prediction_answer(pred))},
          {"notes", {fmt::format("Speed-up is against the measured baseline '{}' ({:g} GHz, {:g} GB/s, {}) of {}.",
                                 ja::text(base, "label", "?"), base.value("cpu_ghz", 0.0), base.value("mem_gbs", 0.0),
                                 human::seconds(base.value("time_s", NAN)),
                                 ja::text(pred, "app").empty() ? "the fitted application" : ja::text(pred, "app"))}},
          {"sections", json::array({s})}};
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
  add_warnings(w, mix);
  add_ranking(w, mix);
  add_grouped_warnings(w, mix, systems.size());
  Table per_system;
  per_system.title = "Systems, best first by " + ja::text(mix, "rank_by", "speedup") + " (the other criteria beside it)";
  per_system.header = {"rank", "system", "speed-up", "range", "throughput", "per price", "per watt"};
  per_system.numeric = {true, false, true, false, true, true, true};
  auto money = [](const json& v) { return v.is_number() ? human::per_money(v.get<double>()) : std::string("-"); };
  for (std::size_t i = 0; i < systems.size(); ++i) {
    const json& sys = systems[i];
    per_system.rows.push_back({std::to_string(i + 1), ja::text(sys, "name"), g(ja::maybe(sys, "speedup")),
                               g(ja::maybe(sys, "speedup_low")) + " to " + g(ja::maybe(sys, "speedup_high")),
                               g(ja::maybe(sys, "throughput")), money(ja::maybe(sys, "per_price")),
                               money(ja::maybe(sys, "per_watt"))});
  }
  w["tables"].push_back(html::table_json(per_system));
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
  t.header = {"system", "application", "projected [s]", "speed-up", "verdict"};
  t.numeric = {false, false, true, true, false};
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
                        ja::text(x, "verdict", "-")});
  a["charts"].push_back(html::bar_chart("Speed-up per application and system", "candidate system",
                                        "speed-up vs baseline [x]", labels, series));
  a["tables"].push_back(html::table_json(t));
  return {{"title", "hpcsens workload mix: " + std::to_string(systems.size()) + " candidate systems"},
          {"emulated", mix.value("emulated", false)},
          {"answer", html::answer(mix_answer(mix))},
          {"notes", json::array()},
          {"sections", json::array({w, a})}};
}

}  // namespace hpcsens::report
