// The HTML page of a sweep directory: its runs (records/), what the journal says happened, and
// the model the sweep's fit wrote (model.json), all on one page.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/errors.h"
#include "common/safe_file.h"
#include "model/analysis.h"
#include "model/dataset.h"
#include "model/model_json.h"
#include "report/headline.h"
#include "report/html_page.h"
#include "report/html_report.h"
#include "report/html_sections.h"
#include "report/record_reader.h"

namespace hpcsens::report {
namespace {

namespace fs = std::filesystem;
using html::json;

struct Run {
  std::string id, label;
  double cpu_ghz = 0, mem_gbs = 0, job_s = 0;
  bool emulated = false;
};

double config_number(const record::RunRecord& rec, const char* key) {
  return rec.config.contains(key) && rec.config[key].is_number() ? rec.config[key].get<double>() : 0.0;
}

std::vector<Run> read_runs(const fs::path& dir) {
  std::vector<Run> runs;
  const fs::path records = dir / "records";
  if (!fs::is_directory(records)) return runs;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(records))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const auto rec = read_run_record(f.string());  // InputError names the file and field
    Run r;
    r.id = f.stem().string();
    r.label = rec.config.contains("label") && rec.config["label"].is_string() ? rec.config["label"].get<std::string>() : r.id;
    r.cpu_ghz = config_number(rec, "cpu_ghz");
    r.mem_gbs = config_number(rec, "mem_gbs");
    r.job_s = rec.timing.job_s;
    r.emulated = rec.emulated;
    runs.push_back(r);
  }
  return runs;
}

json runs_section(const std::vector<Run>& runs) {
  json s = html::section("Runs");
  if (runs.empty()) {
    s["text"].push_back("No run records in records/ yet.");
    return s;
  }
  std::map<double, json> by_mem;  // one series per memory rate: time against the CPU rate
  Table t;
  t.title = fmt::format("{} runs", runs.size());
  t.header = {"run", "label", "cpu [GHz]", "mem [GB/s]", "job time [s]", "emulated"};
  t.numeric = {false, false, true, true, true, false};
  for (const auto& r : runs) {
    by_mem[r.mem_gbs].push_back({{"x", r.cpu_ghz}, {"y", r.job_s}, {"label", r.id}});
    t.rows.push_back({r.id, r.label, fmt::format("{:.4g}", r.cpu_ghz), fmt::format("{:.4g}", r.mem_gbs),
                      fmt::format("{:.6g}", r.job_s), r.emulated ? "EMULATED" : "no"});
  }
  std::vector<json> series;
  for (auto& [mem, pts] : by_mem) series.push_back(html::series(fmt::format("{:g} GB/s", mem), pts));
  s["charts"].push_back(html::xy_chart("Run time of every run against the CPU rate, per memory bandwidth",
                                       "CPU rate R_cpu [GHz]", "job time [s]", series));
  s["tables"].push_back(html::table_json(t));
  return s;
}

json journal_section(const fs::path& dir) {
  json s = html::section("Journal");
  const fs::path path = dir / "journal.jsonl";
  if (!fs::exists(path)) {
    s["text"].push_back("No journal.jsonl in this directory.");
    return s;
  }
  std::istringstream in(safe_file::read_input_file(path.string()));
  std::map<std::string, int> kinds;
  std::vector<std::string> notable;
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
    ++kinds[kind];
    const std::string status = e.contains("status") && e["status"].is_string() ? e["status"].get<std::string>() : "";
    if (kind == "lost" || kind == "stopped" || kind == "skipped" || status == "failed" ||
        (kind == "restored" && e.contains("errors") && !e["errors"].empty()))
      notable.push_back(fmt::format("line {}: {}", n, e.dump(-1, ' ', false, json::error_handler_t::replace)));
  }
  Table t;
  t.title = "Journal entries by kind";
  t.header = {"entry", "count"};
  t.numeric = {false, true};
  for (const auto& [k, c] : kinds) t.rows.push_back({k, std::to_string(c)});
  s["tables"].push_back(html::table_json(t));
  const bool finished = kinds.count("finished") > 0, restored = kinds.count("restored") > 0;
  s["text"].push_back(std::string(finished ? "The sweep finished." : "The sweep has no 'finished' entry (still "
                                                                     "running, stopped or interrupted).") +
                      (restored ? " Knobs were restored." : ""));
  for (std::size_t i = 0; i < notable.size() && i < 50; ++i) s["warnings"].push_back(notable[i]);
  return s;
}

// The sweep's model: model.json when the sweep's fit wrote one, else fitted now with the
// defaults of `hpcsens fit` (the page says so, with the command that keeps it). `how` says which.
json sweep_model(const fs::path& dir, const std::string& dir_text, std::string& how) {
  const fs::path model_path = dir / "model.json";
  if (fs::exists(model_path)) {
    const json model = json::parse(safe_file::read_input_file(model_path.string()), nullptr, false);
    if (model.is_discarded() || !model.is_object()) throw InputError(model_path.string(), "is not a JSON object");
    how = "The model below is " + model_path.string() + ", written by the sweep's fit.";
    return model;
  }
  const std::string records = (dir / "records").string();
  const std::string keep = "hpcsens fit " + records + " -o " + model_path.string();
  try {
    const model::Dataset data = model::load_dataset({records}, model::LoadOptions{});
    json model = model::to_json(model::analyze(data, model::AnalyzeOptions{}));
    how = "No model.json in " + dir_text + ": the model below was fitted now with the defaults of hpcsens fit "
          "(--model auto). To keep it: " + keep;
    return model;
  } catch (const InputError& e) {
    how = std::string("No model.json, and the runs cannot be fitted yet: ") + e.what() + ". When they can: " + keep;
    return json();
  }
}

}  // namespace

json sweep_page(const std::string& dir_text) {
  const fs::path dir(dir_text);
  if (!fs::exists(dir / "journal.jsonl") && !fs::exists(dir / "records") && !fs::exists(dir / "model.json"))
    throw InputError(dir_text, "is not a sweep directory (no journal.jsonl, records/ or model.json)");
  const auto runs = read_runs(dir);
  bool emulated = std::any_of(runs.begin(), runs.end(), [](const Run& r) { return r.emulated; });
  std::string how;
  const json model = sweep_model(dir, dir_text, how);
  json sections = json::array();
  json page = {{"title", "hpcsens sweep: " + dir_text},
               {"notes", {fmt::format("{} runs, the journal and the model of this sweep.", runs.size()), how}}};
  if (model.is_object()) {
    emulated = emulated || model.value("emulated", false);
    page["answer"] = html::answer(model_answer(model));
    page["notes"].push_back(formula_note(model));
    for (auto& s : model_sections(model, (dir / "model.json").string())) sections.push_back(std::move(s));
  }
  sections.push_back(runs_section(runs));
  sections.push_back(journal_section(dir));
  page["emulated"] = emulated;
  page["sections"] = sections;
  return page;
}

}  // namespace hpcsens::report
