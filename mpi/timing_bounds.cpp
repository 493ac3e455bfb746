#include "mpi/timing_bounds.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace hpcsens::mpi {

TimingBounds barrier_corrected_bounds(std::span<const RankClock> ranks, bool one_clock) {
  TimingBounds b;
  if (ranks.empty()) return b;
  double job = std::numeric_limits<double>::infinity();
  double min_t1 = std::numeric_limits<double>::infinity();
  double max_t2 = -std::numeric_limits<double>::infinity();
  for (const auto& r : ranks) {
    job = std::min(job, r.t3 - r.t0);
    min_t1 = std::min(min_t1, r.t1);
    max_t2 = std::max(max_t2, r.t2);
  }
  b.job_s = job;
  if (one_clock) {
    b.job_sync_s = max_t2 - min_t1;
    b.barrier_s = std::max(0.0, job - *b.job_sync_s);
  }
  return b;
}

TimingBounds incomplete_bounds(std::span<const RankClock> ranks, bool one_clock) {
  TimingBounds b;
  if (ranks.empty()) return b;
  double min_t1 = std::numeric_limits<double>::infinity();
  double max_t2 = -std::numeric_limits<double>::infinity();
  for (const auto& r : ranks) {
    b.job_s = std::max(b.job_s, r.t3 - r.t0);
    min_t1 = std::min(min_t1, r.t1);
    max_t2 = std::max(max_t2, r.t2);
  }
  if (one_clock) b.job_sync_s = max_t2 - min_t1;
  return b;
}

record::Timing timing_of(std::span<const RankClock> clocks, bool one_clock, bool all_complete) {
  record::Timing t;
  if (!all_complete) {
    const TimingBounds b = incomplete_bounds(clocks, one_clock);
    t.job_s = b.job_s;
    t.job_sync_s = b.job_sync_s;
    t.barrier_s = 0;
    t.method = "incomplete: longest rank span max(t_stop - t0), a lower bound on the job time";
    return t;
  }
  const TimingBounds b = barrier_corrected_bounds(clocks, one_clock);
  t.job_s = b.job_s;
  t.job_sync_s = b.job_sync_s;
  t.barrier_s = b.barrier_s.value_or(0.0);
  t.method = one_clock ? "mccalpin-2019-barrier (single clock)"
                       : "mccalpin-2019-barrier (unsynchronised clocks: min t3-t0 only)";
  return t;
}

void fill_timing(record::RunRecord& record) {
  std::vector<RankClock> clocks;
  clocks.reserve(record.ranks.size());
  bool one_clock = true, all_complete = true;
  for (const auto& r : record.ranks) {
    clocks.push_back({r.t0, r.t1, r.t2, r.t3});
    one_clock = one_clock && r.host == record.ranks.front().host;
    all_complete = all_complete && r.complete;
  }
  record.timing = timing_of(clocks, one_clock, all_complete);
}

}  // namespace hpcsens::mpi
