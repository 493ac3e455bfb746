#include "run/job_control.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "run/run_job.h"

namespace hpcsens::run {
namespace {

// The job's process group, for the signal handler (async-signal-safe access only).
volatile sig_atomic_t g_job_pgid = 0;

void forward_signal(int sig) {
  if (g_job_pgid > 0) ::kill(-static_cast<pid_t>(g_job_pgid), sig);
}

// Ctrl-Z stops the job (it owns the terminal), which the shell cannot see: stop ourselves too,
// so the shell regains the terminal, and on `fg` hand it back and continue the job.
void follow_job_stop(pid_t pid, bool interactive) {
  if (!interactive) return;
  give_terminal_to(::getpgrp());
  ::raise(SIGTSTP);
  give_terminal_to(pid);
  ::kill(-pid, SIGCONT);
}

}  // namespace

SignalForwarding::SignalForwarding() {
  struct sigaction sa = {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &sa, &old[i]);
}

SignalForwarding::~SignalForwarding() {
  for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &old[i], nullptr);
  g_job_pgid = 0;
}

void set_forward_target(pid_t pgid) { g_job_pgid = pgid; }

void give_terminal_to(pid_t pgid) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTTOU);
  sigprocmask(SIG_BLOCK, &block, &old);
  ::tcsetpgrp(STDIN_FILENO, pgid);
  sigprocmask(SIG_SETMASK, &old, nullptr);
}

// Waits for the job; after `timeout_s` sends SIGTERM to its group, then SIGKILL 5 s later.
int wait_for(pid_t pid, double timeout_s, bool interactive, bool* timed_out, int* raw_status) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto kill_at = clock::time_point::max();
  bool termed = false;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WUNTRACED | (timeout_s > 0 ? WNOHANG : 0));
    if (r == pid && WIFSTOPPED(status)) {
      follow_job_stop(pid, interactive);
      continue;
    }
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return 127;
    if (timeout_s <= 0) continue;
    const auto now = clock::now();
    if (!termed && now - start >= std::chrono::duration<double>(timeout_s)) {
      *timed_out = true;
      termed = true;
      ::kill(-pid, SIGTERM);
      kill_at = now + std::chrono::seconds(5);
    } else if (termed && now >= kill_at) {
      ::kill(-pid, SIGKILL);
      kill_at = clock::time_point::max();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (*timed_out) ::kill(-pid, SIGKILL);  // leftovers of a job we had to stop
  *raw_status = status;
  return exit_status_of(status);
}

}  // namespace hpcsens::run
