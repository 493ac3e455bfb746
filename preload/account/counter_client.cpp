#include "preload/account/counter_client.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "counter_agent/protocol.h"
#include "preload/account/agent_socket.h"
#include "topdown/event_plan.h"

extern char** environ;

namespace hpcsens::preload {
namespace {

// PAPI initialisation and trial event sets on a loaded node can take a while; start and stop
// are a few system calls in the agent.
constexpr int kPrepareTimeoutMs = 60'000;
constexpr int kCountTimeoutMs = 20'000;

// The rank's environment minus LD_PRELOAD: the agent is not an MPI program to measure.
std::vector<char*> agent_environment() {
  std::vector<char*> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.push_back(*e);
  env.push_back(nullptr);
  return env;
}

// The record's event-set name when no agent could say it (the agent names the plan itself).
std::string plan_name(const std::string& spec) {
  if (spec.empty() || spec == "default") return "default";
  return spec.rfind("topdown", 0) == 0 ? spec : "custom";
}

}  // namespace

std::string counter_agent_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&counter_agent_path), &info) == 0 || info.dli_fname == nullptr)
    return agent::kAgentRelPath;
  std::string lib = info.dli_fname;
  const size_t slash = lib.rfind('/');
  return (slash == std::string::npos ? std::string(".") : lib.substr(0, slash)) + "/" +
         agent::kAgentRelPath;
}

namespace {

// A pidfd for the child just spawned, or -1. The child may already have died and, in a rank that
// ignores SIGCHLD, been reaped and its pid reused: the process the pidfd names must have us as its
// parent, else we never signal it (root would otherwise SIGKILL whoever has the pid now).
int child_pidfd(pid_t pid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return -1;
  char path[64], stat[512] = {};
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const int sfd = ::open(path, O_RDONLY | O_CLOEXEC);
  const ssize_t n = sfd < 0 ? -1 : ::read(sfd, stat, sizeof stat - 1);
  if (sfd >= 0) ::close(sfd);
  const char* close_paren = n > 0 ? std::strrchr(stat, ')') : nullptr;
  int ppid = -1;
  char state = 0;
  // "pid (comm) S ppid ...": the comm may hold anything, so the fields follow its last ')'.
  if (close_paren == nullptr || std::sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 || ppid != ::getpid()) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void signal_verified(int pidfd, int sig) {
  if (pidfd >= 0) ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0);
}

}  // namespace

CounterClient::~CounterClient() { end_agent(/*kill_it=*/true); }

// A copy of `fd` at kListenFd + 1 or above, close-on-exec (-1 on failure): the spawn's dup2s
// onto kAgentFd and kListenFd then never overwrite a source they still need.
int above_agent_fds(int fd) { return fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, agent::kListenFd + 1); }

// The agent gets its socket on kAgentFd (and the node's listening socket on kListenFd), /dev/null
// for stdin and stdout (the job's output is never touched), the rank's stderr, none of the rank's
// other descriptors (MPI's sockets and shared memory stay the rank's alone) and default signal
// handling. posix_spawn, never fork: nothing of the rank's memory is copied, which MPI libraries
// with registered memory require.
bool CounterClient::spawn(const std::string& agent, int listener) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    fail(std::string("counters unavailable: no socket for the counter agent: ") + std::strerror(errno));
    return false;
  }
  const int theirs = above_agent_fds(sv[1]);
  const int listen_copy = above_agent_fds(listener);
  ::close(sv[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, theirs, agent::kAgentFd);
  if (listen_copy >= 0) posix_spawn_file_actions_adddup2(&fa, listen_copy, agent::kListenFd);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&fa, (listen_copy >= 0 ? agent::kListenFd : agent::kAgentFd) + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> env = agent_environment();
  char arg0[] = "hpcsens-counter-agent";
  char arg1[] = "--serve";
  char arg1_node[] = "--serve-node";
  char* argv[] = {arg0, listener >= 0 ? arg1_node : arg1, nullptr};
  const bool have_fds = theirs >= 0 && (listener < 0 || listen_copy >= 0);
  const int rc = !have_fds ? errno : posix_spawn(&pid_, agent.c_str(), &fa, &attr, argv, env.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (theirs >= 0) ::close(theirs);
  if (listen_copy >= 0) ::close(listen_copy);
  if (rc != 0) {
    ::close(sv[0]);
    pid_ = -1;
    fail("counters unavailable: cannot start the counter agent " + agent + ": " + std::strerror(rc));
    return false;
  }
  fd_ = sv[0];
  pidfd_ = child_pidfd(pid_);
  return true;
}

// Sends one request and takes the agent's whole state from its answer.
bool CounterClient::exchange(const std::string& request, int timeout_ms) {
  std::string reply, error;
  if (fd_ < 0) return false;
  if (!agent::send_message(fd_, request)) {
    error = "agent closed the connection";
  } else if (agent::receive_message(fd_, &reply, timeout_ms, &error)) {
    const nlohmann::json j = nlohmann::json::parse(reply, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) {
      status_ = j.value("status", "counter agent gave no status");
      warn_ = j.value("warn", true);
      notes_ = j.value("notes", std::vector<std::string>{});
      multiplexed_ = j.value("multiplexed", false);
      event_set_ = j.value("event_set", event_set_);
      values_ = j.value("values", std::map<std::string, double>{});
      // null (not known) or an object; an agent that sends neither leaves the fraction unknown.
      if (const auto f = j.find("running_fraction"); f != j.end() && f->is_object())
        running_fraction_ = f->get<std::map<std::string, double>>();
      running_fraction_reason_ = j.value("running_fraction_reason", std::string());
      agent_vmhwm_kib_ = j.value("vmhwm_kib", -1L);
      agent_private_kib_ = j.value("private_dirty_kib", -1L);
      agent_ranks_ = j.value("ranks", 1);
      if (const auto e = j.find("node_energy"); e != j.end() && e->is_object()) node_energy_ = e->dump();
      return true;
    }
    error = "unreadable answer";
  }
  fail("counters unavailable: counter agent: " + error);
  end_agent(/*kill_it=*/true);
  return false;
}

void CounterClient::prepare(const std::string& agent, const std::string& spec, pid_t tid) {
  if (spec == topdown::kEventsNone) {
    event_set_ = topdown::kEventsNone;
    status_ = topdown::kEventsNoneNote;
    return;
  }
  event_set_ = plan_name(spec);
  if (!spawn(agent, -1)) return;
  prepare_counting(spec, tid);
}

bool CounterClient::host(const std::string& agent, const std::string& spec, int listener) {
  event_set_ = plan_name(spec);
  shared_ = true;
  return spawn(agent, listener);
}

bool CounterClient::join(const std::string& path, pid_t owner_pid, const std::string& spec) {
  event_set_ = plan_name(spec);
  std::string error;
  fd_ = connect_to_agent(path, owner_pid, &error);
  if (fd_ < 0) fail("counters unavailable: cannot reach the node's counter agent: " + error);
  return fd_ >= 0;
}

void CounterClient::prepare_counting(const std::string& spec, pid_t tid) {
  exchange(nlohmann::json{{"op", "prepare"}, {"spec", spec}, {"tid", tid}}.dump(), kPrepareTimeoutMs);
}

void CounterClient::refuse(const std::string& spec, const std::string& why) {
  event_set_ = plan_name(spec);
  fail(why);
}

void CounterClient::release() {
  shared_ = false;
  end_agent(/*kill_it=*/false);
}

void CounterClient::start() {
  if (fd_ < 0) return;
  running_ = exchange(R"({"op":"start"})", kCountTimeoutMs);
}

void CounterClient::stop() {
  if (running_) exchange(R"({"op":"stop"})", kCountTimeoutMs);
  running_ = false;
  // The node's agent still serves the node's other ranks: only our connection closes now; it
  // is reaped by release() once every rank of the node has stopped.
  if (shared_ && fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  if (!shared_) end_agent(/*kill_it=*/false);
}

// Closing the socket ends the agent; it is reaped here so no zombie stays with the rank. One
// that does not exit promptly (stuck in the kernel) is killed.
void CounterClient::end_agent(bool kill_it) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (pid_ <= 0) return;
  if (kill_it) signal_verified(pidfd_, SIGKILL);
  for (int i = 0;; ++i) {
    siginfo_t info{};
    // Waiting through the pidfd reaps only the agent itself, never a later process with its pid.
    const int r = pidfd_ >= 0 ? ::waitid(P_PIDFD, static_cast<id_t>(pidfd_), &info, WEXITED | WNOHANG)
                              : ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG);
    if ((r == 0 && info.si_pid != 0) || (r < 0 && errno != EINTR)) break;  // reaped, or the job reaped it
    if (i == 400 && pidfd_ < 0) break;  // unverified: never signalled, so not waited for forever
    if (i == 400) signal_verified(pidfd_, SIGKILL);  // 2 s after the socket closed
    ::usleep(5000);
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = -1;
  pid_ = -1;
}

}  // namespace hpcsens::preload
