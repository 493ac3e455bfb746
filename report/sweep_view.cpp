// A sweep directory's answer object: its runs (records/) with the rates they ran at, what the
// journal says happened, and the model the sweep's fit wrote (model.json) or one fitted now.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/errors.h"
#include "common/safe_file.h"
#include "energy/energy_totals.h"
#include "model/analysis.h"
#include "model/dataset.h"
#include "model/model_json.h"
#include "report/html_page.h"
#include "report/json_access.h"
#include "report/model_view.h"
#include "report/record_reader.h"

namespace hpcsens::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace ja = json_access;

// Every run with each rate it ran at (shown units) and how the knobs set that rate.
json read_runs(const fs::path& dir) {
  json runs = json::array();
  const fs::path records = dir / "records";
  if (!fs::is_directory(records)) return runs;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(records))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const auto rec = read_run_record(f.string());  // InputError names the file and field
    json rates = json::object(), settings = json::object();
    for (const auto& axis : rate_axes()) {
      const json v = ja::maybe(rec.config, axis.key);
      if (v.is_number() && v.get<double>() > 0) rates[axis.shown_key] = axis.shown(v.get<double>());
      if (const std::string s = knob_setting(axis, rec.config); !s.empty()) settings[axis.shown_key] = s;
    }
    const std::string id = f.stem().string();
    json run = {{"id", id}, {"label", ja::text(rec.config, "label", id)}, {"job_s", rec.timing.job_s},
                {"emulated", rec.emulated}, {"rates", rates}, {"settings", settings}};
    // RAPL package + DRAM of the measured nodes, or why there is none (docs/record-format.md, "energy").
    const auto e = rec.extra.find("energy");
    const energy::Totals tot = energy::energy_totals(e == rec.extra.end() ? json() : *e);
    if (tot.available) run.update({{"energy_j", tot.joules}, {"mean_w", tot.mean_w}, {"energy_source", tot.source}});
    else run["energy_reason"] = tot.reason.empty() ? "the record has no energy section" : tot.reason;
    runs.push_back(std::move(run));
  }
  return runs;
}

json read_journal(const fs::path& dir) {
  const fs::path path = dir / "journal.jsonl";
  if (!fs::exists(path)) return nullptr;
  std::istringstream in(safe_file::read_input_file(path.string()));
  json kinds = json::object(), notable = json::array();
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const json e = json::parse(line, nullptr, false);
    if (e.is_discarded() || !e.is_object()) {
      notable.push_back(fmt::format("line {}: not JSON (a write cut short?)", n));
      continue;
    }
    const std::string kind = e.value("type", e.value("kind", e.value("event", std::string("?"))));
    kinds[kind] = kinds.value(kind, 0) + 1;
    const std::string status = ja::text(e, "status");
    if ((kind == "lost" || kind == "stopped" || kind == "skipped" || status == "failed" ||
         (kind == "restored" && e.contains("errors") && !e["errors"].empty())) && notable.size() < 50)
      notable.push_back(fmt::format("line {}: {}", n, e.dump(-1, ' ', false, json::error_handler_t::replace)));
  }
  return {{"entries", kinds}, {"finished", kinds.contains("finished")}, {"restored", kinds.contains("restored")},
          {"notable", notable}};
}

// model.json when the sweep's fit wrote one, else fitted now with the defaults of `hpcsens fit`
// (the note says so, with the command that keeps it).
json sweep_model(const fs::path& dir, std::string& note, ModelPlace& place) {
  const fs::path model_path = dir / "model.json";
  place.path = model_path.string();
  if (fs::exists(model_path)) {
    const json model = json::parse(safe_file::read_input_file(model_path.string()), nullptr, false);
    if (model.is_discarded() || !model.is_object()) throw InputError(model_path.string(), "is not a JSON object");
    require_model_terms(model, model_path.string());
    note = "The model is " + model_path.string() + ", written by the sweep's fit.";
    return model;
  }
  const std::string records = (dir / "records").string();
  place.keep_command = "hpcsens fit " + records + " -o " + model_path.string();
  try {
    const model::Dataset data = model::load_dataset({records}, model::LoadOptions{});
    json model = model::to_json(model::analyze(data, model::AnalyzeOptions{}));
    note = "No model.json in " + dir.string() + ": the model was fitted now with the defaults of hpcsens fit "
           "(--model auto). To keep it: " + place.keep_command;
    return model;
  } catch (const InputError& e) {
    note = std::string("No model.json, and the runs cannot be fitted yet: ") + e.what() + ". When they can: " +
           place.keep_command;
    return json();
  }
}

// Without a model, which rates moved: the fit's own rule over the records' configurations.
std::vector<RateRole> roles_without_model(const fs::path& dir) {
  try {
    return rate_roles(model::rate_variations(model::load_dataset({(dir / "records").string()}, {}).points));
  } catch (const InputError&) {
    return {};
  }
}

void journal_caveats(const json& journal, Answer& a) {
  if (!journal.is_object()) return;
  if (!journal.value("finished", false))
    a.caveats.push_back("The journal has no 'finished' entry: the sweep is still running, was stopped or was interrupted.");
  const std::size_t n = journal["notable"].size();
  if (n > 0) a.caveats.push_back(fmt::format("{} journal entr{} of lost, failed, skipped or stopped runs (Journal below).",
                                             n, n == 1 ? "y" : "ies"));
}

}  // namespace

json sweep_view(const std::string& dir_text) {
  const fs::path dir(dir_text);
  if (!fs::exists(dir / "journal.jsonl") && !fs::exists(dir / "records") && !fs::exists(dir / "model.json"))
    throw InputError(dir_text, "is not a sweep directory (no journal.jsonl, records/ or model.json)");
  const json runs = read_runs(dir), journal = read_journal(dir);
  std::string note;
  ModelPlace place;
  const json model = sweep_model(dir, note, place);
  const auto roles = model.is_object() ? rate_roles(model) : roles_without_model(dir);
  Answer a;
  if (model.is_object()) {
    a = model_answer(model, roles, place);
  } else {
    a.headline = fmt::format("{} runs, no model yet: {}", runs.size(), note);
    a.tone = "caution";
  }
  journal_caveats(journal, a);
  bool emulated = model.is_object() && model.value("emulated", false);
  for (const auto& r : runs) emulated = emulated || r.value("emulated", false);
  return {{"kind", "sweep"}, {"source", dir_text}, {"title", "hpcsens sweep: " + dir_text}, {"emulated", emulated},
          {"answer", html::answer(a)}, {"rates", roles_json(roles)},
          {"residuals", model.is_object() ? residuals_json(model, roles) : json::array()}, {"model", model},
          {"model_note", note}, {"runs", runs}, {"journal", journal}};
}

// Every run with the rates the sweep varied; the held ones are in the rates table once.
Table runs_table(const json& view) {
  Table t;
  const json& runs = view["runs"];
  t.title = fmt::format("{} runs", runs.size());
  t.header = {"run", "label"};
  t.numeric = {false, false};
  std::vector<std::string> keys;
  for (const auto& r : view.value("rates", json::array()))
    if (r.value("varied", false)) {
      keys.push_back(ja::text(r, "shown_key"));
      t.header.push_back(ja::text(r, "words") + " [" + ja::text(r, "unit") + "]");
      t.numeric.push_back(true);
    }
  // Energy columns only where some run has energy (a sweep without RAPL says why elsewhere).
  bool energy = false;
  for (const auto& run : runs) energy = energy || ja::maybe(run, "energy_j").is_number();
  t.header.push_back("job time [s]");
  if (energy) t.header.insert(t.header.end(), {"energy [J]", "mean power [W]"});
  t.header.push_back("emulated");
  t.numeric.resize(t.header.size(), true);
  t.numeric.back() = false;  // emulated
  for (const auto& run : runs) {
    std::vector<std::string> row = {ja::text(run, "id"), ja::text(run, "label")};
    for (const auto& k : keys) {
      const json v = ja::maybe(run["rates"], k);
      row.push_back(v.is_number() ? fmt::format("{:.4g}", v.get<double>()) : "-");
    }
    row.push_back(fmt::format("{:.6g}", run.value("job_s", 0.0)));
    const json ej = ja::maybe(run, "energy_j"), w = ja::maybe(run, "mean_w");
    if (energy) row.push_back(ej.is_number() ? fmt::format("{:.6g}", ej.get<double>()) : "-");
    if (energy) row.push_back(w.is_number() ? fmt::format("{:.4g}", w.get<double>()) : "-");
    row.push_back(run.value("emulated", false) ? "EMULATED" : "no");
    t.rows.push_back(row);
  }
  return t;
}

Table journal_table(const json& view) {
  Table t;
  t.title = "Journal entries by kind";
  t.header = {"entry", "count"};
  t.numeric = {false, true};
  const json j = view.value("journal", json());
  if (j.is_object())
    for (const auto& [k, c] : j["entries"].items()) t.rows.push_back({k, c.dump()});
  return t;
}

}  // namespace hpcsens::report
