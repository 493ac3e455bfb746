#pragma once
// A run record as the report needs it: the small top-level sections, one compact row per rank
// (times, flags, where its object starts in the file) and the sums every section shows (MPI time
// by call, counters over ranks, the measurement fields of schema_minor 2). One pass over the file
// with simdjson On-Demand builds it, so a 1,000,000-rank record costs about 100 bytes per rank
// beyond the file itself, and a 100,000-rank record reads in a fraction of a second. The few ranks
// shown in full (slowest, fastest) are read again from their own bytes.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"
#include "report/memory_totals.h"

namespace hpcsens::report {

struct RankRow {
  int rank = 0;
  bool complete = true;
  bool multiplexed = false;
  std::uint16_t event_set = 0;        // index into RunScan::names
  std::uint16_t counters_status = 0;  // index into RunScan::names
  double wall_s = 0, mpi_s = 0, io_s = 0, compute_s = 0;
  std::uint64_t io_bytes_read = 0, io_bytes_written = 0;
  std::uint32_t counters_begin = 0;   // this rank's counters: RunScan::counters[begin, next begin)
  std::uint32_t length = 0;           // its object's bytes in the file (with trailing blanks)
  std::uint64_t source = 0;           // where its object starts in the file (or its index in a RunRecord)
  double min_running = 1;             // least counter_running_fraction (1: none recorded)
  bool any_running = false;
  std::uint16_t running_reason = 1;   // counter_running_fraction_reason: index into RunScan::names
};

// MPI time by call name over all ranks.
struct CallTotal {
  std::string name;
  std::uint64_t count = 0;
  std::uint64_t bytes_sent = 0, bytes_received = 0;  // report/byte_direction.h
  double seconds = 0, max_s = -1;
  int max_rank = -1;
};

// I/O time by call name over all ranks (bytes: read or written, report/byte_direction.h).
struct IoCallTotal {
  std::string name;
  std::uint64_t count = 0, bytes = 0;
  double seconds = 0;
};

// One counter over all ranks.
struct CounterTotal {
  std::size_t ranks = 0;
  double sum = 0, min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  int min_rank = -1, max_rank = -1;
};

// Sums of the schema_minor 2 fields (I/O classes, message sizes, partners, regions).
struct IoClassTotal {
  std::uint64_t calls = 0, bytes = 0;
  double seconds = 0;
};
struct RegionTotal {
  std::uint64_t count = 0, ranks = 0;
  double wall = 0, wall_max = 0, mpi = 0, io = 0;
};
struct PartnerPair {
  std::int64_t from = 0, to = 0;
  std::uint64_t bytes = 0, messages = 0;
};
inline constexpr std::size_t kTopPairs = 10;
// Ranks per host and the CPUs online there, from the ranks' "cpu" objects (preload/cpu_share.h).
struct HostCpus {
  std::uint64_t ranks = 0;
  std::int64_t online = 0;  // the most any of its ranks saw
};
struct CpuTotals {
  std::map<std::string, HostCpus> hosts;
  std::uint64_t ranks = 0;    // ranks with a "cpu" object
  std::uint64_t starved = 0;  // ranks that ran on a CPU for less than half their time outside I/O
  // One rank's "cpu" object: `online` CPUs seen on `host`, `used_s` on a CPU, `busy_s` its time
  // outside I/O (wall - io).
  // `run_delay_s`: the rank's time waiting for a CPU while runnable (negative: not in the record).
  void add_rank(const std::string& host, std::int64_t online, double used_s, double busy_s, double run_delay_s = -1);
};
struct MeasureTotals {
  std::map<std::string, IoClassTotal> io;
  std::map<std::string, std::vector<std::uint64_t>> sizes;
  std::vector<PartnerPair> top;  // the kTopPairs largest by bytes, largest first
  std::uint64_t other_bytes = 0, other_messages = 0;
  std::map<std::string, RegionTotal> regions;
  std::uint64_t truncated = 0;
  CpuTotals cpu;
  MemoryTotals memory;  // ranks[].memory
  bool any = false;  // the record has any of these fields
};

struct RunScan {
  record::RunRecord header;  // every top-level section; `ranks` stays empty
  std::vector<RankRow> rows;  // in file order
  std::vector<std::string> names;  // interned event sets and statuses
  std::vector<std::string> counter_names;
  std::vector<std::pair<std::uint32_t, double>> counters;  // (index into counter_names, value)
  std::vector<CallTotal> calls;  // first-seen order
  std::vector<IoCallTotal> io_calls;  // first-seen order
  std::map<std::string, CounterTotal> counter_totals;
  MeasureTotals measure;
  // The whole rank of a row, as record::rank_from_json reads it (for the few ranks shown in full).
  std::function<record::RankRecord(const RankRow&)> rank_detail;
  // The rank object of a row as JSON, measurement fields included (the tidy partner, message-size
  // and region tables read them one rank at a time).
  std::function<nlohmann::json(const RankRow&)> rank_json;
};

// Reads and validates the record at `path` in one pass. Accepts and refuses exactly what
// record::load_run_record does (any doubt is settled by that reader, whose InputError names the
// file and field); malformed measurement fields (io, msg_sizes, partners, regions) are refused
// with the rank and field named.
RunScan scan_run_record(const std::string& path);
// The same with the size up to which a doubt is settled by the careful reader (default 128 MiB;
// above it the scan's own message names the file, the rank and the field). Tests pass 0.
RunScan scan_run_record(const std::string& path, std::size_t careful_limit);
// The same for the bytes of a record already read (`source` names it in messages).
RunScan scan_run_record_text(std::string text, const std::string& source,
                             std::size_t careful_limit = std::size_t{128} << 20);
// The same for a record already in memory (tests, the HTML and JSON paths).
RunScan scan_of(const record::RunRecord& rec);
// Only the measurement fields, from the ranks of the record text `padded` (capacity at least
// 64 bytes beyond its size; a file that need not be a complete run record). InputError names
// `file` when they cannot be read.
MeasureTotals measure_only(const std::string& padded, const std::string& file);
// The per-rank counters of row i as a map (Top-Down, per-rank counter tables).
std::map<std::string, double> counters_of(const RunScan& scan, std::size_t i);

}  // namespace hpcsens::report
