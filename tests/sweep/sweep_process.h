#pragma once
// Runs the real binaries for the sweep's end-to-end tests. Output goes to files, not pipes: a
// sweep (or the Slurm set-up script) may leave daemons or killed jobs' children holding a pipe
// open, and a reader waiting for end-of-file would then hang instead of returning.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "fake_sysfs.h"

namespace hpcsens::sweep::testing {

struct Proc {
  pid_t pid = -1;
  std::string out_path, err_path;
};

// Starts `args` (argv[0] an absolute path) with stdout/stderr in `dir` and stdin from /dev/null.
inline Proc spawn(const std::vector<std::string>& args, const std::string& dir) {
  Proc p{-1, dir + "/stdout.txt", dir + "/stderr.txt"};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  p.pid = ::fork();
  if (p.pid == 0) {
    const int o = ::open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::dup2(in, 0);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
#ifdef HPCSENS_TEST_LOCK_DIR
    // Machine-wide sweep locks of tests stay in the build tree, never in /run/hpcsens.
    ::setenv("HPCSENS_LOCK_DIR", HPCSENS_TEST_LOCK_DIR, 0);
#endif
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return p;
}

// Exit status (128 + signal when killed), or -1 after `timeout_s` (the child is then killed).
inline int wait_for(const Proc& p, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (::waitpid(p.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      ::kill(p.pid, SIGKILL);
      ::waitpid(p.pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Result {
  int status;  // exit status, 128 + signal, or -1 after the timeout
  std::string out, err;
};

// Waits until `pred` holds (polling), up to `timeout_s`.
template <class F>
bool eventually(F pred, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

inline Result run(const std::vector<std::string>& args, const std::string& dir, double timeout_s = 60) {
  const auto p = spawn(args, dir);
  const int st = wait_for(p, timeout_s);
  return {st, get(p.out_path), get(p.err_path)};
}

}  // namespace hpcsens::sweep::testing
