#include "mpi/imbalance.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hpcsens::mpi {

record::Imbalance imbalance_of(std::span<const RankTimes> ranks, int top) {
  record::Imbalance im;
  if (ranks.empty()) return im;
  const double n = static_cast<double>(ranks.size());
  double sum = 0, mx = ranks.front().compute_s, mn = ranks.front().compute_s, comm = 0;
  for (const auto& r : ranks) {
    sum += r.compute_s;
    mx = std::max(mx, r.compute_s);
    mn = std::min(mn, r.compute_s);
    if (r.wall_s > 0) comm = std::max(comm, r.compute_s / r.wall_s);
  }
  const double mean = sum / n;
  double ss = 0;
  for (const auto& r : ranks) ss += (r.compute_s - mean) * (r.compute_s - mean);
  im.mean_s = mean;
  im.max_s = mx;
  im.min_s = mn;
  im.max_over_mean = mean > 0 ? mx / mean : 0;
  im.lbe = mx > 0 ? mean / mx : 0;
  im.comm_eff = comm;
  im.cov = mean > 0 ? std::sqrt(ss / n) / mean : 0;
  // Partial sort of indices keeps this O(n log top) for 100,000-rank records.
  std::vector<std::size_t> idx(ranks.size());
  std::iota(idx.begin(), idx.end(), 0);
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max(top, 0)), idx.size());
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](std::size_t a, std::size_t b) {
    if (ranks[a].compute_s != ranks[b].compute_s) return ranks[a].compute_s > ranks[b].compute_s;
    return ranks[a].rank < ranks[b].rank;
  });
  for (std::size_t i = 0; i < k; ++i) im.slowest.push_back(ranks[idx[i]].rank);
  return im;
}

void fill_imbalance(record::RunRecord& record) {
  std::vector<RankTimes> times;
  times.reserve(record.ranks.size());
  for (const auto& r : record.ranks) times.push_back({r.rank, r.wall_s, r.compute_s});
  record.imbalance = imbalance_of(times);
}

}  // namespace hpcsens::mpi
