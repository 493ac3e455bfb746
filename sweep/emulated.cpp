#include "sweep/emulated.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <random>

namespace hpcsens::sweep {

double emulated_time_s(const Emulation& e, double cpu_ghz, double mem_gbs, double z) {
  const double t_cpu = e.w_cpu / cpu_ghz, t_mem = e.w_mem / mem_gbs, t_io = e.t_io;
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

record::RunRecord make_emulated_record(const SweepSpec& spec, const std::string& run_id, double cpu_ghz,
                                       double mem_gbs, const nlohmann::json& config) {
  const Emulation& e = *spec.emulation;
  const double t = emulated_time_s(e, cpu_ghz, mem_gbs, emulated_noise(e.seed, run_id));
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
  r.config["cpu_ghz"] = cpu_ghz;
  r.config["cpu_ghz_source"] = "emulated";
  r.config["mem_gbs"] = mem_gbs;
  r.config["mem_gbs_source"] = "emulated";
  r.config["emulated_truth"] = {{"W_cpu", e.w_cpu}, {"W_mem", e.w_mem}, {"T_io", e.t_io},
                                {"overlap", e.overlap}, {"noise_pct", e.noise_pct}, {"seed", e.seed}};
  return r;
}

}  // namespace hpcsens::sweep
