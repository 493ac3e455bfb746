#pragma once
// Exclusive locks that keep two sweeps apart: one on the sweep directory for the sweep's whole
// life (start, --resume, --restore), and a machine-wide one, keyed by sysfs root, for sweeps
// that change machine knobs. Both are flock()s on files that also say who holds them, so a
// refusal names the holder; the kernel drops them when the holder dies.
#include <string>
#include <vector>

#include "common/safe_file.h"

namespace hpcsens::sweep {

class FileLock {
 public:
  FileLock() = default;
  FileLock(FileLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  ~FileLock();
  bool held() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // What the previous holder wrote (read when we took the lock).
  std::string previous;
  // Replaces the file's content (who holds it, and what for).
  void note(const std::string& text) const;

 private:
  friend FileLock take_lock(const safe_file::Dir&, const std::string&, const std::string&, std::string*);
  int fd_ = -1;
  std::string path_;
};

// Every lock this process holds: a forked child that runs on (the run module's parent of the
// job) closes them, so a job that outlives a kill -9 of the sweep does not keep them.
const std::vector<int>& held_lock_fds();

// Takes an exclusive flock on dir/name (created 0600, never through a symlink). When another
// process holds it: with `busy_note`, returns a lock that is not held and the holder's note in
// *busy_note; without, throws InputError("<what>", "... held by pid N ...").
FileLock take_lock(const safe_file::Dir& dir, const std::string& name, const std::string& what,
                   std::string* busy_note = nullptr);

// The sweep directory's lock (file .hpcsens-sweep.lock in it). Notes our pid.
FileLock lock_sweep_dir(const safe_file::Dir& dir);

// Where machine-wide locks live: $HPCSENS_LOCK_DIR (tests), else /run/hpcsens.
std::string machine_lock_dir();

// Who a sweep is: its directory (absolute) and its token (journal header, HPCSENS_SWEEP_TOKEN).
struct SweepIdentity {
  std::string dir;
  std::string token;
};

// The machine-wide lock for knobs under `sysfs_root`, taken for sweep `who`. Refused while
// another sweep holds it, and while the lock's note names another sweep whose journal still has
// knobs changed: a dead sweep (until `hpcsens sweep --restore` there), or a multi-node sweep
// whose node task changed this node's knobs and ended (that sweep may still run elsewhere).
FileLock lock_machine(const std::string& sysfs_root, const SweepIdentity& who);

// One node's part of a multi-node sweep (`--apply-point`): this node's machine-wide lock for
// `who`. Where the lock is held by our own sweep (its controller runs on this node) the task
// goes on without it (the returned lock is not held); another sweep's lock, live or left with
// knobs changed, refuses the task before it changes anything. Otherwise the lock is taken and
// noted as ours: when the task ends the note stays, and marks the node's knobs as this sweep's
// until its journal says they are restored.
FileLock lock_node_for_sweep(const std::string& sysfs_root, const SweepIdentity& who);

// Marks the machine lock clean (knobs restored): a later sweep need not look at our journal.
void release_machine(FileLock& lock);

// For `--restore` of a sweep that left no journal of its own (it died before writing one, or
// another user planted a file under its name), so it changed no knob: marks clean every
// machine-wide lock whose note names the sweep directory `abs_dir`, returning their paths. A lock
// still held by a live process, or a lock file that cannot be used, is left and said in *busy.
std::vector<std::string> clear_machine_locks_of(const std::string& abs_dir, std::vector<std::string>* busy);

}  // namespace hpcsens::sweep
