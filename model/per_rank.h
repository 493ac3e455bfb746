#pragma once
// The same model fitted to each rank's own time across configurations: which ranks are
// CPU-bound, memory-bound or dominated by fixed time, and which behave alike.
#include <string>
#include <vector>

#include "model/fitter.h"

namespace hpcsens::model {

struct RankShare {
  int rank = 0;
  bool ok = false;    // false: too few configurations with a time for this rank, or no convergence
  double cpu = 0, mem = 0, fixed = 0;  // shares of the modelled time at the baseline (sum to 1)
  double error = 0;   // MAPE of this rank's fit
};

struct RankGroup {
  double cpu = 0, mem = 0, fixed = 0;  // mean shares of the group's ranks
  std::vector<int> ranks;
};

// `rank_times[r][j]` aligned with `points`; NaN where the rank has no time. Only linear
// term sets are fitted per rank (the overlap variant is fitted as cpu+mem+io).
std::vector<RankShare> fit_per_rank(const ModelSpec& spec, const std::vector<Point>& points,
                                    const std::vector<int>& ranks,
                                    const std::vector<std::vector<double>>& rank_times, size_t baseline,
                                    const FitOptions& opts);

// Groups ranks whose CPU, memory and fixed shares all lie within `tolerance` (default 10
// percentage points) of a group's mean; largest group first.
std::vector<RankGroup> group_ranks(const std::vector<RankShare>& shares, double tolerance = 0.1);

// "0-3,8,10-11"
std::string format_rank_list(std::vector<int> ranks);

}  // namespace hpcsens::model
