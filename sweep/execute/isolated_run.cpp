#include "sweep/execute/isolated_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "sweep/journal/locks.h"
#include "sweep/knobs/resctrl_fs.h"
#include "sweep/process/stop.h"
#include "sweep/process/subprocess.h"

namespace hpcsens::sweep {
namespace {

// While the job runs, a stop signal must still end it: this watcher passes SIGTERM (then
// SIGKILL) to every process below us.
class StopWatcher {
 public:
  StopWatcher() : thread_([this] { loop(); }) {}
  ~StopWatcher() {
    done_ = true;
    thread_.join();
  }

 private:
  void loop() {
    double sent = -1;
    int waited = 0;
    while (!done_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!stop_signal()) continue;
      if (sent < 0) {
        signal_descendants(::getpid(), SIGTERM);
        sent = 0;
      } else if (++waited == 100) {  // 5 s grace, then no more waiting
        signal_descendants(::getpid(), SIGKILL);
      }
    }
  }
  std::atomic<bool> done_{false};
  std::thread thread_;
};

[[noreturn]] void child_main(const JobRunner& runner, const run::RunRequest& req, int out_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(1);  // the sweep died before prctl
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::signal(s, SIG_DFL);
  nlohmann::json out;
  try {
    // The run module, the launcher it starts and every rank inherit the point's resctrl group.
    if (auto err = join_job_group(); !err.empty()) throw std::runtime_error(err);
    const auto r = runner(req);
    out = {{"exit_status", r.exit_status}, {"timed_out", r.timed_out}, {"record_path", r.record_path},
           {"error", r.error}};
  } catch (const std::exception& e) {
    out = {{"exit_status", 1}, {"timed_out", false}, {"record_path", ""}, {"error", e.what()}};
  }
  const std::string text = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(out_fd, text.data() + off, text.size() - off);
    if (n <= 0) break;
    off += std::size_t(n);
  }
  std::fflush(stdout);
  ::_exit(0);
}

}  // namespace

run::RunResult run_isolated(const JobRunner& runner, const run::RunRequest& req, const ChildStarted& started) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    for (int fd : held_lock_fds()) ::close(fd);
    child_main(runner, req, fds[1], parent);
  }
  ::close(fds[1]);
  if (started) started(pid);
  std::string text;
  {
    StopWatcher watcher;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) text.append(buf, std::size_t(n));
      else if (n == 0 || errno != EINTR) break;
    }
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(fds[0]);
  run::RunResult r;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.exit_status = 1;
    r.error = "the run module ended without a result";
    return r;
  }
  r.exit_status = j.value("exit_status", 1);
  r.timed_out = j.value("timed_out", false);
  r.record_path = j.value("record_path", "");
  r.error = j.value("error", "");
  return r;
}

}  // namespace hpcsens::sweep
