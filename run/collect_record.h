#pragma once
// After the job: find the run record the preload wrote, or assemble an incomplete one from the
// per-rank partial files that ranks leave when they never reach MPI_Finalize.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hpcsens::run {

// What the CLI knows about the job independently of the preload (used when assembling).
struct JobFacts {
  std::vector<std::string> command;
  std::string launcher;
  std::string start_utc;  // HPCSENS_START_UTC as handed to the ranks: a record naming another is not ours
  std::set<std::string> earlier;  // files of the run id that were there before the job (earlier_run_files)
  // Top-level sections hpcsens run measured itself (`energy`), set in the record as they are.
  nlohmann::json sections = nlohmann::json::object();
  // Last change to the record before it is written (RunRequest::name_sites); may be empty.
  std::function<void(nlohmann::json&)> enrich;
};

struct Collected {
  std::string record_path;  // empty when nothing was found
  bool complete = false;    // false: assembled from partial rank files
  int partial_ranks = 0;    // how many partial rank files went into the record
  int lost_ranks = 0;       // ranks of the job (MPI_Comm_size) that left no partial file
  std::string error;        // why there is no record (or why it could not be updated)
  bool no_ranks = false;    // neither a record nor any partial rank file exists
  bool write_failed = false;  // ranks reported, but the assembled record could not be written
};

// Waits (3 s at most) until the partial files of a run without a full record stop changing:
// the launcher can exit while ranks it tears down are still writing them.
void settle_partial_files(const std::string& out_dir, const std::string& run_id,
                          const std::set<std::string>& earlier = {});

// Partial files of this run: "<out_dir>/<run_id>.rank<N>.<random>.partial.json" that are ours
// (run/run_files.h), sorted by name.
std::vector<std::string> partial_rank_files(const std::string& out_dir, const std::string& run_id,
                                            const std::set<std::string>& earlier = {});

// Why no record can have been written into out_dir, naming the record and the cause: the
// preload's note ("<run_id>.<random>.write-error": one line, the file and the cause; small, so it
// often fits where the record did not; removed once read), a full file system (statvfs) or a
// failing probe write (EIO, EROFS). Empty when writing there works.
std::string record_write_problem(const std::string& out_dir, const std::string& run_id,
                                 const std::set<std::string>& earlier = {});

// Looks for the run's record (<out_dir>/<run_id>.<random>.json, ours, not one of facts.earlier,
// and naming facts.start_utc when that is given: an earlier job's record under a reused id is
// never taken for this one's); if absent, assembles one
// from the partial files (marked complete=false, written under a fresh name, partial files removed
// afterwards). `config` is merged into the record's config (its keys win) and the file is
// rewritten atomically, keeping every other key as is.
Collected collect_record(const std::string& out_dir, const std::string& run_id, const JobFacts& facts,
                         const nlohmann::json& config);

}  // namespace hpcsens::run
