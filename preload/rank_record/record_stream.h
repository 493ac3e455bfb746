#pragma once
// Writing a run record rank by rank, so that neither rank 0's memory nor any int offset grows
// with the job: each rank's JSON text is appended to a private temporary file (safe_file) as it
// arrives and forgotten; only a fixed summary per rank (clocks, wall, compute: 56 bytes) stays
// for the job-level timing and imbalance written after the ranks. The file is moved, when
// complete, to a fresh name "<run_id>.<random>.json" that replaces nothing (so a reader never sees
// half a record and a name planted in a shared directory cannot take its place).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/safe_file.h"
#include "mpi/imbalance.h"
#include "mpi/timing_bounds.h"
#include "preload/rank_record/rank_report.h"

namespace hpcsens::preload {

// What rank 0 needs of each rank besides its text; fixed size, so it travels as bytes.
struct RankHeader {
  std::int32_t rank = 0;
  std::int32_t complete = 1;
  double t0 = 0, t1 = 0, t2 = 0, t3 = 0, wall_s = 0, compute_s = 0;
  std::uint64_t text_bytes = 0;
  // Losses this rank counted (said once, summed, in the record's "preload" notes).
  std::uint64_t untracked_files = 0, region_drops = 0, truncated = 0, recv_fallbacks = 0,
                persistent_drops = 0;
  char host[256] = {};             // truncated if longer (the full name is in the text)
  char counters_status[256] = {};  // likewise
};

RankHeader header_of(const record::RankRecord& r, std::uint64_t text_bytes);

class RecordStream {
 public:
  // Creates the temporary in out_dir (created if missing; every component checked).
  std::string open(const std::string& out_dir, const std::string& run_id);
  // Appends one rank's JSON object text; ranks must come in rank order.
  std::string add(const RankHeader& h, std::string_view text);
  // Writes the job, timing and imbalance sections and moves the file to its fresh name.
  std::string finish(const JobInfo& job, const nlohmann::json& extra);
  // After finish(): the path written.
  const std::string& path() const { return path_; }
  std::size_t ranks() const { return clocks_.size(); }
  // After finish(): the job-level sections written (job, timing, imbalance; no ranks).
  const record::RunRecord& summary() const { return run_; }
  // Sums of the ranks' drop counters: {"untracked_files", "region_errors", "truncated_ranks",
  // "recv_posted_size", "persistent_untracked"}.
  nlohmann::json drops() const;

 private:
  record::RunRecord run_;
  safe_file::Dir dir_;
  safe_file::AtomicFile file_;
  std::string path_, run_id_;
  std::vector<mpi::RankClock> clocks_;
  std::vector<mpi::RankTimes> times_;
  std::vector<std::string> hosts_;  // first-seen order
  std::unordered_set<std::string> seen_hosts_;
  bool all_complete_ = true;
  CountersStatusOf status_;
  std::uint64_t untracked_files_ = 0, region_drops_ = 0, truncated_ = 0, recv_fallbacks_ = 0,
                persistent_drops_ = 0;
};

}  // namespace hpcsens::preload
