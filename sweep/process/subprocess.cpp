#include "sweep/process/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sweep/knobs/resctrl_fs.h"
#include "sweep/spec/sweep_common.h"

namespace hpcsens::sweep {
namespace {

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, double timeout_s, bool capture_stdout,
                      const volatile std::sig_atomic_t* stop_flag) {
  ChildResult r;
  if (argv.empty()) {
    r.error = "empty command";
    return r;
  }
  int pipefd[2] = {-1, -1};
  if (capture_stdout && ::pipe2(pipefd, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  int errpipe[2];  // reports an exec failure back to us
  if (::pipe2(errpipe, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // The calibrator and knob tools die with the sweep (SIGTERM lets mpirun end its ranks).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    if (capture_stdout) ::dup2(pipefd[1], 1);
    // A child started for the job (the calibrator) runs inside the point's resctrl group.
    if (!join_job_group().empty()) {
      const int e = -1;  // said by the parent, which knows the group
      (void)!::write(errpipe[1], &e, sizeof e);
      ::_exit(127);
    }
    ::execvp(cargv[0], cargv.data());
    const int e = errno;
    (void)!::write(errpipe[1], &e, sizeof e);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(errpipe[1]);
  int exec_errno = 0;
  if (::read(errpipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    ::close(errpipe[0]);
    if (capture_stdout) ::close(pipefd[0]), ::close(pipefd[1]);
    ::waitpid(pid, nullptr, 0);
    r.error = exec_errno < 0 ? "cannot put " + argv[0] + " into the resctrl group " + job_tasks_file() +
                                   " (the kernel refused the tasks write; see info/last_cmd_status)"
                             : "cannot run " + argv[0] + ": " + std::strerror(exec_errno);
    return r;
  }
  ::close(errpipe[0]);
  if (capture_stdout) ::close(pipefd[1]);

  const double start = monotonic_s();
  double kill_sent = 0;
  bool out_open = capture_stdout;
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    const bool stop = stop_flag && *stop_flag;
    const bool late = timeout_s > 0 && monotonic_s() - start > timeout_s;
    if ((stop || late) && kill_sent == 0) {
      r.timed_out = late && !stop;
      r.stopped = stop;
      ::kill(-pid, SIGTERM);
      kill_sent = monotonic_s();
    } else if (kill_sent > 0 && monotonic_s() - kill_sent > 5) {
      ::kill(-pid, SIGKILL);
    }
    if (out_open) {
      pollfd p{pipefd[0], POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char buf[4096];
        const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
        if (n > 0) r.out.append(buf, std::size_t(n));
        else if (n == 0) out_open = false;
      }
    } else {
      ::usleep(20000);
    }
  }
  if (capture_stdout) {
    char buf[4096];
    ssize_t n;
    ::fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) r.out.append(buf, std::size_t(n));
    ::close(pipefd[0]);
  }
  r.exit_status = decode_status(status);
  return r;
}

int signal_descendants(int root, int sig) {
  // Build parent -> children from /proc, then walk down from root.
  std::multimap<int, int> children;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const auto name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');  // the command name may contain spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state;
    int ppid = 0;
    rest >> state >> ppid;
    children.emplace(ppid, std::stoi(name));
  }
  int count = 0;
  std::vector<int> todo{root};
  while (!todo.empty()) {
    const int p = todo.back();
    todo.pop_back();
    auto [b, e] = children.equal_range(p);
    for (auto it = b; it != e; ++it) {
      if (::kill(it->second, sig) == 0) ++count;
      todo.push_back(it->second);
    }
  }
  return count;
}

}  // namespace hpcsens::sweep
