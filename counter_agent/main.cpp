// hpcsens-counter-agent: counts one thread of another process with PAPI, so that PAPI and
// libpfm4 (about 3 MiB resident once loaded and initialised) stay out of the MPI rank. The
// preload spawns one per rank with posix_spawn and talks to it over a socketpair on fd 3
// (counter_agent/protocol.h); the agent exits when the rank closes its end or exits.
#include <sys/prctl.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "counter_agent/papi_session.h"
#include "counter_agent/protocol.h"
#include "topdown/event_plan.h"

namespace hpcsens::agent {
namespace {

// One "Key:  N kB" line of a /proc/self file, in KiB (-1 if absent).
long proc_kib(const char* file, const char* key) {
  std::FILE* f = std::fopen(file, "r");
  char line[256];
  long kib = -1;
  const size_t n = std::strlen(key);
  while (f != nullptr && std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, key, n) == 0) kib = std::atol(line + n);
  if (f != nullptr) std::fclose(f);
  return kib;
}

nlohmann::json state(const PapiSession& s) {
  return {{"status", s.status()},       {"warn", s.warn()},
          {"notes", s.notes()},         {"multiplexed", s.multiplexed()},
          {"event_set", s.event_set()}, {"values", s.values()},
          {"vmhwm_kib", proc_kib("/proc/self/status", "VmHWM:")},
          // What this agent costs the node beyond pages it shares with the other agents
          // (libraries' clean pages are shared through the page cache).
          {"private_dirty_kib", proc_kib("/proc/self/smaps_rollup", "Private_Dirty:")}};
}

// Serves the rank until it closes the connection. Returns the exit status.
int serve(int fd) {
  PapiSession session;
  std::string text, error;
  while (receive_message(fd, &text, -1, &error)) {
    const nlohmann::json req = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const std::string op = req.is_object() ? req.value("op", "") : "";
    if (op == "prepare") {
      const std::string spec = req.value("spec", "default");
      session.prepare(topdown::plan_events(spec, topdown::detect_cpu()), req.value("tid", 0));
    } else if (op == "start") {
      session.start();
    } else if (op == "stop") {
      session.stop();
    } else {
      return 2;  // not the preload talking: nothing sensible to answer
    }
    if (!send_message(fd, state(session).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)))
      return 1;
  }
  return 0;
}

}  // namespace
}  // namespace hpcsens::agent

int main(int argc, char** argv) {
  if (argc != 2 || std::strcmp(argv[1], "--serve") != 0) {
    std::fprintf(stderr,
                 "usage: %s --serve\n(started by libhpcsens_preload.so with its socket on fd %d; "
                 "not meant to be run by hand)\n",
                 argv[0], hpcsens::agent::kAgentFd);
    return 2;
  }
  // A rank killed outright closes the socket too, but die with it even if something else holds
  // a copy of the descriptor.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  return hpcsens::agent::serve(hpcsens::agent::kAgentFd);
}
