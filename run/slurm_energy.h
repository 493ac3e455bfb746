#pragma once
// Slurm's own account of the energy of the job steps a run started (ConsumedEnergyRaw, gathered
// by the cluster's acct_gather_energy plugin: RAPL, IPMI, Cray pm_counters...), recorded beside
// hpcsens' own powercap readings as `energy.slurm` (issue 31; docs/record-format.md). Read with
// `sacct`, after the job, and only inside a Slurm allocation.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mpi/capture.h"

namespace hpcsens::run {

struct SacctQuery {
  std::string job_id;  // SLURM_JOB_ID
  long start_s = 0;    // the run's start and end, seconds since the epoch
  long end_s = 0;
};

// Runs sacct (tests pass a double that answers as sacct does).
using SacctRunner = std::function<mpi::Captured(const std::vector<std::string>& argv, const std::vector<std::string>& env)>;

// The argv and environment of the query: `sacct -j ID -n -P -o JobIDRaw,Start,End,ConsumedEnergyRaw`
// with SLURM_TIME_FORMAT=%s, so that times are seconds since the epoch whatever the site's locale.
std::vector<std::string> sacct_argv(const SacctQuery& q);
std::vector<std::string> sacct_env();

// Pure: the energy object from sacct's output. Steps count when they started within the run
// (2 s of slack for clocks read on different hosts); the job's batch, extern and interactive
// steps do not. `final` is set false when asking again later may give more (a step without an
// end yet, or none listed yet: accounting is written after the step ends).
nlohmann::json slurm_energy_from_sacct(const std::string& text, const SacctQuery& q, bool* final);

// Asks sacct up to `tries` times, `wait_s` apart, while the answer is not final.
nlohmann::json slurm_energy(const SacctQuery& q, const SacctRunner& run, int tries = 5, double wait_s = 1.0);

// For `hpcsens run`: null when SLURM_JOB_ID is not set (not inside an allocation), else
// slurm_energy() with the real sacct.
nlohmann::json slurm_energy_for_run(long start_s, long end_s);

}  // namespace hpcsens::run
