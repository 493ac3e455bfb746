// `hpcsens predict`: thin layer over model::load_model -> model::predict -> render.
#include <fmt/core.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/usage.h"
#include "common/errors.h"
#include "common/text_terminal.h"
#include "model/dataset.h"
#include "model/fit_output.h"
#include "model/model_json.h"
#include "model/mix.h"
#include "model/predict.h"

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

template <class Options>
int run_mix(const Options& o) {
  if (!o.model_path.empty()) throw InputError("predict", "--mix takes the models from the mix file; give no model");
  if (o.systems.empty()) throw InputError("predict", "--mix needs --system FILE.yaml with the candidate systems");
  if (o.cpu_ghz || o.mem_gbs || o.lat_ns || o.net_latency_us || o.net_bandwidth_gbs) throw InputError("predict", "--mix uses --system files, not --cpu-ghz/--mem-gbs");
  const model::Mix mix = model::load_mix(o.mix);
  std::vector<model::SystemSpec> systems;
  for (const auto& f : o.systems) {
    auto s = model::load_systems(f);
    systems.insert(systems.end(), s.begin(), s.end());
  }
  model::check_unique_names(systems);
  std::optional<model::RankBy> by;
  if (!o.rank_by.empty()) by = model::parse_rank_by(o.rank_by);
  const model::MixResult r = model::evaluate_mix(mix, systems, by);
  fmt::print("{}", text::escape_for_terminal(model::render_mix(r, o.format)));  // names from input files
  return 0;
}

}  // namespace

void add_predict(CLI::App& app, Registry& reg) {
  struct Options {
    std::string model_path, format = "table", name = "target", mix, rank_by;
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
  sub->add_option("--system", o->systems, "YAML file(s) with candidate systems: name, cpu_ghz, mem_gbs[, lat_ns]");
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
  sub->add_option("--format", o->format, "table (or text) | json (and csv with --mix)")
      ->capture_default_str()
      ->transform(format_in({"table", "json", "csv"}));
  reg.add(sub, [o] {
    if (!o->mix.empty()) return run_mix(*o);
    if (!o->rank_by.empty()) throw InputError("--rank-by", "goes with --mix (one model's candidates rank by time)");
    if (o->model_path.empty()) throw InputError("predict", "give a model JSON, or --mix MIX.yaml --system FILE.yaml");
    const bool rates = o->cpu_ghz || o->mem_gbs || o->lat_ns || o->net_latency_us || o->net_bandwidth_gbs;
    if (rates == !o->systems.empty())
      throw InputError("predict", "give either --system FILE.yaml ... or --cpu-ghz X --mem-gbs Y");
    const model::ModelReport m = model::load_model(o->model_path);
    // A one-rate model needs only its rate; the other one is held at the sweep's value.
    const model::Rate one = model::one_rate_of(m.spec);
    if (rates && !o->mem_gbs && one == model::Rate::cpu_ghz) o->mem_gbs = model::held_rate(m, model::Rate::mem_gbs);
    if (rates && !o->cpu_ghz && one == model::Rate::mem_gbs) o->cpu_ghz = model::held_rate(m, model::Rate::cpu_ghz);
    // A model of the network alone holds the node as swept.
    if (rates && !m.spec.has(model::Term::cpu) && !m.spec.has(model::Term::mem)) {
      if (!o->cpu_ghz) o->cpu_ghz = model::held_rate(m, model::Rate::cpu_ghz);
      if (!o->mem_gbs) o->mem_gbs = model::held_rate(m, model::Rate::mem_gbs);
    }
    if (rates && !(o->cpu_ghz && o->mem_gbs)) throw InputError("predict", "--cpu-ghz and --mem-gbs go together");
    std::vector<model::SystemSpec> systems;
    for (const auto& f : o->systems) {
      auto s = model::load_systems(f);
      systems.insert(systems.end(), s.begin(), s.end());
    }
    model::check_unique_names(systems);
    if (o->format == "csv") throw InputError("--format", "csv goes with --mix (use table or json for one model)");
    if (rates) {
      if (o->lat_ns && !m.spec.has(model::Term::lat))
        fmt::print(stderr, "hpcsens predict: warning: --lat-ns ignored: model '{}' has no latency term\n",
                   m.spec.name());
      model::SystemSpec sys;
      sys.name = o->name;
      sys.cpu_ghz = *o->cpu_ghz;
      sys.mem_gbs = *o->mem_gbs;
      sys.lat_ns = o->lat_ns;
      sys.net_latency_us = o->net_latency_us;
      sys.net_bandwidth_gbs = o->net_bandwidth_gbs;
      systems.push_back(sys);
    }
    std::vector<model::Prediction> preds;
    for (const auto& s : systems) preds.push_back(model::predict(m, s));
    model::rank_predictions(preds);
    fmt::print("{}", text::escape_for_terminal(model::render_predictions(m, preds, o->format)));
    return 0;
  });
}

}  // namespace hpcsens::cli
