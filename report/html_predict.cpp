// HTML pages of `hpcsens predict --format json`: candidates ranked with the fit interval and the
// overlap range drawn separately; for mixes, the workload and per-application speed-ups per system.
#include <fmt/core.h>

#include <algorithm>

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
  if (!verdict.empty()) s["text"].push_back("Model verdict: " + verdict);
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
  return {{"title", "hpcsens prediction: model " + ja::text(pred, "model", "?")},
          {"emulated", pred.value("emulated", false)},
          {"notes", json::array()},
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
  for (const auto& sys : systems)
    for (const auto& x : sys.value("warnings", json::array()))
      if (x.is_string()) w["warnings"].push_back(ja::text(sys, "name") + ": " + x.get<std::string>());
  Table per_system;
  per_system.title = "Systems (best workload speed-up first)";
  per_system.header = {"system", "speed-up", "range", "throughput", "per price", "per watt"};
  per_system.numeric = {false, true, false, true, true, true};
  for (const auto& sys : systems)
    per_system.rows.push_back({ja::text(sys, "name"), g(ja::maybe(sys, "speedup")),
                               g(ja::maybe(sys, "speedup_low")) + " to " + g(ja::maybe(sys, "speedup_high")),
                               g(ja::maybe(sys, "throughput")), g(ja::maybe(sys, "per_price")),
                               g(ja::maybe(sys, "per_watt"))});
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
          {"notes", json::array()},
          {"sections", json::array({w, a})}};
}

}  // namespace hpcsens::report
