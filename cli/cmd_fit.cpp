// `hpcsens fit`: thin layer over model::load_dataset -> model::analyze -> render/write.
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/commands.h"
#include "cli/usage.h"
#include "common/errors.h"
#include "common/text_terminal.h"
#include "model/analysis.h"
#include "model/fit_output.h"
#include "model/model_json.h"
#include "record/run_record.h"

namespace hpcsens::cli {
namespace {

// CLI11's Range accepts "nan" and words its message oddly; say what is wanted instead.
CLI::Validator slack_in(double lo, double hi) {
  const std::string want = fmt::format("must be a number from {:g} to {:g}", lo, hi);
  return CLI::Validator(
      [lo, hi, want](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool decimal = !text.empty() && end == text.c_str() + text.size() &&
                             text.find_first_of("xXnNiI") == std::string::npos;
        if (!decimal || !std::isfinite(v) || v < lo || v > hi) return want + " (got '" + text + "')";
        return "";
      },
      fmt::format("{:g}..{:g}", lo, hi), "SLACK");
}

// The model of one region ("" : the whole job) over the same inputs.
model::ModelReport fit_region(const std::vector<std::string>& inputs, model::LoadOptions lo,
                              const model::AnalyzeOptions& opts, const std::string& region,
                              std::vector<std::string>* notes = nullptr) {
  lo.region = region;
  const model::Dataset data = model::load_dataset(inputs, lo);
  if (notes) *notes = data.notes;
  model::ModelReport rep = model::analyze(data, opts);
  rep.region = region;
  return rep;
}

// --region all: the whole job, then one model per region the records name. JSON: an array of
// models (the job's with "region": null); CSV: one table, the job's rows with an empty region.
std::string render_all_regions(const std::vector<std::string>& inputs, model::LoadOptions lo,
                               const model::AnalyzeOptions& opts, const std::string& format,
                               const std::string& table) {
  lo.list_regions = true;
  const model::Dataset job = model::load_dataset(inputs, lo);
  lo.list_regions = false;
  if (job.regions.empty()) throw InputError("--region all", "the run records name no regions");
  std::vector<model::ModelReport> reps{model::analyze(job, opts)};
  for (const auto& r : job.regions) reps.push_back(fit_region(inputs, lo, opts, r));
  std::string out;
  nlohmann::json all = nlohmann::json::array();
  for (std::size_t i = 0; i < reps.size(); ++i) {
    if (format == "json") {
      nlohmann::json j = model::to_json(reps[i]);
      if (i == 0) j["region"] = nullptr;
      all.push_back(std::move(j));
    } else if (format == "csv") {
      std::string t = model::render_fit(reps[i], format, table);
      if (i == 0) {  // the job's rows: an empty region cell, under the others' header
        t = model::with_region_column(t, "-");
        for (std::size_t at = t.find("\n-,"); at != std::string::npos; at = t.find("\n-,", at + 1))
          t.erase(at + 1, 1);
      }
      if (i > 0) t = t.substr(t.find('\n') + 1);        // one header for the whole table
      out += t;
    } else {
      out += (i == 0 ? "== whole job ==\n" : "\n== region " + reps[i].region + " ==\n") +
             model::render_fit(reps[i], format, table);
    }
  }
  return format == "json" ? all.dump(2) + "\n" : out;
}

}  // namespace

void add_fit(CLI::App& app, Registry& reg) {
  struct Options {
    std::vector<std::string> inputs;
    std::string model = "auto", robust = "none", out, format = "table", table = "points";
    std::string region, baseline, max_slowdown = "5%";
    bool per_rank = false, allow_mixed = false;
    double slack = model::kDefaultBoundsSlack;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "fit", "Fit T = W_cpu/R_cpu + W_mem/R_mem [+ T_io] [+ W_lat L] (or, for one-rate sweeps, W/R + T_fixed) to run "
             "records or CSV, with diagnostics, a verdict and overlap bounds");
  sub->add_option("inputs", o->inputs, "run record files, directories of them (recursive), or CSV files")
      ->required();
  std::vector<std::string> models = model::model_names();
  models.push_back("auto");
  sub->add_option("--model", o->model,
                  "cpu+mem | cpu+mem+io | cpu+mem+lat | cpu+mem+io+lat | overlap | cpu+fixed | mem+fixed | auto")
      ->capture_default_str()
      ->check(CLI::IsMember(models));
  sub->add_flag("--allow-mixed", o->allow_mixed, "fit runs of different applications (commands) as one model");
  sub->add_option("--region", o->region,
                  "fit a named region's time (hpcsens_region_begin/_end, pcontrol:LEVEL) instead of "
                  "the job's; 'all': the job and every region");
  sub->add_option("--baseline", o->baseline,
                  "state sensitivities and speed-ups at the configuration of this label (default: the highest set "
                  "clock, fastest network setting, highest memory setting)");
  sub->add_option("--max-slowdown", o->max_slowdown,
                  "energy: the lowest-energy configuration that runs at most this much slower than the baseline "
                  "(EAR's min_energy_to_solution), e.g. 5%")
      ->capture_default_str();
  sub->add_flag("--per-rank", o->per_rank, "also fit every rank's own time and group ranks that behave alike");
  sub->add_option("--robust", o->robust, "robust loss for outlier runs: none | huber | cauchy")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "huber", "cauchy"}));
  sub->add_option("--bounds-slack", o->slack, "relative noise allowed on each time in the overlap bounds")
      ->capture_default_str()
      ->check(slack_in(0.0, 0.5));
  sub->add_option("-o,--output", o->out, "write the model JSON (hpcsens.model.v1) to this file");
  sub->add_option("--format", o->format, "stdout format: table (or text) | json | csv | md")
      ->capture_default_str()
      ->transform(format_in({"table", "json", "csv", "md"}));
  sub->add_option("--table", o->table, "with --format csv: points | terms | ranks | rates (one tidy table per call)")
      ->capture_default_str()
      ->check(CLI::IsMember({"points", "terms", "ranks", "rates"}));
  reg.add(sub, [o] {
    if (o->format != "csv" && o->table != "points")
      throw InputError("--table", "goes with --format csv");
    model::LoadOptions lo;
    lo.allow_mixed = o->allow_mixed;
    model::AnalyzeOptions opts;
    opts.model = o->model;
    opts.per_rank = o->per_rank;
    opts.baseline = o->baseline;
    opts.max_slowdown = model::parse_max_slowdown(o->max_slowdown);
    opts.bounds_slack = o->slack;
    opts.fit.robust = model::parse_robust(o->robust);
    if (o->region == "all") {
      if (!o->out.empty()) throw InputError("--output", "goes with one --region NAME, not 'all'");
      fmt::print("{}", text::escape_for_terminal(render_all_regions(o->inputs, lo, opts, o->format, o->table)));
      return 0;
    }
    std::vector<std::string> notes;
    const model::ModelReport rep = fit_region(o->inputs, lo, opts, o->region, &notes);
    // Render before writing so a bad --table leaves no model file behind.
    const std::string text = model::render_fit(rep, o->format, o->table);
    for (const auto& n : notes) fmt::print(stderr, "hpcsens fit: {}\n", text::escape_for_message(n));
    if (!o->out.empty()) {
      std::string err;
      if (!record::write_json_atomic(o->out, model::to_json(rep), &err))
        throw InputError(o->out, "cannot write the model: " + err);
      fmt::print(stderr, "hpcsens fit: model written to {}{}\n", o->out, rep.emulated ? " (EMULATED)" : "");
    }
    fmt::print("{}", text::escape_for_terminal(text));  // labels and names come from input files
    // The points table is one row per configuration; say where the per-rank results are instead.
    if (o->format == "csv" && rep.has_per_rank && o->table != "ranks")
      fmt::print(stderr, "hpcsens fit: per-rank shares are in --table ranks (or --format json, -o FILE)\n");
    if (rep.verdict.word != "ok")
      fmt::print(stderr, "hpcsens fit: verdict {}: {}\n", rep.verdict.word,
                 rep.verdict.reasons.empty() ? std::string() : rep.verdict.reasons.front());
    return 0;
  });
}

}  // namespace hpcsens::cli
