#pragma once
// A process named so that it cannot be confused with a later one that reuses its pid: the pid,
// its start time in clock ticks after boot (/proc/<pid>/stat field 22) and the boot's id. The
// sweep journals the identity of every run module it forks (a fork, not an exec, so it does not
// carry the sweep token in /proc/<pid>/environ), and --resume refuses while one of them lives.
#include <string>

namespace hpcsens::sweep {

struct ProcessIdentity {
  int pid = 0;
  unsigned long long start_ticks = 0;
  std::string boot_id;
};

// Field 22 of a /proc/<pid>/stat line (the comm field may hold blanks and parentheses, so the
// fields are counted after its last ')'). False when the line has no such field. Pure.
bool start_ticks_of_stat(const std::string& stat_line, unsigned long long* ticks);

// /proc/sys/kernel/random/boot_id, or "" when unreadable.
std::string current_boot_id();

// The identity of `pid` now; pid 0 when it does not exist.
ProcessIdentity identify_process(int pid);

// True when the process `id` names still exists (same pid, same start time, same boot). A
// zombie counts as gone: it runs nothing.
bool still_running(const ProcessIdentity& id);

}  // namespace hpcsens::sweep
