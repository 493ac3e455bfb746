#pragma once
// Tables of a run record: job facts, summary (timing bounds and imbalance), per-rank times.
// Pure functions of the record's scan (report/run_scan.h: compact rows and sums, what a
// 1,000,000-rank record can afford); the RunRecord forms scan the record first, so every
// number can be checked against a hand-made record.
#include <cstddef>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "report/run_scan.h"
#include "report/table.h"

namespace hpcsens::report {

struct ReportOptions {
  Format format = Format::kTable;
  bool all_ranks = false;            // every rank, however many
  std::size_t full_table_max = 32;   // up to this many ranks the default view lists them all
  std::size_t extremes = 5;          // slowest / fastest ranks shown in the summarised view
  bool summary_only = false;         // the answer and advice only (`hpcsens run --summary`)
};

// Min, quartiles (linear interpolation between order statistics) and max of `values`.
struct Distribution {
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
};
Distribution distribution_of(std::vector<double> values);

// "MPI_Allreduce 0.120 s x10; MPI_Barrier ..." for the `top` calls with the most time.
std::string top_calls(const record::RankRecord& rank, std::size_t top = 3);

// Imbalance statistics recomputed from the ranks (never trusted from the file).
record::Imbalance imbalance_of(const record::RunRecord& rec);
record::Imbalance imbalance_of(const RunScan& scan);

Table job_table(const record::RunRecord& rec);  // the top-level sections only (RunScan::header)
// What the network-delay knob added to this run ("+5 us per message, +0.1 ns per byte (a 10 GB/s
// link)"), or "" where it was off; its delays are inside every MPI time of the record.
std::string net_delay_added(const record::RunRecord& rec);
Table summary_table(const RunScan& scan);
// One row per index into the ranks (scan.rows), in the given order.
Table rank_table(const RunScan& scan, const std::vector<std::size_t>& indices, const std::string& title);
Table distribution_table(const RunScan& scan);
// Each listed rank's MPI volume (report/byte_direction.h RankVolume): point-to-point sent and
// received, collective bytes contributed; in rank order. No rows when no rank moved a byte.
Table volume_table(const RunScan& scan, std::vector<std::size_t> indices, Format format);
// MPI time by call name over all ranks (where ranks wait): total calls and seconds, the mean and
// the maximum per rank (with the rank), bytes, and the share of all MPI time. Most time first;
// at most `top` rows (0: all).
Table mpi_call_table(const RunScan& scan, std::size_t top);
// Every recorded counter over all ranks: ranks with it, min (rank), mean, max (rank), sum.
Table counter_summary_table(const RunScan& scan);
// Counter values per rank, one table per `per_table` counters so the text stays narrow.
std::vector<Table> counter_rank_tables(const RunScan& scan, const std::vector<std::size_t>& indices,
                                       std::size_t per_table = 5);

// Indices of the ranks ordered by compute time: the `n` slowest (most compute first) and the
// `n` fastest (least compute first).
std::vector<std::size_t> slowest_ranks(const RunScan& scan, std::size_t n);
std::vector<std::size_t> fastest_ranks(const RunScan& scan, std::size_t n);

// The answer and advice (report/headline.h) in the given format; empty for CSV.
std::string answer_section(const RunScan& scan, Format format);

// The whole report: the answer, job, summary (then I/O when it dominates the run), ranks (all, or extremes + distribution for large jobs), MPI
// calls, counters, the Top-Down bottleneck section and the measurement section.
std::string render_run_report(const RunScan& scan, const ReportOptions& options);

// The same from a record in memory (scan_of(rec) first).
Table summary_table(const record::RunRecord& rec);
Table rank_table(const record::RunRecord& rec, const std::vector<std::size_t>& indices, const std::string& title);
Table distribution_table(const record::RunRecord& rec);
Table mpi_call_table(const record::RunRecord& rec, std::size_t top);
Table counter_summary_table(const record::RunRecord& rec);
std::vector<Table> counter_rank_tables(const record::RunRecord& rec, const std::vector<std::size_t>& indices,
                                       std::size_t per_table = 5);
std::vector<std::size_t> slowest_ranks(const record::RunRecord& rec, std::size_t n);
std::vector<std::size_t> fastest_ranks(const record::RunRecord& rec, std::size_t n);
std::string render_run_report(const record::RunRecord& rec, const ReportOptions& options);

}  // namespace hpcsens::report
