#pragma once
// Job control for `hpcsens run`: stop signals forwarded to the job's process group, the
// terminal handed to an interactive job and back, and waiting with a timeout.
#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "mpi/launcher.h"

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

// Forks the job into its own process group (so a timeout can end the whole tree) with `env_vars`
// added to our environment, hands it the terminal when we have it (a launcher reading stdin in a
// background group would be stopped), and returns its pid, or -1 with *why. A failed exec is
// reported in *why too (the child then exits 127 or 126, like a shell).
pid_t spawn(const std::vector<std::string>& argv, const std::vector<mpi::EnvVar>& env_vars,
            bool* took_terminal, std::string* why);

// Waits for the job; after `timeout_s` (> 0) sends SIGTERM to its group, then SIGKILL 5 s
// later. Returns the job's exit status as the shell would report it.
int wait_for(pid_t pid, double timeout_s, bool interactive, bool* timed_out, int* raw_status);

}  // namespace hpcsens::run
