#pragma once
// Child processes the sweep starts itself (calibrator, knob tools, fit): run, optionally capture
// stdout, bound by a timeout and by the sweep's stop flag. Each child gets its own process group
// so the whole tree (mpirun and its ranks) can be ended together.
#include <csignal>
#include <string>
#include <vector>

namespace hpcsens::sweep {

struct ChildResult {
  int exit_status = -1;  // 128 + signal when killed by one; -1 when it could not be started
  bool timed_out = false;
  bool stopped = false;  // ended because the sweep was asked to stop
  std::string out;       // captured stdout (when capture was asked)
  std::string error;     // why it could not be started
};

ChildResult run_child(const std::vector<std::string>& argv, double timeout_s, bool capture_stdout,
                      const volatile std::sig_atomic_t* stop_flag);

// Sends `sig` to every process descended from `root` (not to root itself). Used to end a job
// started by another module when the sweep receives SIGINT/SIGTERM/SIGHUP.
int signal_descendants(int root, int sig);

}  // namespace hpcsens::sweep
