// `hpcsens predict`: thin layer over model::load_model -> model::predict -> render (text, md, csv,
// json; html: the page of that JSON), to stdout or -o FILE.
#include <fmt/core.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/usage.h"
#include "common/errors.h"
#include "model/dataset.h"
#include "model/energy_analysis.h"
#include "model/fit_output.h"
#include "model/model_json.h"
#include "model/mix.h"
#include "model/predict.h"
#include "report/html_page.h"
#include "report/html_report.h"

namespace hpcsens::cli {
namespace {

// CLI11's Range/PositiveNumber accept "nan" and print DBL_MAX in full; say what is wanted instead.
CLI::Validator rate_in(model::PlausibleRange r, const std::string& unit) {
  const std::string want = fmt::format("must be a positive finite number from {:g} to {:g} {}", r.lo, r.hi, unit);
  return CLI::Validator(
      [r, want](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool decimal = !text.empty() && end == text.c_str() + text.size() &&
                             text.find_first_of("xXnNiI") == std::string::npos;
        if (!decimal || !std::isfinite(v) || v < r.lo || v > r.hi) return want + " (got '" + text + "')";
        return "";
      },
      fmt::format("{:g}..{:g}", r.lo, r.hi), "RATE");
}

// The HTML page of a prediction or mix JSON, from that very JSON (the page never recomputes it).
std::string page_of(const std::string& json_text, bool mix, const std::string& source) {
  const auto j = nlohmann::json::parse(json_text);
  return report::html::document(mix ? report::mix_page(j, source) : report::prediction_page(j, source));
}

std::vector<model::SystemSpec> load_all_systems(const std::vector<std::string>& files) {
  std::vector<model::SystemSpec> systems;
  for (const auto& f : files) {
    auto s = model::load_systems(f);
    systems.insert(systems.end(), s.begin(), s.end());
  }
  model::check_unique_names(systems);
  return systems;
}

template <class Options>
std::string run_mix(const Options& o) {
  if (!o.model_path.empty()) throw InputError("predict", "--mix takes the models from the mix file; give no model");
  if (o.systems.empty()) throw InputError("predict", "--mix needs --system FILE.yaml with the candidate systems");
  if (o.cpu_ghz || o.mem_gbs || o.lat_ns || o.net_latency_us || o.net_bandwidth_gbs) throw InputError("predict", "--mix uses --system files, not --cpu-ghz/--mem-gbs");
  const model::Mix mix = model::load_mix(o.mix);
  const auto systems = load_all_systems(o.systems);
  std::optional<model::RankBy> by;
  if (!o.rank_by.empty()) by = model::parse_rank_by(o.rank_by);
  const model::MixResult r = model::evaluate_mix(mix, systems, by);
  if (o.format == "html") return page_of(model::render_mix(r, "json"), true, o.mix);
  return model::render_mix(r, o.format);
}

// The target of --cpu-ghz/--mem-gbs/...: only the rates given; predict() fills the rest from the
// model's baseline and refuses a missing rate the model has a term for, naming its option.
template <class Options>
model::SystemSpec option_target(const Options& o, const model::ModelReport& m) {
  if (o.lat_ns && !m.spec.has(model::Term::lat))
    fmt::print(stderr, "hpcsens predict: warning: --lat-ns ignored: model '{}' has no latency term\n", m.spec.name());
  model::SystemSpec sys;
  sys.name = o.name;
  sys.cpu_ghz = o.cpu_ghz.value_or(0);
  sys.mem_gbs = o.mem_gbs.value_or(0);
  sys.lat_ns = o.lat_ns;
  sys.net_latency_us = o.net_latency_us;
  sys.net_bandwidth_gbs = o.net_bandwidth_gbs;
  return sys;
}

template <class Options>
std::string run_model(const Options& o) {
  if (!o.rank_by.empty()) throw InputError("--rank-by", "goes with --mix (one model's candidates rank by time)");
  if (o.model_path.empty()) throw InputError("predict", "give a model JSON, or --mix MIX.yaml --system FILE.yaml");
  const bool rates = o.cpu_ghz || o.mem_gbs || o.lat_ns || o.net_latency_us || o.net_bandwidth_gbs;
  if (rates == !o.systems.empty())
    throw InputError("predict", "give either --system FILE.yaml ... or the target's rates (--cpu-ghz X --mem-gbs Y, "
                                "--net-latency-us U, ...: those the model has terms for)");
  const double max_slowdown = model::parse_max_slowdown(o.max_slowdown);
  model::ModelReport m = model::load_model(o.model_path);
  std::vector<model::SystemSpec> systems = load_all_systems(o.systems);
  if (rates) systems.push_back(option_target(o, m));
  std::vector<model::Prediction> preds;
  for (const auto& s : systems) preds.push_back(model::predict(m, s));
  model::rank_predictions(preds);
  m.energy = model::energy_with_candidates(m, preds, max_slowdown);
  if (o.format == "html") return page_of(model::render_predictions(m, preds, "json", o.model_path), false, o.model_path);
  return model::render_predictions(m, preds, o.format, o.model_path);
}

}  // namespace

void add_predict(CLI::App& app, Registry& reg) {
  struct Options {
    std::string model_path, format = "table", name = "target", mix, rank_by, out, max_slowdown = "5%";
    std::vector<std::string> systems;
    std::optional<double> cpu_ghz, mem_gbs, lat_ns, net_latency_us, net_bandwidth_gbs;
  };
  auto o = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "predict", "Project the run time of a fitted model onto other CPU/memory rates or candidate systems");
  sub->add_option("model", o->model_path, "model JSON written by `hpcsens fit -o` (not with --mix)");
  sub->add_option("--mix", o->mix, "workload mix YAML: applications with their model and node-hour weight");
  sub->add_option("--rank-by", o->rank_by,
                  "with --mix: speedup | throughput | per-price | per-watt (default: throughput when every system "
                  "gives nodes, else speedup)");
  sub->add_option("--system", o->systems,
                  "YAML file(s) with candidate systems: name and the rates each changes (cpu_ghz, mem_gbs, lat_ns, "
                  "net_latency_us, net_bandwidth_gbs; one left out takes the model's baseline value)");
  sub->add_option("--cpu-ghz", o->cpu_ghz, "CPU rate of the target")->check(rate_in(model::kCpuGhzRange, "GHz"));
  sub->add_option("--mem-gbs", o->mem_gbs, "sustained memory bandwidth (STREAM triad) of the target")
      ->check(rate_in(model::kMemGbsRange, "GB/s"));
  sub->add_option("--lat-ns", o->lat_ns, "memory latency of the target (models with a lat term)")
      ->check(rate_in(model::kLatNsRange, "ns"));
  sub->add_option("--net-latency-us", o->net_latency_us, "network latency per message of the target (network terms)")
      ->check(rate_in(model::kNetLatencyUsRange, "us"));
  sub->add_option("--net-bandwidth-gbs", o->net_bandwidth_gbs, "network bandwidth of the target (network terms)")
      ->check(rate_in(model::kNetBandwidthGbsRange, "GB/s"));
  sub->add_option("--name", o->name, "name of the --cpu-ghz/--mem-gbs target in the output")->capture_default_str();
  sub->add_option("--format", o->format, "table (or text) | md | csv | json | html (the page of the JSON)")
      ->capture_default_str()
      ->transform(format_in({"table", "md", "csv", "json", "html"}));
  sub->add_option("--max-slowdown", o->max_slowdown,
                  "energy: the lowest-energy configuration, measured or candidate, that runs at most this much "
                  "slower than the baseline, e.g. 5%")
      ->capture_default_str();
  sub->add_option("-o,--output", o->out, "write to this file instead of standard output");
  reg.add(sub, [o] {
    const std::string text = o->mix.empty() ? run_model(*o) : run_mix(*o);
    write_output(text, o->out, "predict");
    return 0;
  });
}

}  // namespace hpcsens::cli
