#pragma once
// McCalpin's barrier-corrected job time ("Timing Methodology for MPI Programs", 2019).
// Each rank k reads t0; barrier; t1 at init and t2; barrier; t3 at finalize.
#include <optional>
#include <span>

#include "record/run_record.h"

namespace hpcsens::mpi {

struct RankClock {
  double t0, t1, t2, t3;
};

struct TimingBounds {
  // min_k (t3 - t0): an upper bound on the job time that needs no clock synchronisation,
  // because every rank's own interval contains the whole job (it includes both barriers).
  double job_s = 0;
  // max_k t2 - min_k t1: the work span, valid only when all clocks are one clock.
  std::optional<double> job_sync_s;
  // What the two barriers cost on top of the work span (job_s - job_sync_s), when known.
  std::optional<double> barrier_s;
};

// `one_clock` is true when every rank read the same clock (a single host).
TimingBounds barrier_corrected_bounds(std::span<const RankClock> ranks, bool one_clock);

// Fills record.timing from its ranks (one clock when every rank names the same host).
void fill_timing(record::RunRecord& record);

}  // namespace hpcsens::mpi
