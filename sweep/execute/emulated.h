#pragma once
// The emulated launcher: for machines without DVFS, run records computed from the ground-truth
// model written in the spec instead of measured. Every record it makes says "emulated": true.
#include <cstdint>
#include <string>

#include "record/run_record.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

// T = S - overlap * (S - M) with S = W_cpu/R_cpu + t_mem + T_io and M the largest of the three
// terms, times (1 + noise_pct/100 * z); z is a standard normal draw. R_cpu and R_mem are the
// machine's TRUE rates. t_mem = max(W_mem / min(R_mem, knee_gbs), cache_gb / (cache_bytes_per_cycle
// x R_cpu)): DRAM and a cache clocked with the core transfer at the same time, the slower one is
// exposed, which bends the core-clock response where one takes over from the other.
double emulated_time_s(const Emulation& e, double cpu_ghz, double mem_gbs, double z);

// A deterministic standard normal draw for one run (seeded by the spec seed and the run id), so
// a resumed sweep produces the same numbers as an uninterrupted one.
double emulated_noise(std::uint64_t seed, const std::string& run_id);

// One run's rates: what was asked, what the machine really had, what a sweep would have measured.
struct EmulatedRates {
  double cpu_requested_ghz = 0;
  double cpu_true_ghz = 0;         // the request, capped at clock_ceiling_ghz
  double cpu_measured_ghz = 0;     // true x (1 + clock_jitter_pct/100 x z)
  double mem_true_gbs = 0;         // configured x (true clock / top true clock)^stream_clock_elasticity
  double mem_measured_gbs = 0;     // true x (1 + stream_jitter_pct/100 x z')
};

// top_requested_ghz: the sweep's highest requested clock, where the configured bandwidth holds.
// The jitter draws are independent of the time's and of each other (seeded by run id and role).
EmulatedRates emulated_rates(const Emulation& e, double requested_ghz, double configured_gbs,
                             double top_requested_ghz, const std::string& run_id);

// A complete run record for one emulated run: nranks identical ranks, timing.job_s = T,
// config.{cpu_ghz (measured), cpu_ghz_requested, cpu_ghz_measured, mem_gbs (measured STREAM),
// *_source = "emulated", emulated_truth (the model and the true rates)}, counters_status saying
// why there are no counters, emulated = true.
record::RunRecord make_emulated_record(const SweepSpec& spec, const std::string& run_id, double cpu_ghz,
                                       double mem_gbs, const nlohmann::json& config);

}  // namespace hpcsens::sweep
