#include "sweep/spec/sweep_common.h"

#include <cstdlib>

#include <chrono>
#include <ctime>
#include <filesystem>

#include <fmt/core.h>

#include "record/run_record.h"

namespace hpcsens::sweep {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char utc[32];
  std::strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return utc;
}

double monotonic_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string num(double v) { return fmt::format("{:g}", v); }

nlohmann::json point_json(const Point& p, const SweepSpec& spec) {
  nlohmann::json j = {{"point", p.index}, {"label", p.label}};
  if (p.cpu_ghz) j["cpu_ghz_requested"] = *p.cpu_ghz;
  if (p.uncore) {
    // One scheme for every knob: <name>_requested, <name>_set, and the measured/used value.
    // uncore_{min,max}_ghz (also the request) stay for the tools that read them.
    j["uncore_min_ghz_requested"] = j["uncore_min_ghz"] = p.uncore->min_ghz;
    j["uncore_max_ghz_requested"] = j["uncore_max_ghz"] = p.uncore->max_ghz;
  }
  if (p.memory) j["memory_config"] = spec.memory[std::size_t(*p.memory)].name;
  if (p.mem_bw) j["mem_bw_requested"] = *p.mem_bw;
  if (p.network) {
    const NetworkSetting& n = spec.network[std::size_t(*p.network)];
    j["net_config"] = n.name;
    j["net_added_latency_us"] = n.latency_us;
    j["net_added_bandwidth_gbs"] = n.bandwidth_gbs;
  }
  return j;
}

int slurm_nnodes() {
  for (const char* var : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"})
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  return 1;
}

bool record_usable(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return false;
  try {
    record::load_run_record(path);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace hpcsens::sweep
