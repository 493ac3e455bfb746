#pragma once
// The sweep's append-only journal (JSON lines, fsync after each) in the output directory. It is
// the single source of truth for --resume (which runs are done) and --restore (the knob values
// saved before the first change), so it is written before the action it protects. It records
// WHAT to restore (files under the recorded sysfs root, restore actions by name), never a
// command: nothing read from it is executed.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/safe_file.h"
#include "sweep/process/process_identity.h"
#include "sweep/knobs/sysfs_io.h"

namespace hpcsens::sweep {

inline constexpr const char* kJournalName = "journal.jsonl";
inline constexpr std::size_t kMaxJournalBytes = 64u << 20;

class Journal {
 public:
  // Opens <dir>/journal.jsonl for appending (created when missing) through the checked
  // directory: a symlink, hard link or another user's file is refused. Throws runtime_error.
  explicit Journal(const safe_file::Dir& dir);
  explicit Journal(const std::string& dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  // One line, then fsync: after a crash the line is either whole or absent. Throws
  // runtime_error naming the file and the cause (e.g. "No space left on device").
  void append(const nlohmann::json& entry);
  const std::string& path() const { return path_; }

 private:
  void open(const safe_file::Dir& dir);
  std::string path_;
  int fd_ = -1;
};

// The parsed lines of a journal with their line numbers, and how many did not parse.
struct JournalLines {
  std::string path;
  std::vector<std::pair<int, nlohmann::json>> lines;
  int unparsable = 0;      // lines that are not a JSON object, anywhere in the file
  bool torn_tail = false;  // the last line is one of them (a crash mid-write)
  int first_unparsable = 0;  // the line number of the first one (0: none)
};

// What a journal says, replayed line by line.
struct JournalState {
  std::optional<nlohmann::json> header;
  std::string token;  // the sweep's identity, inherited by every process it starts
  bool has_originals = false;
  std::string sysfs_root;                  // the saved files lie under it
  std::vector<FileWrite> originals;        // sysfs files and their original values
  std::vector<std::string> restore_actions;  // backend restore actions, by name
  int per_node_nnodes = 0;                 // > 0: each node keeps its own originals
  std::vector<std::vector<std::string>> unrun_commands;  // an old journal's commands: never run
  bool knobs_dirty = false;       // a knob was changed after the last restore
  // resctrl groups the sweep created and has not removed yet (memory_backend: resctrl), under
  // resctrl_root; removed by every restore.
  std::string resctrl_root;
  std::vector<std::string> resctrl_groups;
  std::set<std::string> done;     // runs that produced a record
  std::set<std::string> skipped;  // runs that failed every attempt
  std::map<std::string, int> failed_attempts;
  bool finished = false;
  int unparsable = 0;
  int unparsable_inner = 0;    // unparsable lines other than a torn last line (file damage)
  int first_unparsable = 0;    // line number of the first unparsable line
  // The run modules the sweep forked (one per attempt): --resume refuses while one lives.
  std::vector<ProcessIdentity> children;
};

// Reads <dir>/journal.jsonl through the checked directory: it must be a regular file owned by
// this user, not writable by group or others, at most kMaxJournalBytes. Throws InputError.
JournalLines read_journal(const safe_file::Dir& dir);
// For tests and the per-node journals: opens `path`'s directory first.
JournalLines read_journal_lines(const std::string& path);

// What a sweep directory holds under the journal's name. A sweep writes its journal only into a
// regular file of its own with one link (it refuses anything else before the first line), and in
// a directory it accepts nobody else can replace its file or turn it into another type. So
// kForeign (not a regular file: a FIFO, a symlink, a device) and kMissing both mean: no knob value
// was ever saved there, and since values are saved before the first change, that sweep changed no
// knob. kUntrusted (a regular file of another user, or with several links: another user may have
// linked the real one) says nothing either way, and is not read.
enum class JournalFile { kMissing, kForeign, kUntrusted, kOurs };
// *why: for kForeign and kUntrusted, what the file is ("<path>: is a FIFO (named pipe), ...").
JournalFile journal_file(const safe_file::Dir& dir, std::string* why);

// Throws InputError("<journal>:<line>", "<field>: ...") for a line with a wrong type.
JournalState replay_journal(const JournalLines& lines);
JournalState replay_journal(const std::vector<nlohmann::json>& lines);

// True when a sweep that saves knob values has damaged lines and no readable saved values: the
// values to restore may be in a damaged line, so nobody can say what to put back. (A torn last
// line alone is a crash mid-write: values are saved before the first change, so a torn save
// means nothing was changed; a readable header saying the sweep saves no values settles it too.)
bool saved_values_lost(const JournalState& s);

// "2 lines of <path> are not valid JSON and were ignored" or "" when none.
std::string unparsable_warning(const JournalLines& lines);

}  // namespace hpcsens::sweep
