#include "sweep/spec/spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/text_escape.h"
#include "common/safe_file.h"
#include "sweep/spec/emulated_power_spec.h"
#include "sweep/spec/emulated_spec.h"
#include "sweep/spec/spec_reader.h"

namespace hpcsens::sweep {
namespace {

using spec_detail::Reader;
using spec_detail::emulated_realism_keys;
using spec_detail::parse_emulated_realism;

void parse_calibration(const Reader& r, const YAML::Node& n, Calibration& c) {
  const std::string f = "calibration";
  r.check_keys(n, f, {"stream", "stream_array_mb", "stream_ntimes", "ranks", "latency", "clock",
                      "launcher", "network"});
  if (n["stream"]) c.stream = r.boolean(n["stream"], f + ".stream");
  if (n["stream_array_mb"]) {
    const auto& v = n["stream_array_mb"];
    if (!(v.IsScalar() && v.Scalar() == "auto"))
      c.stream_array_mb = r.in_range(v, f + ".stream_array_mb", kMinArrayMb, kMaxArrayMb, "MB");
  }
  if (n["stream_ntimes"]) c.stream_ntimes = int(r.integer(n["stream_ntimes"], f + ".stream_ntimes", 2, kMaxStreamNtimes));
  if (n["ranks"]) {
    const auto& v = n["ranks"];
    if (!(v.IsScalar() && v.Scalar() == "job")) c.ranks = int(r.integer(v, f + ".ranks", 1, kMaxRanks));
  }
  if (n["latency"]) c.latency = r.boolean(n["latency"], f + ".latency");
  if (n["clock"]) c.clock = r.boolean(n["clock"], f + ".clock");
  if (n["network"]) c.network = r.boolean(n["network"], f + ".network");
  if (n["launcher"]) c.launcher = r.strings(n["launcher"], f + ".launcher");
}

void parse_emulation(const Reader& r, const YAML::Node& n, Emulation& e) {
  const std::string f = "emulated";
  std::set<std::string> keys = {"W_cpu", "W_mem", "T_io", "overlap", "noise_pct", "seed", "ranks", "mem_gbs", "power"};
  keys.insert(emulated_realism_keys().begin(), emulated_realism_keys().end());
  r.check_keys(n, f, keys);
  for (const char* k : {"W_cpu", "W_mem", "T_io"})
    if (!n[k]) r.fail(n, f + "." + k, "missing (the ground-truth model needs W_cpu, W_mem, T_io)");
  e.w_cpu = r.in_range(n["W_cpu"], f + ".W_cpu", 0, kMaxEmulatedWork, "giga-cycles");
  e.w_mem = r.in_range(n["W_mem"], f + ".W_mem", 0, kMaxEmulatedWork, "GB");
  e.t_io = r.in_range(n["T_io"], f + ".T_io", 0, kMaxEmulatedWork, "s");
  if (e.w_cpu + e.w_mem + e.t_io <= 0) r.fail(n, f, "W_cpu, W_mem and T_io are all zero");
  if (n["overlap"]) {
    e.overlap = r.num(n["overlap"], f + ".overlap");
    if (!(e.overlap >= 0 && e.overlap <= 1)) r.fail(n["overlap"], f + ".overlap", "must be within [0, 1]");
  }
  if (n["noise_pct"]) e.noise_pct = r.in_range(n["noise_pct"], f + ".noise_pct", 0, kMaxNoisePct, "percent");
  if (n["seed"]) e.seed = std::uint64_t(r.integer(n["seed"], f + ".seed", 0));
  if (n["ranks"]) e.ranks = int(r.integer(n["ranks"], f + ".ranks", 1, kMaxRanks));
  if (n["mem_gbs"]) e.mem_gbs = r.in_range(n["mem_gbs"], f + ".mem_gbs", kMinGbs, kMaxGbs, "GB/s");
  parse_emulated_realism(r, n, e.realism);
  if (n["power"]) e.power = spec_detail::parse_emulated_power(r, n["power"]);
}

void parse_memory(const Reader& r, const YAML::Node& list, std::vector<MemoryConfig>& out) {
  const std::string f = "knobs.memory";
  if (!list.IsSequence() || list.size() == 0)
    r.fail(list, f, "must be a non-empty list of memory configurations");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& n = list[i];
    const std::string fi = f + "[" + std::to_string(i) + "]";
    r.check_keys(n, fi, {"name", "slurm_partition", "slurm_constraint", "nodes", "manual",
                         "emulated_gbs"});
    MemoryConfig m;
    m.line = n.Mark().line + 1;
    if (!n["name"]) r.fail(n, fi + ".name", "missing");
    m.name = r.str(n["name"], fi + ".name");
    if (m.name.empty()) r.fail(n["name"], fi + ".name", "must not be empty");
    // The name labels the point in results.csv (unquoted), the progress lines and the tables.
    if (!text::is_valid_utf8(m.name) || m.name.size() > 128 ||
        std::any_of(m.name.begin(), m.name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ',' || c == '"'; }))
      r.fail(n["name"], fi + ".name", "must be at most 128 characters of UTF-8 text without control characters, "
                                      "commas or double quotes (it labels the point in results.csv), got '" +
                                      text::escape_for_message(m.name) + "'");
    if (!names.insert(m.name).second) r.fail(n["name"], fi + ".name", "duplicate name '" + m.name + "'");
    int ways = 0;
    if (n["slurm_partition"]) ++ways, m.slurm_partition = r.str(n["slurm_partition"], fi + ".slurm_partition");
    if (n["slurm_constraint"]) ++ways, m.slurm_constraint = r.str(n["slurm_constraint"], fi + ".slurm_constraint");
    if (n["nodes"]) ++ways, m.nodes = r.strings(n["nodes"], fi + ".nodes");
    if (n["manual"]) ++ways, m.manual = r.str(n["manual"], fi + ".manual");
    if (ways > 1)
      r.fail(n, fi, "give one way to reach it: slurm_partition, slurm_constraint, nodes or manual");
    if (n["emulated_gbs"]) m.emulated_gbs = r.in_range(n["emulated_gbs"], fi + ".emulated_gbs", kMinGbs, kMaxGbs, "GB/s");
    out.push_back(std::move(m));
  }
}

// Index of an earlier value that is the same setting, or -1. Looked up by kHz and by label,
// so a list of many thousand values is checked in O(n log n), not O(n^2).
class SeenSettings {
 public:
  long find_or_add(double min_ghz, double max_ghz, std::size_t index) {
    const auto khz = std::make_pair(std::llround(min_ghz * 1e6), std::llround(max_ghz * 1e6));
    const std::string label = text(min_ghz) + "/" + text(max_ghz);
    if (auto it = by_khz_.find(khz); it != by_khz_.end()) return long(it->second);
    if (auto it = by_label_.find(label); it != by_label_.end()) return long(it->second);
    by_khz_.emplace(khz, index);
    by_label_.emplace(label, index);
    return -1;
  }

 private:
  static std::string text(double v) {
    char s[32];
    std::snprintf(s, sizeof s, "%g", v);
    return s;
  }
  std::map<std::pair<long long, long long>, std::size_t> by_khz_;
  std::map<std::string, std::size_t> by_label_;
};

std::vector<double> ghz_list(const Reader& r, const YAML::Node& n, const std::string& f) {
  if (!n.IsSequence() || n.size() == 0) r.fail(n, f, "must be a non-empty list of GHz values or \"all\"");
  if (n.size() > kMaxTotalRuns)
    r.fail(n, f, "has " + std::to_string(n.size()) + " values, more than the limit of " + std::to_string(kMaxTotalRuns) + " runs");
  std::vector<double> out;
  SeenSettings seen;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string fi = f + "[" + std::to_string(i) + "]";
    const double v = r.in_range(n[i], fi, kMinGhz, kMaxGhz, "GHz");
    if (const long k = seen.find_or_add(v, v, i); k >= 0)
      r.fail(n[i], fi, "duplicate value " + n[i].Scalar() + " (same as " + f + "[" + std::to_string(k) +
                           "]); each point must differ");
    out.push_back(v);
  }
  return out;
}

void parse_knobs(const Reader& r, const YAML::Node& n, SweepSpec& s) {
  const std::string f = "knobs";
  r.check_keys(n, f, {"cpu_ghz", "cpu_backend", "uncore_ghz", "memory", "turbo", "cpu_rounding", "uncore_domains",
                      "memory_backend", "mem_bw", "network"});
  auto choice = [&](const char* key, const char* yes, const char* no, bool* out) {
    if (!n[key]) return;
    const auto v = r.str(n[key], f + "." + key);
    if (v != yes && v != no) r.fail(n[key], f + "." + key, std::string("must be ") + no + " or " + yes + ", got '" + v + "'");
    *out = v == yes;
  };
  choice("turbo", "on", "off", &s.turbo);
  if (n["turbo"]) s.turbo_line = n["turbo"].Mark().line + 1;
  bool refuse = false;
  choice("cpu_rounding", "refuse", "table", &refuse);
  s.cpu_round_to_table = !refuse;
  choice("uncore_domains", "all", "compute", &s.uncore_all_domains);
  if (n["cpu_ghz"]) {
    const auto& v = n["cpu_ghz"];
    if (v.IsScalar() && v.Scalar() == "all")
      s.cpu_all_available = true;
    else
      s.cpu_ghz = ghz_list(r, v, f + ".cpu_ghz");
    s.cpu_ghz_line = v.Mark().line + 1;
  }
  if (n["cpu_backend"]) {
    const auto b = r.str(n["cpu_backend"], f + ".cpu_backend");
    if (b == "cpufreq") s.cpu_backend = CpuBackend::kCpufreq;
    else if (b == "slurm") s.cpu_backend = CpuBackend::kSlurm;
    else if (b == "likwid") s.cpu_backend = CpuBackend::kLikwid;
    else r.fail(n["cpu_backend"], f + ".cpu_backend", "must be cpufreq, slurm or likwid, got '" + b + "'");
  }
  if (n["uncore_ghz"]) {
    const auto& v = n["uncore_ghz"];
    const std::string fu = f + ".uncore_ghz";
    s.uncore_line = v.Mark().line + 1;
    if (!v.IsSequence() || v.size() == 0) r.fail(v, fu, "must be a non-empty list (GHz, or {min, max})");
    if (v.size() > kMaxTotalRuns)
      r.fail(v, fu, "has " + std::to_string(v.size()) + " values, more than the limit of " + std::to_string(kMaxTotalRuns) + " runs");
    SeenSettings seen;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string fi = fu + "[" + std::to_string(i) + "]";
      UncoreSetting u;
      if (v[i].IsMap()) {
        r.check_keys(v[i], fi, {"min", "max"});
        if (!v[i]["min"] || !v[i]["max"]) r.fail(v[i], fi, "needs both min and max");
        u.min_ghz = r.in_range(v[i]["min"], fi + ".min", kMinGhz, kMaxGhz, "GHz");
        u.max_ghz = r.in_range(v[i]["max"], fi + ".max", kMinGhz, kMaxGhz, "GHz");
        if (u.min_ghz > u.max_ghz) r.fail(v[i], fi, "min is above max");
      } else {
        u.min_ghz = u.max_ghz = r.in_range(v[i], fi, kMinGhz, kMaxGhz, "GHz");
      }
      if (const long k = seen.find_or_add(u.min_ghz, u.max_ghz, i); k >= 0)
        r.fail(v[i], fi, "duplicate setting (same as " + fu + "[" + std::to_string(k) + "]); each point must differ");
      s.uncore.push_back(u);
    }
  }
  if (n["memory"]) parse_memory(r, n["memory"], s.memory);
  spec_detail::parse_memory_backend(r, n, s);
  if (n["network"]) spec_detail::parse_network(r, n["network"], s.network);
}

}  // namespace

SweepSpec parse_spec_text(const std::string& text, const std::string& source) {
  Reader r(source);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    r.fail_at(e.mark.line + 1, "", "not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) r.fail_at(1, "", "the spec must be a YAML mapping (job:, knobs:, ...)");
  r.check_keys(root, "", {"job", "repetitions", "order", "seed", "retries", "output", "knobs",
                          "backends", "calibration", "emulated", "events", "execution",
                          "array_max_running", "sbatch"});
  SweepSpec s;
  s.source = source;

  if (root["emulated"]) {
    s.emulation.emplace();
    parse_emulation(r, root["emulated"], *s.emulation);
  }
  const auto job = root["job"];
  if (!job) {
    if (!s.emulation) r.fail_at(1, "job", "missing (job.command is the command to sweep)");
  } else {
    r.check_keys(job, "job", {"command", "timeout_s"});
    if (job["command"]) s.command = r.strings(job["command"], "job.command");
    else if (!s.emulation) r.fail(job, "job.command", "missing");
    if (job["timeout_s"]) s.timeout_s = r.non_negative(job["timeout_s"], "job.timeout_s");
  }
  if (root["repetitions"]) s.repetitions = int(r.integer(root["repetitions"], "repetitions", 1, kMaxRepetitions));
  if (root["order"]) {
    const auto o = r.str(root["order"], "order");
    if (o == "random" || o == "randomized") s.randomized = true;
    else if (o == "sequential") s.randomized = false;
    else r.fail(root["order"], "order", "must be random or sequential, got '" + o + "'");
  }
  if (root["seed"]) s.seed = std::uint64_t(r.integer(root["seed"], "seed", 0));
  if (root["retries"]) s.retries = int(r.integer(root["retries"], "retries", 0, kMaxRetries));
  if (root["output"]) {
    s.output_dir = r.str(root["output"], "output");
    if (s.output_dir.empty()) r.fail(root["output"], "output", "must not be empty (name the sweep's output directory)");
  }
  if (root["events"]) s.events = r.str(root["events"], "events");
  if (root["knobs"]) parse_knobs(r, root["knobs"], s);
  if (root["backends"]) {
    r.check_keys(root["backends"], "backends", {"sysfs_root", "resctrl_root"});
    if (root["backends"]["sysfs_root"])
      s.sysfs_root = r.str(root["backends"]["sysfs_root"], "backends.sysfs_root");
    if (root["backends"]["resctrl_root"])
      s.resctrl_root = r.str(root["backends"]["resctrl_root"], "backends.resctrl_root");
  }
  if (root["calibration"]) parse_calibration(r, root["calibration"], s.calibration);

  // Cross-field rules.
  {
    const std::size_t points = std::max<std::size_t>(1, s.cpu_ghz.size()) * std::max<std::size_t>(1, s.mem_bw.size()) *
                               std::max<std::size_t>(1, s.uncore.size()) *
                               std::max<std::size_t>(1, s.memory.size()) *
                               std::max<std::size_t>(1, s.network.size());
    if (points * std::size_t(s.repetitions) > kMaxTotalRuns)
      r.fail(root["repetitions"] ? root["repetitions"] : root["knobs"], "repetitions",
             std::to_string(points) + " points x " + std::to_string(s.repetitions) + " repetitions = " +
                 std::to_string(points * std::size_t(s.repetitions)) + " runs, more than the limit of " +
                 std::to_string(kMaxTotalRuns));
  }
  if (s.cpu_backend == CpuBackend::kSlurm) {
    if (s.command.empty() || s.command[0].find("srun") == std::string::npos)
      r.fail(root["knobs"]["cpu_backend"], "knobs.cpu_backend",
             "slurm sets --cpu-freq on the job's srun line, but job.command does not start with srun");
  }
  for (const auto& m : s.memory) {
    if ((!m.slurm_partition.empty() || !m.slurm_constraint.empty()) &&
        (s.command.empty() || s.command[0].find("srun") == std::string::npos) && !s.emulation)
      r.fail_at(m.line, "knobs.memory", "'" + m.name +
                "' is reached through a Slurm partition/constraint, which needs job.command to start with srun");
  }
  if (s.emulation) {
    if (s.cpu_ghz.empty())
      r.fail(root["knobs"] ? root["knobs"] : root["emulated"], "knobs.cpu_ghz",
             "the emulated launcher needs an explicit list of GHz values");
    if (!s.uncore.empty())
      r.fail(root["knobs"]["uncore_ghz"], "knobs.uncore_ghz", "is not supported by the emulated launcher");
    if (!s.network.empty())
      r.fail(root["knobs"]["network"], "knobs.network",
             "is not supported by the emulated launcher (the delay is real: run the job)");
    if (s.memory.empty() && !s.emulation->mem_gbs)
      r.fail(root["emulated"], "emulated.mem_gbs",
             "missing: give emulated.mem_gbs or memory configurations with emulated_gbs");
    for (std::size_t i = 0; i < s.memory.size(); ++i)
      if (!s.memory[i].emulated_gbs)
        r.fail_at(s.memory[i].line, "knobs.memory[" + std::to_string(i) + "].emulated_gbs",
                  "missing (the emulated launcher needs each configuration's bandwidth)");
  }
  spec_detail::resolve_emulated_power(r, root, s);
  spec_detail::parse_execution(r, root, s);
  spec_detail::check_resctrl_spec(r, root, s);
  spec_detail::check_knob_roots(r, root, s);
  return s;
}

SweepSpec parse_spec_file(const std::string& path) {
  // A spec is a small regular file: /dev/zero or a FIFO must not be read forever.
  return parse_spec_text(safe_file::read_input_file(path, kMaxSpecBytes), path);
}

}  // namespace hpcsens::sweep
