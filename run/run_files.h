#pragma once
// The files one run leaves in its output directory, found by pattern rather than by a fixed
// name: the preload writes each under a fresh random name (common/safe_file commit_unique), so a
// name another user planted in a shared directory (a directory called RUNID.json, a link) can
// neither take the record's place nor be mistaken for it. Only regular files owned by us with one
// link count (docs/record-format.md, "File names").
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/safe_file.h"

namespace hpcsens::run {

enum class RunFile {
  kRecord,   // <run_id>.<16 hex>.json
  kPartial,  // <run_id>.rank<N>.<16 hex>.partial.json
  kNote,     // <run_id>.<16 hex>.write-error
};

// Whether `name` is a file of this kind for run_id. Pure.
bool is_run_file(std::string_view name, std::string_view run_id, RunFile kind);

// Names of this run's files of one kind in `dir` (regular, ours, one link), sorted by name,
// leaving out `earlier` (earlier_run_files).
std::vector<std::string> run_files(const safe_file::Dir& dir, const std::string& run_id, RunFile kind,
                                   const std::set<std::string>& earlier = {});

// The run's record in `dir`: the newest matching file's name not in `earlier`, or "".
std::string find_record_name(const safe_file::Dir& dir, const std::string& run_id,
                             const std::set<std::string>& earlier = {});

// Every file of run_id in `dir` now (records, partial files, notes), taken before the job starts:
// an id used before (HPCSENS_RUN_ID set again, a resumed sweep's attempt) must not hand this run
// an earlier job's record or partial files as its own.
std::set<std::string> earlier_run_files(const safe_file::Dir& dir, const std::string& run_id);

// One run per id and directory at a time: an exclusive flock on "<dir>/.<run_id>.run-lock" (opened
// as every file in a shared directory is: safe_file::open_private), removed when released. Two
// runs sharing an id at once could not tell their records apart.
class RunIdLock {
 public:
  RunIdLock() = default;
  RunIdLock(const RunIdLock&) = delete;
  RunIdLock& operator=(const RunIdLock&) = delete;
  ~RunIdLock() { release(); }
  // "" when taken; else why not: another run holds it (*busy set), or the file cannot be used
  // (another user's file planted under its name in a shared directory: then the run goes on
  // without the lock rather than let anyone who can guess an id stop it).
  std::string take(const safe_file::Dir& dir, const std::string& run_id, bool* busy);
  void release() noexcept;

 private:
  int dir_fd_ = -1, fd_ = -1;
  std::string name_;
};

}  // namespace hpcsens::run
