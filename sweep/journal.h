#pragma once
// The sweep's append-only journal (JSON lines, fsync after each) in the output directory. It is
// the single source of truth for --resume (which runs are done) and --restore (the knob values
// saved before the first change), so it is written before the action it protects.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sysfs_io.h"

namespace hpcsens::sweep {

inline constexpr const char* kJournalName = "journal.jsonl";

class Journal {
 public:
  // Opens <dir>/journal.jsonl for appending (created when missing). Throws std::runtime_error.
  explicit Journal(const std::string& dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  // One line, then fsync: after a crash the line is either whole or absent.
  void append(const nlohmann::json& entry);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// What a journal says, replayed line by line. A torn last line (crash mid-write) is ignored.
struct JournalState {
  std::optional<nlohmann::json> header;
  bool has_originals = false;
  std::vector<FileWrite> originals;                  // sysfs files and their original values
  std::vector<std::vector<std::string>> restore_commands;  // knob tools restored by command
  bool knobs_dirty = false;       // a knob was changed after the last restore
  std::set<std::string> done;     // runs that produced a record
  std::set<std::string> skipped;  // runs that failed every attempt
  std::map<std::string, int> failed_attempts;
  bool finished = false;
};

// Throws std::runtime_error when the file cannot be read.
std::vector<nlohmann::json> read_journal_lines(const std::string& path);
JournalState replay_journal(const std::vector<nlohmann::json>& lines);

}  // namespace hpcsens::sweep
