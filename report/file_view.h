#pragma once
// Per-file I/O of a run record (ranks[].files, docs/record-format.md), Darshan's job view: read and
// checked, merged over ranks by (path, interface) with the ranks that touched each file (shared or
// unique) and the slowest rank's time. Text, tidy CSV and the HTML section.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/table.h"

namespace hpcsens::report {

inline constexpr std::size_t kFileSizeBuckets = 10;

// The counters of one file (one rank's, or summed over ranks).
struct FileCounts {
  // meta: opens, closes, seeks, MPI-IO's other calls; sync: fsync, fdatasync, fflush,
  // MPI_File_sync (records before sync_s counted those in meta).
  std::uint64_t opens = 0, reads = 0, writes = 0, meta_ops = 0, syncs = 0, bytes_read = 0, bytes_written = 0;
  std::uint64_t consecutive = 0, sequential = 0, random = 0;
  double read_s = 0, write_s = 0, meta_s = 0, sync_s = 0;
  std::array<std::uint64_t, kFileSizeBuckets> read_sizes{}, write_sizes{};
  double seconds() const { return read_s + write_s + meta_s + sync_s; }
  void add(const FileCounts& o);
};

struct RankFile {
  int rank = 0;
  std::string path;  // as the record holds it: encoded losslessly (common/text_escape.h)
  std::string api;   // posix, stdio, mpiio: the interface of the calls counted (not of the open)
  FileCounts counts;
  double first_open_s = -1, last_io_s = 0;  // first_open_s < 0: no open counted
};

struct RankFiles {
  std::vector<RankFile> files;
  std::uint64_t dropped = 0;     // files_dropped summed over ranks
  int ranks_with_drops = 0;
  bool any = false;              // some rank has a `files` array
};

// Every rank's files. InputError names `file`, the rank and the field of a malformed entry.
RankFiles files_of(const nlohmann::json& raw_ranks, const std::string& file);

// One (path, interface) over all ranks.
struct FileSummary {
  std::string path, api;
  FileCounts counts;
  std::vector<int> ranks;  // ascending
  double slowest_s = 0;    // the most I/O time one rank spent on it
  int slowest_rank = -1;
  bool shared() const { return ranks.size() > 1; }
};
// Merged by (path, interface), most I/O time first (then by path).
std::vector<FileSummary> summarize_files(const std::vector<RankFile>& files);

// "Files by I/O time": the top `top` files (title empty when there are none), one row per file and
// interface called, its time split into read, write, sync and meta (open, close, seek) columns.
// `compact`: the columns a 120-column terminal holds (no slowest rank, call counts, access order).
// The read (write) columns are left out when no listed file was read (written).
Table file_table(const std::vector<FileSummary>& files, std::size_t top, std::uint64_t dropped, bool compact = false);
// The table rendered with a line on drops; "" when no rank has a `files` array.
std::string files_text(const RankFiles& files, Format format);
// `--format csv --table files`: one row per rank x file x interface.
std::string files_csv(const RankFiles& files);
// The HTML section (null when no rank has a `files` array).
nlohmann::json files_html_section(const RankFiles& files);

}  // namespace hpcsens::report
