#pragma once
// Phases of the timeline's common grid (report/timeline_view.h): runs of cells where one
// activity took most of the ranks' time, and short MPI or I/O bursts that stand out from their
// neighbourhood (a set-up read, a periodic checkpoint write) kept as phases of their own even
// where compute still took most of their cells. The rule (docs/methodology.md, "Timeline phases"):
//   share_x(c) = x's seconds in cell c / all seconds in c, x in {MPI, I/O};
//   cell c is a burst of x when share_x(c) >= kBurstMargin + the larger of the medians of share_x
//   over the kBurstWindow cells before and the kBurstWindow cells after it (a side with no cells
//   is left out; a cell alone has no neighbourhood), and x's seconds in c >= kBurstMinSeconds.
// Comparing with each side apart keeps a phase boundary (half compute, half MPI, followed by MPI)
// from counting as a burst: it does not stand out from the side it leads into.
#include <cstddef>
#include <string>
#include <vector>

namespace hpcsens::report {

struct Grid;

inline constexpr std::size_t kBurstWindow = 8;
inline constexpr double kBurstMargin = 0.10;      // share of the cell's time, above the neighbourhood's
inline constexpr double kBurstMinSeconds = 1e-3;  // summed over ranks: less is noise, not a phase

// "MPI" or "I/O" when cell c is a burst of it (the larger excess when both), else "".
std::string burst_of(const Grid& g, std::size_t c);

struct PhaseRun {
  std::size_t first = 0, last = 0;  // cells [first, last)
  std::string activity;             // "compute", "MPI", "I/O"
  bool burst = false;               // held apart because it stands out, not because it dominates
};
// Runs of one activity (a burst cell counts as its burst's activity); a run shorter than two
// cells that holds no burst is noise at a boundary and joins the phase before it; a run of the
// same activity as the phase before extends it.
std::vector<PhaseRun> phase_runs(const Grid& g);

}  // namespace hpcsens::report
