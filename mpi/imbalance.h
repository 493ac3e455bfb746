#pragma once
// Per-rank imbalance statistics (POP metrics: load-balance and communication efficiency).
#include <span>
#include <vector>

#include "record/run_record.h"

namespace hpcsens::mpi {

struct RankTimes {
  int rank;
  double wall_s, compute_s;
};

// compute_k and wall_k per rank -> max/mean, LBE = mean/max, comm_eff = max_k compute_k/wall_k,
// CoV (population standard deviation / mean) and the slowest ranks by compute (at most `top`).
record::Imbalance imbalance_of(std::span<const RankTimes> ranks, int top = 5);

// Computes record.imbalance from record.ranks.
void fill_imbalance(record::RunRecord& record);

}  // namespace hpcsens::mpi
