#include "model/dataset.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/safe_file.h"
#include "model/energy_dataset.h"
#include "model/knob_design.h"
#include "model/region_times.h"
#include "record/run_record.h"

namespace hpcsens::model {
namespace {

namespace fs = std::filesystem;

// Rates and times from a record's JSON: must be present, numeric, finite and positive (or zero
// where the range starts at 0: a network with nothing measured and nothing added).
double record_number(const nlohmann::json& obj, const char* key, const std::string& path,
                     const std::string& prefix, PlausibleRange range) {
  const std::string where = path + ": field '" + prefix + key + "'";
  if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) throw InputError(where, "missing");
  const auto& v = obj.at(key);
  if (!v.is_number()) throw InputError(where, "not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0 || (d == 0 && range.lo > 0))
    throw InputError(where, range.lo > 0 ? "must be a finite number greater than zero" : "must be a finite number >= 0");
  check_plausible(d, range, where);
  return d;
}

std::optional<double> optional_rate(const nlohmann::json& cfg, const char* key, const std::string& path) {
  if (!cfg.contains(key) || cfg.at(key).is_null()) return std::nullopt;
  return record_number(cfg, key, path, "config.", kCpuGhzRange);
}

std::string default_label(double cpu, double mem) {
  std::ostringstream s;
  s << "c" << cpu;
  if (std::isfinite(mem)) s << "-m" << mem;
  return s.str();
}

// Group key for records without a sweep point: hand-made runs at the same rates belong together.
std::string rate_group(const Observation& o) { return "rates " + default_label(o.cpu_ghz, o.mem_gbs); }

double spread(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double m = median(v);
  return m > 0 ? (*hi - *lo) / m : 0;
}

// Average core clock while the ranks ran, from the default counters: cycles over task-clock
// nanoseconds is GHz. The median over ranks with both events; none without a PMU.
std::optional<double> counter_clock_ghz(const record::RunRecord& r) {
  std::vector<double> ghz;
  for (const auto& rk : r.ranks) {
    const auto c = rk.counters.find("PAPI_TOT_CYC"), t = rk.counters.find("perf::TASK-CLOCK");
    if (c == rk.counters.end() || t == rk.counters.end() || !(c->second > 0) || !(t->second > 0)) continue;
    ghz.push_back(c->second / t->second);
  }
  if (ghz.empty()) return std::nullopt;
  const double m = median(ghz);
  if (!std::isfinite(m) || m < kCpuGhzRange.lo || m > kCpuGhzRange.hi) return std::nullopt;
  return m;
}

}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<double> times_of(const std::vector<Point>& points) {
  std::vector<double> t;
  for (const auto& p : points) t.push_back(p.time_s);
  return t;
}

void check_plausible(double v, PlausibleRange r, const std::string& where) {
  if (!std::isfinite(v)) throw InputError(where, "must be a finite number");
  if (v < r.lo || v > r.hi)
    throw InputError(where, fmt::format("{:g} is outside the plausible range {:g} to {:g}", v, r.lo, r.hi));
}

std::string application_of(const std::vector<std::string>& command) {
  std::string s;
  for (size_t i = 0; i < command.size(); ++i) {
    const std::string& w = command[i];
    if (w.rfind("--cpu-freq=", 0) == 0) continue;
    if (w == "--cpu-freq") {
      ++i;  // and its value
      continue;
    }
    s += (s.empty() ? "" : " ") + w;
  }
  return s;
}

Observation read_run_record_observation(const std::string& path) {
  return observation_of(record::load_run_record(path), path);
}

Observation observation_of(const record::RunRecord& r, const std::string& path) {
  Observation o;
  o.source = path;
  o.cpu_ghz = record_number(r.config, "cpu_ghz", path, "config.", kCpuGhzRange);
  // A sweep with calibration.stream off measured no memory bandwidth: NaN, and only models
  // without a memory term can be fitted (identifiability says so).
  o.mem_gbs = r.config.contains("mem_gbs") && !r.config.at("mem_gbs").is_null()
                  ? record_number(r.config, "mem_gbs", path, "config.", kMemGbsRange)
                  : NAN;
  if (r.config.contains("lat_ns") && !r.config.at("lat_ns").is_null())
    o.lat_ns = record_number(r.config, "lat_ns", path, "config.", kLatNsRange);
  for (auto [key, out, range] : {std::tuple{"net_latency_us", &o.net_latency_us, kNetLatencyUsRange},
                                 std::tuple{"net_ns_per_byte", &o.net_ns_per_byte, kNetNsPerByteRange}})
    if (r.config.contains(key) && !r.config.at(key).is_null()) *out = record_number(r.config, key, path, "config.", range);
  if (r.config.contains("label") && r.config.at("label").is_string())
    o.label = r.config.at("label").get<std::string>();
  if (o.label.empty()) o.label = default_label(o.cpu_ghz, o.mem_gbs);
  o.cpu_requested = optional_rate(r.config, "cpu_ghz_requested", path);
  o.cpu_set = optional_rate(r.config, "cpu_ghz_set", path);
  o.cpu_measured = optional_rate(r.config, "cpu_ghz_measured", path);
  if (r.config.contains("cpu_ghz_source") && r.config.at("cpu_ghz_source").is_string())
    o.cpu_source = r.config.at("cpu_ghz_source").get<std::string>();
  if (r.config.contains("node") && r.config.at("node").is_string()) o.node = r.config.at("node").get<std::string>();
  o.knobs = knob_setting_of(r.config);
  // Counters measure the clock the job actually ran at: preferred over a requested or nominal one.
  if (o.cpu_source != "measured" && o.cpu_source != "emulated")
    if (const auto c = counter_clock_ghz(r)) {
      o.cpu_measured = *c;
      o.cpu_ghz = *c;
      o.cpu_source = "counters";
    }
  const auto sp = r.config.contains("sweep_point") ? r.config.at("sweep_point") : nlohmann::json();
  if (sp.is_number_integer()) o.group = "point " + std::to_string(sp.get<long long>()) + " " + o.label;
  else if (!sp.is_null()) throw InputError(path + ": field 'config.sweep_point'", "not an integer");
  else o.group = rate_group(o);
  if (!std::isfinite(r.timing.job_s) || r.timing.job_s <= 0)
    throw InputError(path + ": field 'timing.job_s'", "must be a finite number greater than zero");
  check_plausible(r.timing.job_s, kTimeSRange, path + ": field 'timing.job_s'");
  o.time_s = r.timing.job_s;
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& rk = r.ranks[i];
    if (!std::isfinite(rk.wall_s) || rk.wall_s <= 0)
      throw InputError(path + ": field 'ranks[" + std::to_string(i) + "].wall_s'",
                       "must be a finite number greater than zero");
    check_plausible(rk.wall_s, kTimeSRange, path + ": field 'ranks[" + std::to_string(i) + "].wall_s'");
    o.rank_times[rk.rank] = rk.wall_s;
  }
  o.emulated = r.emulated;
  o.app = application_of(r.job.command);
  read_record_energy(r.config, r.extra, path, o);
  return o;
}

namespace {

struct Acc {
  std::vector<double> times, lats, cpus, mems, net_lats, net_bytes;
  int lat_missing = 0, net_missing = 0;
  std::map<int, std::vector<double>> ranks;
  std::string label;
  KnobSetting knobs;      // of its first run: a configuration's runs share their settings
  std::size_t index = 0;  // its point in the dataset
  std::vector<const Observation*> runs;
};

// A measured clock that disagrees with the one the knob set (else the one requested) means the
// knob did not do what was asked (Slurm without a cpufreq plugin, a VM): say so per configuration.
// The set clock is the fairer reference: a driver that rounds 2.45 to 2.4 GHz did what it could.
void check_clocks(const std::vector<Observation>& obs, Dataset& d) {
  std::set<std::string> said;
  d.clock_measured = !obs.empty();
  for (const auto& o : obs) {
    // The clock the fit uses is a measurement (not the request beside a measurement that disagrees).
    const bool measured = o.cpu_source == "measured" || o.cpu_source == "counters" || o.cpu_source == "emulated";
    d.clock_measured = d.clock_measured && measured;
    if (o.cpu_source == "requested" || (o.cpu_requested && !o.cpu_measured && o.cpu_source != "emulated"))
      ++d.requested_clock_runs;
    const auto& asked = o.cpu_set ? o.cpu_set : o.cpu_requested;
    if (!asked || !o.cpu_measured || said.count(o.label)) continue;
    const double rel = std::fabs(*o.cpu_measured - *asked) / *asked;
    if (rel <= kClockDisagreeWarn) continue;
    said.insert(o.label);
    d.clock_problems.push_back(fmt::format(
        "at '{}' the measured core clock was {:g} GHz but {:g} GHz was {} ({:.0f}% off): the frequency knob "
        "did not take effect as asked; the fit uses the {} clock",
        o.label, *o.cpu_measured, *asked, o.cpu_set ? "set" : "requested", 100 * rel,
        o.cpu_source == "measured"   ? "measured (calibration.clock)"
        : o.cpu_source == "counters" ? "measured (cycles / task-clock counters)"
                                     : "recorded (" + (o.cpu_source.empty() ? "unknown" : o.cpu_source) + ")"));
  }
}

}  // namespace

Dataset assemble(const std::vector<Observation>& obs) {
  std::map<std::string, Acc> acc;
  std::vector<std::string> order;
  Dataset d;
  for (const auto& o : obs) {
    const std::string k = o.group.empty() ? o.label : o.group;
    if (!acc.count(k)) order.push_back(k), acc[k].label = o.label, acc[k].knobs = o.knobs, acc[k].index = order.size() - 1;
    Acc& a = acc[k];
    a.runs.push_back(&o);
    if (o.node.empty()) ++d.runs_without_node;
    else if (std::isfinite(o.time_s)) d.node_runs.push_back({o.node, a.index, o.time_s});
    if (std::isfinite(o.time_s)) a.times.push_back(o.time_s);
    if (o.lat_ns) a.lats.push_back(*o.lat_ns); else ++a.lat_missing;
    if (o.net_latency_us && o.net_ns_per_byte) {
      a.net_lats.push_back(*o.net_latency_us);
      a.net_bytes.push_back(*o.net_ns_per_byte);
    } else {
      ++a.net_missing;
    }
    a.cpus.push_back(o.cpu_ghz), a.mems.push_back(o.mem_gbs);
    for (const auto& [r, t] : o.rank_times) a.ranks[r].push_back(t);
    d.emulated = d.emulated || o.emulated;
  }
  std::map<int, std::vector<double>> per_rank;  // rank -> per point
  for (size_t j = 0; j < order.size(); ++j) {
    const Acc& a = acc[order[j]];
    Point p;
    p.label = a.label;
    p.knobs = a.knobs;
    p.cpu_ghz = median(a.cpus);
    const bool mem_measured = std::all_of(a.mems.begin(), a.mems.end(), [](double m) { return std::isfinite(m); });
    p.mem_gbs = mem_measured ? median(a.mems) : NAN;
    for (const auto& [rate, v] : {std::pair<const char*, const std::vector<double>*>{"cpu_ghz", &a.cpus},
                                  {"mem_gbs", &a.mems}})
      if ((v != &a.mems || mem_measured) && spread(*v) > kRateSpreadWarn)
        d.warnings.push_back(fmt::format(
            "configuration '{}': the {} of its {} runs spread by {:.1f}% ({:g} to {:g}), above the {:.0f}% threshold; "
            "the median {:g} is used",
            p.label, rate, v->size(), 100 * spread(*v), *std::min_element(v->begin(), v->end()),
            *std::max_element(v->begin(), v->end()), 100 * kRateSpreadWarn, median(*v)));
    if (!a.lats.empty() && a.lat_missing == 0) p.lat_ns = median(a.lats);
    if (a.cpus.size() >= 2) p.cpu_spread = spread(a.cpus), p.mem_spread = mem_measured ? spread(a.mems) : NAN;
    if (p.lat_ns && a.lats.size() >= 2) p.lat_spread = spread(a.lats);
    if (!a.net_lats.empty() && a.net_missing == 0) {
      p.net_latency_us = median(a.net_lats), p.net_ns_per_byte = median(a.net_bytes);
      if (a.net_lats.size() >= 2) p.net_lat_spread = spread(a.net_lats), p.net_bw_spread = spread(a.net_bytes);
    }
    std::vector<double> rank_medians;
    for (const auto& [r, ts] : a.ranks) {
      const double m = median(ts);
      auto& row = per_rank[r];
      row.resize(order.size(), std::nan(""));
      row[j] = m;
      rank_medians.push_back(m);
    }
    if (!a.times.empty()) {
      p.time_s = median(a.times);
      p.min_s = *std::min_element(a.times.begin(), a.times.end());
      p.max_s = *std::max_element(a.times.begin(), a.times.end());
      p.reps = static_cast<int>(a.times.size());
    } else {
      // Only per-rank rows: the job lasts as long as its slowest rank.
      p.time_s = *std::max_element(rank_medians.begin(), rank_medians.end());
      p.min_s = p.max_s = p.time_s;
      size_t reps = 0;
      for (const auto& [r, ts] : a.ranks) reps = std::max(reps, ts.size());
      p.reps = static_cast<int>(reps);
    }
    combine_energy(a.runs, p);
    d.points.push_back(p);
  }
  for (auto& [r, row] : per_rank) {
    row.resize(order.size(), std::nan(""));
    d.ranks.push_back(r);
    d.rank_times.push_back(row);
  }
  check_clocks(obs, d);
  for (const auto& o : obs)
    if (!o.app.empty() && std::find(d.apps.begin(), d.apps.end(), o.app) == d.apps.end()) d.apps.push_back(o.app);
  if (!d.apps.empty()) d.app = d.apps.front();
  return d;
}

namespace {

// One application per model: two commands in one fit are almost always a mistake.
void check_one_application(const std::vector<Observation>& obs, const LoadOptions& opts, Dataset& d) {
  const Observation* first = nullptr;
  for (const auto& o : obs) {
    if (o.app.empty()) continue;
    if (!first) {
      first = &o;
      continue;
    }
    if (o.app == first->app) continue;
    const std::string both = fmt::format("'{}' ({}) and '{}' ({})", first->app, first->source, o.app, o.source);
    if (!opts.allow_mixed)
      throw InputError(o.source + ": application",
                       "the inputs are runs of two applications, " + both +
                           "; fit one application per model, or give --allow-mixed to fit them together");
    d.warnings.push_back("--allow-mixed: the model mixes runs of different applications, " + both);
    return;
  }
}

}  // namespace

namespace {

// A record's observation with opts.region's time as the run's time (nullopt: the record lacks
// the region); with opts.list_regions, the record's region names are added to `names`.
std::optional<Observation> region_observation(const std::string& path, const LoadOptions& opts,
                                              std::set<std::string>& names) {
  const std::string text = record::read_record_file(path);
  Observation o = observation_of(record::run_record_from_text(text, path), path);
  const nlohmann::json j = nlohmann::json::parse(text);  // already parsed strictly above
  if (opts.list_regions) names.merge(region_names(j));
  if (opts.region.empty()) return o;
  const auto rt = region_time(j, opts.region, path);
  if (!rt) return std::nullopt;
  o.time_s = rt->time_s;
  o.rank_times = rt->rank_times;
  return o;
}

// One line naming the region and the records lacking it (the first few, and how many).
[[noreturn]] void region_missing(const std::string& region, const std::vector<std::string>& lacking,
                                 std::size_t records) {
  std::string list;
  for (std::size_t i = 0; i < lacking.size() && i < 5; ++i) list += (i ? ", " : "") + lacking[i];
  if (lacking.size() > 5) list += fmt::format(" and {} more", lacking.size() - 5);
  throw InputError("--region " + region, fmt::format("region '{}' is missing from {} of {} run records: {}",
                                                     region, lacking.size(), records, list));
}

}  // namespace

Dataset load_dataset(const std::vector<std::string>& inputs, const LoadOptions& opts) {
  std::vector<Observation> obs;
  std::vector<std::string> sources, notes, lacking;
  std::set<std::string> regions;
  auto add_file = [&](const fs::path& p, bool from_dir) {
    const std::string s = p.string();
    if (p.extension() == ".csv") {
      if (!opts.region.empty())
        throw InputError(s, "--region " + opts.region + " needs run records: a CSV has no regions");
      auto rows = read_fit_csv(s);
      for (auto& r : rows) r.source = s;
      obs.insert(obs.end(), rows.begin(), rows.end());
      sources.push_back(s);
      return;
    }
    if (from_dir) {
      // Directories may also hold model files or other JSON: only run records are data.
      const nlohmann::json j = nlohmann::json::parse(safe_file::read_input_file(s, kMaxInputBytes), nullptr, false);
      // A `schema` that is there but not a string is a damaged file, not some other JSON: exit 2
      // naming it (j.value() would throw a type error, an internal error).
      if (j.is_object() && j.contains("schema") && !j.at("schema").is_string())
        throw InputError(s, "field 'schema' must be a string (\"" + std::string(record::kRunSchema) + "\" for a run record), not " +
                                std::string(j.at("schema").type_name()));
      if (j.is_discarded() || !j.is_object() || !j.contains("schema") || j.at("schema") != record::kRunSchema) {
        notes.push_back("skipped " + s + " (not a " + record::kRunSchema + " run record)");
        return;
      }
    }
    if (opts.region.empty() && !opts.list_regions) {
      obs.push_back(read_run_record_observation(s));
    } else if (auto o = region_observation(s, opts, regions)) {
      obs.push_back(std::move(*o));
    } else {
      lacking.push_back(s);
    }
    sources.push_back(s);
  };
  for (const auto& in : inputs) {
    std::error_code ec;
    const fs::path p(in);
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
      if (ec) throw InputError(in, "cannot list directory: " + ec.message());
      std::sort(files.begin(), files.end());  // deterministic order
      for (const auto& f : files) add_file(f, true);
    } else if (fs::exists(p, ec)) {
      add_file(p, false);
    } else {
      throw InputError(in, "cannot read: no such file or directory");
    }
  }
  if (!lacking.empty()) region_missing(opts.region, lacking, obs.size() + lacking.size());
  if (obs.empty()) throw InputError(inputs.empty() ? "fit" : inputs.front(), "no run records or CSV rows found");
  Dataset d = assemble(obs);
  d.regions.assign(regions.begin(), regions.end());
  check_one_application(obs, opts, d);
  d.sources = sources;
  d.notes = notes;
  return d;
}

}  // namespace hpcsens::model
