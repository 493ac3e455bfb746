#pragma once
// The machine side of a sweep: the machine-wide lock, the original knob values saved to the
// journal before the first change, each point's knobs applied, and everything put back.
#include <string>

#include "sweep/journal/journal.h"
#include "sweep/knobs/knobs.h"
#include "sweep/journal/locks.h"
#include "sweep/knobs/restore.h"
#include "sweep/journal/session.h"
#include "sweep/execute/sweep_options.h"

namespace hpcsens::sweep {

class Machine {
 public:
  // Takes the machine-wide lock when the sweep changes knobs (refused while another sweep, or
  // a dead one's unrestored knobs, holds the machine).
  Machine(const SweepSpec& spec, const KnobSet& knobs, const SweepOptions& opt, Session& session);
  // Journals every original value before the first change (once per sweep, across resumes:
  // after a kill -9 the current values may be the sweep's own).
  void save_originals(Journal& journal);
  // Makes `p` the machine's state (manual step, "apply" line, knobs) unless it already is.
  void enter(const Point& p, Journal& journal);
  void forget_point() { current_ = -1; }
  // Puts every saved value back when a knob was changed; says so. False when a restore failed.
  bool restore(Journal& journal);
  bool emulated() const { return emulated_; }

 private:
  void apply_or_undo(const Point& p);
  void enter_group(const Point& p, Journal& journal);
  void leave_group(Journal& journal);
  void join_local_group(const Point& p);
  const SweepSpec& spec_;
  const KnobSet& knobs_;
  const SweepOptions& opt_;
  Session& session_;
  FileLock lock_;
  SysfsIo& io_ = machine_sysfs();
  bool emulated_;
  int nnodes_;
  int current_ = -1;
  int current_memory_ = -1;
  std::string resctrl_root_;  // "" when no point has a resctrl group
};

// Restores what a journal saved: files (each checked against the recorded root), backend
// restore actions rebuilt by name, the per-node restore, the resctrl groups it names (each
// checked to be this sweep's; "resctrl_removed" journalled for each one removed). Appends "restored" to `journal` when
// it can (a full disk must not stop the restore). For the sweep's end and --restore.
RestoreResult restore_journalled(const JournalState& st, Journal& journal, const std::string& abs_dir);

// Prints the outcome of a restore (summary, each failure).
void print_restore(const RestoreResult& r);

}  // namespace hpcsens::sweep
