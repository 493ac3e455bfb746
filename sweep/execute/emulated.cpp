#include "sweep/execute/emulated.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>

#include "sweep/execute/emulated_power.h"

namespace hpcsens::sweep {

double emulated_time_s(const Emulation& e, double cpu_ghz, double mem_gbs, double z) {
  const EmulatedRealism& m = e.realism;
  const double dram_gbs = m.knee_gbs ? std::min(mem_gbs, *m.knee_gbs) : mem_gbs;
  const double t_cache = m.cache_gb > 0 ? m.cache_gb / (m.cache_bytes_per_cycle * cpu_ghz) : 0;
  const double t_cpu = e.w_cpu / cpu_ghz, t_mem = std::max(e.w_mem / dram_gbs, t_cache), t_io = e.t_io;
  const double sum = t_cpu + t_mem + t_io;
  const double max = std::max({t_cpu, t_mem, t_io});
  const double t = sum - e.overlap * (sum - max);
  return std::max(t * (1.0 + e.noise_pct / 100.0 * z), 1e-9);
}

double emulated_noise(std::uint64_t seed, const std::string& run_id) {
  // FNV-1a of the id mixed into the seed; Box-Muller on two 53-bit uniforms (std::normal_distribution
  // differs between standard libraries, this does not).
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : run_id) h = (h ^ c) * 1099511628211ull;
  std::mt19937_64 rng(seed ^ h);
  const double u1 = (double(rng() >> 11) + 1.0) / 9007199254740993.0;
  const double u2 = double(rng() >> 11) / 9007199254740992.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

EmulatedRates emulated_rates(const Emulation& e, double requested_ghz, double configured_gbs,
                             double top_requested_ghz, const std::string& run_id) {
  const EmulatedRealism& m = e.realism;
  const auto reached = [&](double f) { return m.clock_ceiling_ghz ? std::min(f, *m.clock_ceiling_ghz) : f; };
  EmulatedRates r;
  r.cpu_requested_ghz = requested_ghz;
  r.cpu_true_ghz = reached(requested_ghz);
  r.mem_true_gbs = configured_gbs * std::pow(r.cpu_true_ghz / reached(top_requested_ghz), m.stream_clock_elasticity);
  // Measurement noise only: the run itself had the true rates. Clamped so that an absurd jitter
  // setting still yields positive rates.
  const auto measured = [&](double truth, double pct, const char* role) {
    return truth * std::max(1.0 + pct / 100.0 * emulated_noise(e.seed, run_id + role), 0.01);
  };
  r.cpu_measured_ghz = m.clock_jitter_pct > 0 ? measured(r.cpu_true_ghz, m.clock_jitter_pct, "/clock") : r.cpu_true_ghz;
  r.mem_measured_gbs = m.stream_jitter_pct > 0 ? measured(r.mem_true_gbs, m.stream_jitter_pct, "/stream") : r.mem_true_gbs;
  return r;
}

namespace {

// The rates as a real sweep records them (requested and measured clock, measured STREAM), and
// the truth behind them under emulated_truth, so a test knows what the fit should find.
void set_emulated_config(nlohmann::json& c, const Emulation& e, const EmulatedRates& rates) {
  const EmulatedRealism& m = e.realism;
  c["cpu_ghz"] = rates.cpu_measured_ghz;
  c["cpu_ghz_requested"] = rates.cpu_requested_ghz;
  c["cpu_ghz_measured"] = rates.cpu_measured_ghz;
  c["cpu_ghz_source"] = "emulated";
  c["mem_gbs"] = rates.mem_measured_gbs;
  c["mem_gbs_source"] = "emulated";
  nlohmann::json realism = {{"stream_jitter_pct", m.stream_jitter_pct},
                            {"clock_jitter_pct", m.clock_jitter_pct},
                            {"stream_clock_elasticity", m.stream_clock_elasticity},
                            {"cache_gb", m.cache_gb},
                            {"cache_bytes_per_cycle", m.cache_bytes_per_cycle}};
  if (m.knee_gbs) realism["knee_gbs"] = *m.knee_gbs;
  if (m.clock_ceiling_ghz) realism["clock_ceiling_ghz"] = *m.clock_ceiling_ghz;
  c["emulated_truth"] = {{"W_cpu", e.w_cpu},       {"W_mem", e.w_mem},         {"T_io", e.t_io},
                         {"overlap", e.overlap},   {"noise_pct", e.noise_pct}, {"seed", e.seed},
                         {"cpu_ghz", rates.cpu_true_ghz}, {"mem_gbs", rates.mem_true_gbs},
                         {"realism", realism}};
}

}  // namespace

record::RunRecord make_emulated_record(const SweepSpec& spec, const std::string& run_id, double cpu_ghz,
                                       double mem_gbs, const nlohmann::json& config) {
  const Emulation& e = *spec.emulation;
  const double top = spec.cpu_ghz.empty() ? cpu_ghz : *std::max_element(spec.cpu_ghz.begin(), spec.cpu_ghz.end());
  const EmulatedRates rates = emulated_rates(e, cpu_ghz, mem_gbs, top, run_id);
  const double t = emulated_time_s(e, rates.cpu_true_ghz, rates.mem_true_gbs, emulated_noise(e.seed, run_id));
  record::RunRecord r;
  r.emulated = true;
  r.job.command = spec.command.empty() ? std::vector<std::string>{"(emulated)"} : spec.command;
  r.job.nranks = e.ranks;
  r.job.launcher = "emulated";
  r.job.mpi_library = "none (emulated launcher)";
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  r.job.hosts = {host};
  const std::time_t now = std::time(nullptr);
  char utc[32];
  std::strftime(utc, sizeof utc, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  r.job.start_utc = utc;
  r.timing.job_s = t;
  r.timing.job_sync_s = t;
  r.timing.barrier_s = 0;
  r.timing.method = "emulated";
  for (int k = 0; k < e.ranks; ++k) {
    record::RankRecord rk;
    rk.rank = k;
    rk.host = host;
    rk.wall_s = t;
    rk.io_s = std::min(e.t_io, t);
    rk.compute_s = t - rk.io_s;
    rk.counters_status = "emulated: no counters";
    rk.t3 = t;
    rk.t2 = t;
    r.ranks.push_back(rk);
  }
  r.imbalance.max_over_mean = 1;
  r.imbalance.lbe = 1;
  r.imbalance.comm_eff = 1;
  r.imbalance.mean_s = r.imbalance.max_s = r.imbalance.min_s = t - std::min(e.t_io, t);
  r.counters_status = "emulated: no counters";
  r.config = config;
  set_emulated_config(r.config, e, rates);
  r.extra["energy"] = emulated_energy_unavailable();
  if (e.power) {
    const EmulatedWatts w = emulated_run_watts(e, rates.cpu_true_ghz, run_id);
    r.extra["energy"] = emulated_energy(*e.power, w, t, run_id);
    r.config["emulated_truth"]["power"] = emulated_power_truth(*e.power, w);
  }
  return r;
}

}  // namespace hpcsens::sweep
