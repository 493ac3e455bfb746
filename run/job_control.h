#pragma once
// Job control for `hpcsens run`: stop signals forwarded to the job's process group, the
// terminal handed to an interactive job and back, and waiting with a timeout.
#include <signal.h>
#include <sys/types.h>

namespace hpcsens::run {

// While alive, SIGINT/SIGTERM/SIGHUP/SIGQUIT go to the group set by set_forward_target.
struct SignalForwarding {
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  struct sigaction old[4] = {};
  SignalForwarding();
  ~SignalForwarding();
};

// The job's process group (async-signal-safe store).
void set_forward_target(pid_t pgid);

void give_terminal_to(pid_t pgid);

// Waits for the job; after `timeout_s` (> 0) sends SIGTERM to its group, then SIGKILL 5 s
// later. Returns the job's exit status as the shell would report it.
int wait_for(pid_t pid, double timeout_s, bool interactive, bool* timed_out, int* raw_status);

}  // namespace hpcsens::run
