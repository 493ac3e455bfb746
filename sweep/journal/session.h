#pragma once
// A sweep's hold on its output directory: the directory opened and checked once (owner, mode,
// no symlink), its lock held for the sweep's whole life, the journal read and replayed, and on
// --resume the checks that make continuing safe (same plan, no process of the previous attempt
// alive, records that the journal calls done still readable).
#include <string>
#include <utility>
#include <vector>

#include "common/safe_file.h"
#include "sweep/journal/journal.h"
#include "sweep/journal/locks.h"
#include "sweep/spec/plan.h"
#include "sweep/spec/spec.h"

namespace hpcsens::sweep {

struct Session {
  std::string dir;  // as the user gave it, for messages
  std::string abs_dir;
  safe_file::Dir fd;
  FileLock lock;
  JournalState state;
  bool resumed = false;
  std::vector<std::pair<std::string, std::string>> lost;  // run id, why its record is unusable
  safe_file::Dir records;   // records/<run id>.json
  std::string attempts;     // where the run module writes attempt records
};

// The directory's checks and lock alone (--restore, per-node apply). Creates it when `create`.
// Throws InputError naming the directory and the problem.
Session lock_directory(const std::string& dir, bool create);

// `--restore` of a directory with no journal of its own (journal_file() is kMissing or kForeign,
// `why` says what is there): that sweep saved no knob value and so changed none; every
// machine-wide lock still naming it is marked clean (a lock a live sweep holds is left), and said.
// Returns the exit status (0 when a lock was cleared); throws InputError when no lock names it,
// and for kUntrusted (another user's regular file: not evidence either way), saying what to do.
int restore_without_journal(const std::string& dir, JournalFile kind, const std::string& why);

// Starts (resume false: the directory must hold no journal) or resumes (the journal's plan
// must equal `plan`) the sweep in `dir`. `retry_skipped` makes runs skipped after their
// retries pending again.
Session open_session(const std::string& dir, const Plan& plan, bool resume, bool retry_skipped);

// Writes the header (new sweep) or "resumed" line, and a "lost" line per lost record.
// saves_knobs: this sweep changes knobs on this machine and so saves their values first (the
// header says so, for a restore that finds the saved values damaged).
void journal_start(Session& s, Journal& j, const SweepSpec& spec, const Plan& plan, bool saves_knobs);

// Processes (other than us) whose environment carries HPCSENS_SWEEP_TOKEN=<token>.
std::vector<int> processes_of_sweep(const std::string& token);

// What an earlier attempt of the sweep left running (its jobs, calibrators and run modules),
// sorted: --resume refuses while any lives.
std::vector<int> previous_processes(const JournalState& st);
// Ends them (--restore after a sweep was killed: its job, in its own process group, outlives it
// and would run on at settings no longer applied): SIGTERM, up to `grace_s` seconds for them to
// go, then SIGKILL to those still found. Returns the pids it signalled.
std::vector<int> end_previous_processes(const JournalState& st, double grace_s);

inline constexpr const char* kTokenVariable = "HPCSENS_SWEEP_TOKEN";

}  // namespace hpcsens::sweep
