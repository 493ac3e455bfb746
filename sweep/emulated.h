#pragma once
// The emulated launcher: for machines without DVFS, run records computed from the ground-truth
// model written in the spec instead of measured. Every record it makes says "emulated": true.
#include <cstdint>
#include <string>

#include "record/run_record.h"
#include "sweep/spec.h"

namespace hpcsens::sweep {

// T = S - overlap * (S - M) with S = W_cpu/R_cpu + W_mem/R_mem + T_io and M the largest of the
// three terms, times (1 + noise_pct/100 * z). z is a standard normal draw.
double emulated_time_s(const Emulation& e, double cpu_ghz, double mem_gbs, double z);

// A deterministic standard normal draw for one run (seeded by the spec seed and the run id), so
// a resumed sweep produces the same numbers as an uninterrupted one.
double emulated_noise(std::uint64_t seed, const std::string& run_id);

// A complete run record for one emulated run: nranks identical ranks, timing.job_s = T,
// config.{cpu_ghz, mem_gbs, *_source = "emulated", emulated_truth}, counters_status saying why
// there are no counters, emulated = true.
record::RunRecord make_emulated_record(const SweepSpec& spec, const std::string& run_id, double cpu_ghz,
                                       double mem_gbs, const nlohmann::json& config);

}  // namespace hpcsens::sweep
