#include "run/job_control.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "run/run_job.h"

extern char** environ;

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

namespace {

std::vector<std::string> environment_with(const std::vector<mpi::EnvVar>& vars) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& v : vars)
      replaced = replaced || (entry.size() > v.name.size() && entry.substr(0, v.name.size()) == v.name &&
                              entry[v.name.size()] == '=');
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& v : vars) env.push_back(v.name + "=" + v.value);
  return env;
}

}  // namespace

pid_t spawn(const std::vector<std::string>& argv, const std::vector<mpi::EnvVar>& env_vars,
            bool* took_terminal, std::string* why) {
  std::vector<std::string> env = environment_with(env_vars);
  std::vector<char*> cargv, cenv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  *took_terminal = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    *why = std::strerror(errno);
    return -1;
  }
  // A stop signal arriving between fork and g_job_pgid being set would be forwarded to no one
  // and the job would outlive us (e.g. the sweep's PR_SET_PDEATHSIG): hold them until it is set.
  sigset_t forwarded, before;
  sigemptyset(&forwarded);
  for (int s : SignalForwarding::kSignals) sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, &before);
  const pid_t pid = ::fork();
  if (pid < 0) {
    *why = std::strerror(errno);
    sigprocmask(SIG_SETMASK, &before, nullptr);
    return -1;
  }
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, &before, nullptr);
    ::setpgid(0, 0);
    if (*took_terminal) {
      sigset_t block, old;
      sigemptyset(&block);
      sigaddset(&block, SIGTTOU);
      sigprocmask(SIG_BLOCK, &block, &old);
      ::tcsetpgrp(STDIN_FILENO, ::getpid());
      sigprocmask(SIG_SETMASK, &old, nullptr);
    }
    for (int s : SignalForwarding::kSignals) ::signal(s, SIG_DFL);
    ::execvpe(cargv[0], cargv.data(), cenv.data());
    const int e = errno;
    (void)!::write(err_pipe[1], &e, sizeof e);
    ::_exit(e == ENOENT ? 127 : 126);
  }
  ::setpgid(pid, pid);  // also in the parent: no race with the signal forwarding below
  set_forward_target(pid);
  sigprocmask(SIG_SETMASK, &before, nullptr);
  ::close(err_pipe[1]);
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(err_pipe[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  ::close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno))
    *why = fmt::format("cannot execute '{}': {}", argv[0], std::strerror(child_errno));
  return pid;
}

}  // namespace hpcsens::run
