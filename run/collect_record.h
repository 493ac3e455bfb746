#pragma once
// After the job: find the run record the preload wrote, or assemble an incomplete one from the
// per-rank partial files that ranks leave when they never reach MPI_Finalize.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::run {

// What the CLI knows about the job independently of the preload (used when assembling).
struct JobFacts {
  std::vector<std::string> command;
  std::string launcher;
  std::string start_utc;
};

struct Collected {
  std::string record_path;  // empty when nothing was found
  bool complete = false;    // false: assembled from partial rank files
  int partial_ranks = 0;    // how many partial rank files went into the record
  std::string error;        // why there is no record (or why it could not be updated)
  bool no_ranks = false;    // neither a record nor any partial rank file exists
};

// Waits (3 s at most) until the partial files of a run without a full record stop changing:
// the launcher can exit while ranks it tears down are still writing them.
void settle_partial_files(const std::string& out_dir, const std::string& run_id);

// Partial files of this run: "<out_dir>/<run_id>.rank<N>.partial.json", sorted by name.
std::vector<std::string> partial_rank_files(const std::string& out_dir, const std::string& run_id);

// Name of the note the preload leaves when it cannot write the record ("<run_id>.write-error"):
// one line, the file and the cause. Small, so it often fits where the record did not.
std::string write_error_note_name(const std::string& run_id);

// Why no record can have been written into out_dir, naming <out_dir>/<run_id>.json and the cause:
// the preload's note, a full file system (statvfs) or a failing probe write (EIO, EROFS).
// Empty when writing there works.
std::string record_write_problem(const std::string& out_dir, const std::string& run_id);

// Looks for <out_dir>/<run_id>.json; if absent, assembles it from the partial files (marked
// complete=false, partial files removed afterwards). `config` is merged into the record's
// config (its keys win) and the file is rewritten atomically, keeping every other key as is.
Collected collect_record(const std::string& out_dir, const std::string& run_id, const JobFacts& facts,
                         const nlohmann::json& config);

}  // namespace hpcsens::run
