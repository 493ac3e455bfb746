#pragma once
// mpiP's aggregate view of a run record: MPI time per call with its share of the application's
// time (App%) and of all MPI time (MPI%), the bytes each call sent (count, total, average), MPI
// time by class of call (collective, point-to-point, ...), and transfer rates. Pure functions of
// the record's scan (report/run_scan.h), so every number is checked against a hand-made record.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_scan.h"
#include "report/table.h"

namespace hpcsens::report {

// The classes of preload/mpi_calls.tbl's MPI-time categories: coll and icoll are collective, p2p
// point-to-point (persistent starts included), wait the completion calls (waits, tests, probes:
// they finish non-blocking calls of either kind, so they are neither), rma and rma_sync one-sided,
// comm and other the rest (set-up, communicators, datatypes).
enum class MpiClass { kCollective, kPointToPoint, kCompletion, kOneSided, kOther };
inline constexpr std::size_t kMpiClasses = 5;
MpiClass mpi_class_of(std::string_view call);
// "collective" | "point-to-point" | "completion" | "one-sided" | "other".
std::string mpi_class_name(MpiClass c);

struct AggregateCall {
  std::string name;
  MpiClass cls = MpiClass::kOther;
  std::uint64_t count = 0, bytes_sent = 0, bytes_received = 0;
  double seconds = 0;
  double app_pct = 0;  // of wall_s summed over ranks
  double mpi_pct = 0;  // of calls_s: the column sums to 100
};

struct MpiAggregate {
  std::size_t ranks = 0;
  double wall_s = 0;   // sum over ranks of wall_s (mpiP's "AppTime" summed over tasks)
  double mpi_s = 0;    // sum over ranks of mpi_s
  double calls_s = 0;  // sum of every call's seconds (equals mpi_s in a record the preload wrote)
  double io_s = 0;
  std::uint64_t io_bytes = 0;          // read + written
  std::uint64_t mpi_bytes_sent = 0;    // what ranks sent or contributed (never a message twice)
  std::array<double, kMpiClasses> class_s{};
  std::vector<AggregateCall> calls;    // most time first, then by name
};

MpiAggregate mpi_aggregate(const RunScan& scan);

// Bytes per second in MB/s (10^6 bytes), 0 when no time was spent.
double rate_mbs(std::uint64_t bytes, double seconds);

// mpiP's "Aggregate Time": call, class, calls, time, App%, MPI% (at most `top` rows, 0: all).
Table aggregate_time_table(const MpiAggregate& a, std::size_t top);
// mpiP's "Aggregate Sent Message Size": calls that sent bytes, with count, total and average.
Table aggregate_sent_table(const MpiAggregate& a, std::size_t top);
// MPI time by class: time, App%, MPI%.
Table mpi_class_table(const MpiAggregate& a);
// The summary's MPI rows (metric, value, unit): total, share of wall time, collective and
// point-to-point time, MPI and I/O transfer rates with their base.
std::vector<std::vector<std::string>> mpi_summary_rows(const MpiAggregate& a);
// The same as (metric, unrounded value) pairs for the tidy summary CSV.
std::vector<std::pair<std::string, std::string>> mpi_summary_csv_rows(const MpiAggregate& a);
// The three tables above rendered (nothing without MPI calls).
std::string aggregate_text(const RunScan& scan, Format format, bool all);
// `--format csv --table aggregate`: call,class,count,seconds,app_pct,mpi_pct,bytes_sent,
// bytes_received,avg_bytes_sent, unrounded.
std::string aggregate_csv(const RunScan& scan);
// `derived.mpi_aggregate` of the JSON report.
nlohmann::json aggregate_json(const MpiAggregate& a);

}  // namespace hpcsens::report
