// Issue 22, "pid reuse": a rank that ignores SIGCHLD has its dead agent reaped by the kernel, so
// the agent's pid is free again. Finalize must not SIGKILL (as root) whoever holds that pid now.
// The reuse is made deterministic in a private pid namespace (nothing else forks there) with
// /proc/sys/kernel/ns_last_pid; the victim belongs to another user (nobody, uid 65534).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "preload/account/counter_client.h"

namespace hpcsens::preload {
namespace {

constexpr uid_t kVictimUid = 65534;

// The scenario's outcomes, as exit statuses of the namespace's init (the scenario runs there).
enum Outcome : int { kVictimAlive = 0, kSetupFailed = 10, kNoReuse = 11, kVictimKilled = 12 };

[[noreturn]] void give(Outcome o, const std::string& why) {
  std::fprintf(stderr, "pid reuse scenario: %s\n", why.c_str());
  ::_exit(o);
}

// Our only children (we are init of a fresh namespace with its own /proc): the agent.
pid_t only_child() {
  pid_t found = -1;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    const size_t paren = stat.rfind(')');
    char state = 0;
    int ppid = -1;
    if (paren == std::string::npos || std::sscanf(stat.c_str() + paren + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid == ::getpid()) {
      if (found != -1) give(kSetupFailed, "more than one child");
      found = std::stoi(name);
    }
  }
  return found;
}

bool gone(pid_t pid) {
  for (int i = 0; i < 1000; ++i, ::usleep(5000))
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  return false;
}

// Forks a process of another user that waits to be killed, at pid `want` (ns_last_pid = want - 1).
pid_t fork_victim(pid_t want) {
  std::ofstream("/proc/sys/kernel/ns_last_pid") << (want - 1) << std::flush;
  const pid_t v = ::fork();
  if (v == 0) {
    if (::setresgid(kVictimUid, kVictimUid, kVictimUid) != 0 || ::setresuid(kVictimUid, kVictimUid, kVictimUid) != 0)
      ::_exit(1);
    for (;;) ::pause();
  }
  return v;
}

// The dead agent's number can stay taken a moment after signals find no process there (the
// kernel is still releasing it): a victim that got the next number is removed and the plant
// retried, for at most about a second.
pid_t plant_victim(pid_t want) {
  pid_t v = -1;
  for (int i = 0; i < 200; ++i, ::usleep(5000)) {
    v = fork_victim(want);
    if (v == want || v < 0) break;
    ::kill(v, SIGKILL);
    if (!gone(v)) break;
  }
  return v;
}

[[noreturn]] void scenario() {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
      ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    give(kSetupFailed, std::string("cannot mount this namespace's /proc: ") + std::strerror(errno));
  ::signal(SIGCHLD, SIG_IGN);  // the rank's choice: its children are reaped by the kernel
  CounterClient c;
  c.prepare(HPCSENS_COUNTER_AGENT, "perf::TASK-CLOCK", static_cast<pid_t>(::syscall(SYS_gettid)));
  c.start();
  // Where PAPI disabled perf_event the agent still runs beside the rank, saying why it counts
  // nothing (CounterClient.AgentCountsThisThreadsTaskClock checks that status): its pid is
  // what matters here.
  const bool papi_off = c.status().find("PAPI's perf_event component is disabled") != std::string::npos;
  if (c.status() != "ok" && !papi_off) give(kSetupFailed, "agent did not start counting: " + c.status());
  const pid_t agent = only_child();
  if (agent <= 0) give(kSetupFailed, "no agent process found");
  ::kill(agent, SIGKILL);  // the agent dies mid-run (OOM killer, an admin)
  if (!gone(agent)) give(kSetupFailed, "the dead agent was not reaped by the kernel");
  const pid_t victim = plant_victim(agent);
  const int victim_fd = static_cast<int>(::syscall(SYS_pidfd_open, victim, 0));
  if (victim != agent || victim_fd < 0)
    give(kNoReuse, "victim got pid " + std::to_string(victim) + ", the agent had " + std::to_string(agent));
  c.stop();  // finalize: the agent is found dead and ended
  const bool alive = ::syscall(SYS_pidfd_send_signal, victim_fd, 0, nullptr, 0) == 0;
  ::syscall(SYS_pidfd_send_signal, victim_fd, SIGKILL, nullptr, 0);
  if (!alive) give(kVictimKilled, "finalize killed uid " + std::to_string(kVictimUid) + "'s process at the agent's old pid");
  if (c.status().rfind("counters unavailable: counter agent: ", 0) != 0)
    give(kSetupFailed, "the dead agent was not reported: " + c.status());
  ::_exit(kVictimAlive);
}

// Runs scenario() as init of a new pid and mount namespace; returns its exit status.
int in_new_pid_namespace() {
  const pid_t outer = ::fork();
  if (outer == 0) {
    if (::unshare(CLONE_NEWPID | CLONE_NEWNS) != 0) give(kSetupFailed, std::string("unshare: ") + std::strerror(errno));
    const pid_t init = ::fork();
    if (init == 0) scenario();
    int st = 0;
    if (init < 0 || ::waitpid(init, &st, 0) != init) ::_exit(kSetupFailed);
    ::_exit(WIFEXITED(st) ? WEXITSTATUS(st) : kSetupFailed);
  }
  int st = 0;
  if (outer < 0 || ::waitpid(outer, &st, 0) != outer) return kSetupFailed;
  return WIFEXITED(st) ? WEXITSTATUS(st) : kSetupFailed;
}

TEST(CounterClientPidReuse, DeadAgentsPidTakenByAnotherUserIsNotKilledAtFinalize) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (pid namespace, ns_last_pid, another user's process)";
  const int outcome = in_new_pid_namespace();
  EXPECT_NE(outcome, kVictimKilled) << "finalize SIGKILLed another user's process that reused the dead agent's pid";
  EXPECT_EQ(outcome, kVictimAlive) << "see the scenario's message above";
}

}  // namespace
}  // namespace hpcsens::preload
