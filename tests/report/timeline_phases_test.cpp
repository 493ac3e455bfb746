// Phases that keep short bursts (report/timeline_phases.h) on synthetic grids: a set-up read at
// the start, periodic writes every N cells, noisy compute, a boundary cell between two phases.
#include <gtest/gtest.h>

#include <random>

#include "report/timeline_phases.h"
#include "report/timeline_view.h"

namespace hpcsens::report {
namespace {

// A grid of `cells` cells of `ranks` x `w` seconds each, all compute; set() moves time to MPI or I/O.
struct Synthetic {
  Grid g;
  double all;
  Synthetic(std::size_t cells, double w, int ranks) : all(w * ranks) {
    g.cell_s = w;
    g.compute.assign(cells, all), g.mpi.assign(cells, 0), g.io.assign(cells, 0), g.mpi_by_call.resize(cells);
  }
  void set(std::size_t c, double mpi_share, double io_share) {
    g.mpi[c] = mpi_share * all, g.io[c] = io_share * all, g.compute[c] = all - g.mpi[c] - g.io[c];
  }
};

std::string letters(const std::vector<PhaseRun>& runs) {
  std::string out;
  for (const auto& r : runs)
    out += r.activity + (r.burst ? "!" : "") + "[" + std::to_string(r.first) + "," + std::to_string(r.last) + ") ";
  return out;
}

TEST(TimelinePhases, ASetUpReadAtTheStartIsItsOwnPhase) {
  Synthetic s(100, 0.01, 4);
  s.set(0, 0.0, 0.30);  // 30 % of the first cell reading input: compute still took most of it
  const auto runs = phase_runs(s.g);
  ASSERT_EQ(runs.size(), 2u) << letters(runs);
  EXPECT_EQ(runs[0].activity, "I/O");
  EXPECT_TRUE(runs[0].burst);
  EXPECT_EQ(runs[0].last, 1u);
  EXPECT_EQ(runs[1].activity, "compute");
}

TEST(TimelinePhases, PeriodicWritesEveryNCellsEachShow) {
  Synthetic s(120, 0.01, 2);
  std::vector<std::size_t> writes;
  for (std::size_t c = 9; c < 120; c += 10) s.set(c, 0.0, 0.25), writes.push_back(c);
  const auto runs = phase_runs(s.g);
  std::vector<std::size_t> seen;
  for (const auto& r : runs)
    if (r.activity == "I/O") {
      EXPECT_TRUE(r.burst) << letters(runs);
      EXPECT_EQ(r.last - r.first, 1u) << letters(runs);
      seen.push_back(r.first);
    }
  EXPECT_EQ(seen, writes) << letters(runs);
}

TEST(TimelinePhases, NoisyComputeIsOnePhase) {
  Synthetic s(256, 0.004, 8);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(0.0, 0.06);  // a few % of MPI and I/O in every cell
  for (std::size_t c = 0; c < 256; ++c) s.set(c, noise(rng), noise(rng));
  const auto runs = phase_runs(s.g);
  ASSERT_EQ(runs.size(), 1u) << letters(runs);
  EXPECT_EQ(runs[0].activity, "compute");
}

TEST(TimelinePhases, ABurstBelowTheMinimumTimeIsNoise) {
  Synthetic s(50, 0.001, 1);  // 1 ms cells of one rank
  s.set(20, 0.0, 0.5);        // 0.5 ms of I/O: half the cell, under kBurstMinSeconds
  EXPECT_EQ(phase_runs(s.g).size(), 1u);
  s.set(20, 0.0, 1.0);  // 1 ms: a whole cell of I/O stands out
  EXPECT_EQ(phase_runs(s.g).size(), 3u) << letters(phase_runs(s.g));
}

TEST(TimelinePhases, ABoundaryCellIsNotABurst) {
  // compute, then a cell half compute and half MPI, then MPI: the half cell leads into the MPI
  // phase and does not stand out from it.
  Synthetic s(20, 0.01, 2);
  for (std::size_t c = 10; c < 20; ++c) s.set(c, 1.0, 0.0);
  s.set(9, 0.5, 0.0);
  const auto runs = phase_runs(s.g);
  ASSERT_EQ(runs.size(), 2u) << letters(runs);
  EXPECT_EQ(runs[0].activity, "compute");
  EXPECT_EQ(runs[0].last, 10u);  // compute wins the tie, as the dominant activity always did
  EXPECT_FALSE(runs[1].burst);
  EXPECT_FALSE(burst_of(s.g, 9) == "MPI");
}

TEST(TimelinePhases, AnMpiBurstInsideAnIoPhaseStandsOut) {
  Synthetic s(40, 0.01, 2);
  for (std::size_t c = 0; c < 40; ++c) s.set(c, 0.0, 0.7);
  s.set(20, 0.4, 0.5);  // a global reduction between writes
  const auto runs = phase_runs(s.g);
  ASSERT_EQ(runs.size(), 3u) << letters(runs);
  EXPECT_EQ(runs[1].activity, "MPI");
  EXPECT_TRUE(runs[1].burst);
}

}  // namespace
}  // namespace hpcsens::report
