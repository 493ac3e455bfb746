// The energy part of a model's page (and of a sweep page showing its model): the energy-against-
// time trade-off of the model's configurations with the Pareto front drawn and the chosen points
// (energy-optimal, within the slowdown, EDP, ED2P) marked and named, and the answer in words as
// the model JSON states it (docs/model-format.md, "energy"): nothing here is recomputed.
#include <fmt/core.h>

#include <algorithm>

#include "report/html_page.h"
#include "report/html_sections.h"
#include "report/json_access.h"

namespace hpcsens::report {
namespace {

using html::json;
namespace ja = json_access;

// The decisions in the order they are named, with their words.
// Radii fall in this order and Chart.js draws a higher `order` first (behind), so choices at the
// same configuration show as concentric rings.
struct Choice {
  const char* key;
  const char* words;
  int color;
  int radius;
};
constexpr Choice kChoices[] = {{"energy_optimal", "energy-optimal", 3, 12},
                               {"within_slowdown", "lowest energy within the slowdown", 2, 10},
                               {"edp", "EDP optimum", 1, 7},
                               {"ed2p", "ED2P optimum", 6, 4}};

json xy(const json& p, const std::string& file, const std::string& where) {
  return {{"x", ja::number(p, "time_s", file, where)}, {"y", ja::number(p, "energy_j", file, where)},
          {"label", ja::text(p, "label", "?")}};
}

// All configurations, the front (by time) as a line, and one marked series per decision.
json trade_off_chart(const json& en, const std::string& file) {
  json all = json::array(), front = json::array();
  const json& pts = ja::array(en, "points", file, "energy");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const json p = xy(pts[i], file, fmt::format("energy.points[{}]", i));
    all.push_back(p);
    if (pts[i].value("pareto", false)) front.push_back(p);
  }
  std::sort(front.begin(), front.end(), [](const json& a, const json& b) { return a["x"] < b["x"]; });
  std::vector<json> series = {html::series("configurations", all, {{"color", 0}}),
                              html::series("Pareto front (no configuration is both faster and lower in energy)",
                                           front, {{"kind", "line"}, {"points", true}, {"color", 4}, {"order", 1}})};
  const json decisions = en.value("decisions", json::object());
  for (const auto& c : kChoices) {
    const json d = decisions.value(c.key, json());
    if (!d.is_object()) continue;
    const std::string where = std::string("energy.decisions.") + c.key;
    const json p = xy(d, file, where);
    series.push_back(html::series(std::string(c.words) + ": " + ja::text(d, "label", "?"), json::array({p}),
                                  {{"kind", "line"}, {"noline", true}, {"color", c.color}, {"order", c.radius}, {"radius", c.radius}}));
  }
  json chart = html::xy_chart("Energy against time: the trade-off", "time [s]", "energy [J]", series);
  chart["height"] = 400;
  chart["note"] = "Each dot is a configuration (measured median or predicted); the line joins the Pareto front; "
                  "the large marks are the chosen configurations, named in the legend, drawn at the model's time and "
                  "energy (E = P x T), so a mark may sit beside its configuration's measured dot.";
  return chart;
}

std::string decision_line(const Choice& c, const json& d) {
  const std::string sentence = ja::text(d, "sentence");
  const std::string verdict = ja::text(d, "verdict");
  return std::string(c.words) + ": " + (sentence.empty() ? ja::text(d, "label", "?") : sentence) +
         (verdict.empty() ? "" : " (verdict: " + verdict + ")");
}

}  // namespace

json energy_trade_off_section(const json& model, const std::string& file) {
  const json en = model.value("energy", json());
  if (!en.is_object()) return json();
  json s = html::section("Energy: time against energy, and the clocks that save it");
  if (!en.value("available", false)) {
    // A record's reason may open with "not available: " itself (sweep/execute/emulated_energy.cpp):
    // said once ("not available: not available: ..." on the demo's model page).
    std::string why = ja::text(en, "reason", "no reason given");
    if (why.rfind("not available: ", 0) == 0) why.erase(0, 15);
    s["text"].push_back("Energy is not available for this model: " + why + ".");
    return s;
  }
  if (const std::string sentence = ja::text(en, "sentence"); !sentence.empty()) s["text"].push_back(sentence);
  const json decisions = en.value("decisions", json::object());
  for (const auto& c : kChoices)
    if (decisions.value(c.key, json()).is_object()) s["text"].push_back(decision_line(c, decisions[c.key]));
  const std::string domains = ja::text(en, "domains"), note = ja::text(en, "domains_note");
  s["text"].push_back("Energy is RAPL's " + (domains.empty() ? std::string("package") : domains) +
                      (note.empty() ? "; RAPL covers no fans, PSU losses, disks or network." : " (" + note + ")."));
  s["charts"].push_back(trade_off_chart(en, file));
  return s;
}

}  // namespace hpcsens::report
