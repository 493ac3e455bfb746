#pragma once
// The per-rank timelines of a run record (ranks[].timeline, docs/record-format.md) for the
// report: read and checked, put on one time grid, cut into phases, and as tidy CSV. Pure
// functions on the parsed record, so they are tested without files.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::report {

struct TimelineMark {
  double t_s = 0;
  std::string phase;
};

struct RankTimeline {
  int rank = 0;
  double bin_s = 0;
  std::vector<double> compute_s, mpi_s, io_s;
  std::vector<std::string> top_mpi;  // "" where the bin had no MPI
  std::vector<std::int64_t> rss_kib;  // resident memory per bin (KiB); empty: not sampled
  std::vector<TimelineMark> marks;
  std::uint64_t marks_dropped = 0;
};

// Every rank's timeline (ranks without one are skipped: older records, or the budget dropped it).
// A malformed one throws InputError naming `file`, the rank and the field.
std::vector<RankTimeline> timelines_of(const nlohmann::json& raw_ranks, const std::string& file);

// Seconds of compute, MPI and I/O summed over ranks, per cell of one grid `cell_s` wide (the
// widest bin of any rank; ranks' bins differ when their runs cross a doubling at different
// times). A rank's bin is spread over the cells it overlaps in proportion.
struct Grid {
  double cell_s = 0;
  std::vector<double> compute, mpi, io;
  std::vector<std::vector<std::pair<std::string, double>>> mpi_by_call;  // dominant calls' MPI time
  // Resident memory summed over the ranks that sampled it (each rank's largest bin in the cell),
  // KiB; empty when no rank did.
  std::vector<double> rss_kib;
};
Grid common_grid(const std::vector<RankTimeline>& ranks);

// Runs of cells where the same activity ("compute", "MPI", "I/O") took most of the ranks' time,
// and MPI or I/O bursts that stand out from their neighbourhood (report/timeline_phases.h);
// other runs shorter than two cells are folded into the phase before them.
struct Phase {
  double start_s = 0, end_s = 0;
  std::string activity;
  bool burst = false;  // named for the MPI or I/O that stands out in it, not for what took most time
  double compute_s = 0, mpi_s = 0, io_s = 0;  // summed over ranks
  std::string top_mpi;                        // the call dominant bins spent most MPI time in
  std::vector<std::string> marks;             // phase marks (rank 0's, else the first rank's) inside
  double rss_kib = -1;                        // the largest summed resident memory of its cells (-1: none)
};
std::vector<Phase> timeline_phases(const std::vector<RankTimeline>& ranks);

// `--format csv --table timeline`: rank,bin,start_s,end_s,compute_s,mpi_s,io_s,top_mpi,rss_kib
// (rss_kib empty for a rank whose memory was not sampled).
std::string timeline_csv(const std::vector<RankTimeline>& ranks);

}  // namespace hpcsens::report
