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

// When some rank never reached MPI_Finalize it skipped the second barrier, and its t3 is just the
// moment it stopped: min_k (t3 - t0) could land on a rank that stopped early and bound nothing.
// What still holds is that the job ran at least as long as the longest rank span:
// job_s = max_k (t3 - t0), a lower bound; job_sync_s = max t2 - min t1 with one clock.
TimingBounds incomplete_bounds(std::span<const RankClock> ranks, bool one_clock);

// The record's timing section from every rank's clocks (streamed records, which hold no
// RankRecords): incomplete_bounds when not all_complete, else barrier_corrected_bounds.
record::Timing timing_of(std::span<const RankClock> clocks, bool one_clock, bool all_complete);

// Fills record.timing from its ranks (one clock when every rank names the same host); uses
// incomplete_bounds when any rank is incomplete, and says so in timing.method.
void fill_timing(record::RunRecord& record);

}  // namespace hpcsens::mpi
