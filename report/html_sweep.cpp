// The HTML page of a sweep directory, drawn from its answer object (report/model_view.h): the
// answer, the model's sections, the runs charted against each rate the sweep varied (one series
// per setting of the other varied rates; a held rate is no axis and no series, it is named once
// as "held at X"), and what the journal says happened.
#include <fmt/core.h>

#include <map>

#include "report/html_page.h"
#include "report/html_report.h"
#include "report/html_sections.h"
#include "report/json_access.h"
#include "report/model_view.h"

namespace hpcsens::report {
namespace {

using html::json;
namespace ja = json_access;

// The series a run belongs to in the chart against `rate`: the knob settings of the other varied
// rates (those another knob sets), so a legend has one entry per setting, not per noisy value.
std::string series_of(const json& run, const json& rate, const std::vector<json>& varied) {
  const RateAxis* axis = rate_axis(ja::text(rate, "rate"));
  std::string key;
  for (const auto& other : varied) {
    const RateAxis* o = rate_axis(ja::text(other, "rate"));
    if (o == axis || !o || (axis && o->knob_keys == axis->knob_keys)) continue;
    const std::string k = ja::text(other, "shown_key");
    std::string part = ja::text(run["settings"], k);
    if (part.empty()) {  // records that do not say what set the rate: its value, to two digits
      const json v = ja::maybe(run["rates"], k);
      part = v.is_number() ? fmt::format("{} {:.2g} {}", ja::text(other, "words"), v.get<double>(), ja::text(other, "unit"))
                           : "-";
    }
    key += (key.empty() ? "" : ", ") + part;
  }
  return key.empty() ? "runs" : key;
}

// What the runs table's energy columns hold, or why they are empty (the first run's reason).
std::string energy_words(const json& runs) {
  bool emulated = false;
  std::string reason;
  for (const auto& r : runs) {
    emulated = emulated || ja::text(r, "energy_source") == "emulated";
    if (reason.empty()) reason = ja::text(r, "energy_reason");
  }
  std::string out = emulated ? "Energy [J] and mean power [W] are EMULATED: computed from the spec's power truth and "
                               "read back through the powercap reader, not measured."
                             : "Energy [J] and mean power [W]: RAPL package + DRAM of the measured node(s) over each "
                               "run; RAPL covers no fans, PSU losses, disks or network.";
  return reason.empty() ? out : out + " Runs without energy ('-'): " + reason + ".";
}

json runs_section(const json& view) {
  json s = html::section("Runs");
  const json& runs = view["runs"];
  if (runs.empty()) {
    s["text"].push_back("No run records in records/ yet.");
    return s;
  }
  std::vector<json> varied;
  std::string held;
  for (const auto& r : view.value("rates", json::array())) {
    if (r.value("varied", false)) {
      varied.push_back(r);
    } else if (const RateAxis* a = rate_axis(ja::text(r, "rate"))) {
      RateRole role{a, false, r["lo"].get<double>(), r["hi"].get<double>(), r["median"].get<double>()};
      held += (held.empty() ? "" : "; ") + held_text(role);
    }
  }
  if (!held.empty()) s["text"].push_back("Held by this sweep (no axis, no series): " + held + ".");
  if (varied.empty()) s["text"].push_back("The sweep varied no rate beyond its measurement noise: no chart against a rate.");
  for (const auto& rate : varied) {
    std::map<std::string, json> by_series;
    const std::string k = ja::text(rate, "shown_key");
    for (const auto& run : runs) {
      const json x = ja::maybe(run["rates"], k);
      if (x.is_number())
        by_series[series_of(run, rate, varied)].push_back({{"x", x}, {"y", run["job_s"]}, {"label", run["id"]}});
    }
    std::vector<json> series;
    for (auto& [name, pts] : by_series) series.push_back(html::series(name, pts));
    const std::string words = ja::text(rate, "words");
    json chart = html::xy_chart("Run time of every run against the " + words, words + " [" + ja::text(rate, "unit") + "]",
                                "job time [s]", series);
    if (spans_decades(rate["lo"].get<double>(), rate["hi"].get<double>())) chart["logx"] = true;
    s["charts"].push_back(chart);
  }
  s["text"].push_back(energy_words(runs));
  s["tables"].push_back(html::table_json(runs_table(view)));
  return s;
}

json journal_section(const json& view) {
  json s = html::section("Journal");
  const json j = view.value("journal", json());
  if (!j.is_object()) {
    s["text"].push_back("No journal.jsonl in this directory.");
    return s;
  }
  s["tables"].push_back(html::table_json(journal_table(view)));
  s["text"].push_back(std::string(j.value("finished", false) ? "The sweep finished."
                                                             : "The sweep has no 'finished' entry (still running, "
                                                               "stopped or interrupted).") +
                      (j.value("restored", false) ? " Knobs were restored." : ""));
  for (const auto& n : j["notable"]) s["warnings"].push_back(n);
  return s;
}

}  // namespace

json sweep_page(const std::string& dir_text) {
  const json view = sweep_view(dir_text);
  json page = {{"title", view["title"]}, {"emulated", view["emulated"]}, {"answer", view["answer"]},
               {"notes", {fmt::format("{} runs, the journal and the model of this sweep.", view["runs"].size()),
                          view["model_note"]}}};
  json sections = json::array();
  if (view["model"].is_object()) {
    page["notes"].push_back(formula_note(view["model"]));
    sections = model_sections(view);
  }
  sections.push_back(runs_section(view));
  sections.push_back(journal_section(view));
  page["sections"] = sections;
  return page;
}

}  // namespace hpcsens::report
