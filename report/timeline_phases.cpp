#include "report/timeline_phases.h"

#include <algorithm>
#include <map>

#include "report/timeline_view.h"

namespace hpcsens::report {
namespace {

std::string activity(double compute, double mpi, double io) {
  return compute >= mpi && compute >= io ? "compute" : mpi >= io ? "MPI" : "I/O";
}

std::string range_activity(const Grid& g, std::size_t first, std::size_t last) {
  double c = 0, m = 0, o = 0;
  for (std::size_t i = first; i < last; ++i) c += g.compute[i], m += g.mpi[i], o += g.io[i];
  return activity(c, m, o);
}

double share(const std::vector<double>& x, const Grid& g, std::size_t c) {
  const double all = g.compute[c] + g.mpi[c] + g.io[c];
  return all > 0 ? x[c] / all : 0;
}

// Median of x's share over cells [first, last); -1 when the range is empty.
double median_share(const std::vector<double>& x, const Grid& g, std::size_t first, std::size_t last) {
  if (first >= last) return -1;
  std::vector<double> v;
  for (std::size_t i = first; i < last; ++i) v.push_back(share(x, g, i));
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// How far x's share in cell c stands above its neighbourhood and the margin (< 0: it does not).
double excess(const std::vector<double>& x, const Grid& g, std::size_t c) {
  if (x[c] < kBurstMinSeconds) return -1;
  const std::size_t n = x.size();
  const double before = median_share(x, g, c - std::min(c, kBurstWindow), c);
  const double after = median_share(x, g, c + 1, std::min(n, c + 1 + kBurstWindow));
  if (before < 0 && after < 0) return -1;
  return share(x, g, c) - std::max(before, after) - kBurstMargin;
}

}  // namespace

std::string burst_of(const Grid& g, std::size_t c) {
  const double m = excess(g.mpi, g, c), o = excess(g.io, g, c);
  if (m < 0 && o < 0) return "";
  return m >= o ? "MPI" : "I/O";
}

std::vector<PhaseRun> phase_runs(const Grid& g) {
  std::vector<PhaseRun> runs;
  for (std::size_t c = 0; c < g.mpi.size(); ++c) {
    const std::string burst = burst_of(g, c);
    const std::string a = burst.empty() ? activity(g.compute[c], g.mpi[c], g.io[c]) : burst;
    if (!runs.empty() && runs.back().activity == a) {
      runs.back().last = c + 1;
      runs.back().burst = runs.back().burst || !burst.empty();
    } else {
      runs.push_back({c, c + 1, a, !burst.empty()});
    }
  }
  std::vector<PhaseRun> merged;
  for (PhaseRun run : runs) {
    // A run that stands out keeps its burst's activity; any other is named by its sums.
    if (!run.burst) run.activity = range_activity(g, run.first, run.last);
    if (!merged.empty() && ((run.last - run.first < 2 && !run.burst) || merged.back().activity == run.activity)) {
      merged.back().last = run.last;
    } else {
      merged.push_back(run);
    }
  }
  // A burst is a phase named for what stands out in it, not for what took most of its time.
  for (PhaseRun& p : merged) p.burst = range_activity(g, p.first, p.last) != p.activity;
  return merged;
}

}  // namespace hpcsens::report
