#include "counter_agent/rank_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counter_agent/papi_session.h"
#include "counter_agent/protocol.h"
#include "energy/powercap.h"
#include "energy/sampler.h"
#include "topdown/event_plan.h"

namespace hpcsens::agent {
namespace {

// A request must arrive whole soon after its first byte: one slow rank must not hold up the
// node's other ranks for long (their own timeouts are 20 s and 60 s).
constexpr int kRequestTimeoutMs = 10'000;

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

struct Rank {
  int fd;
  std::unique_ptr<PapiSession> session;
};

nlohmann::json state(const PapiSession& s, int ranks_served) {
  return {{"status", s.status()},       {"warn", s.warn()},
          {"notes", s.notes()},         {"multiplexed", s.multiplexed()},
          {"event_set", s.event_set()}, {"values", s.values()},
          {"running_fraction", s.running_fraction().empty() ? nlohmann::json(nullptr) : nlohmann::json(s.running_fraction())},
          {"running_fraction_reason", s.running_fraction_reason()},
          {"vmhwm_kib", proc_kib("/proc/self/status", "VmHWM:")},
          // What this agent costs the node beyond pages it shares with other processes
          // (libraries' clean pages are shared through the page cache).
          {"private_dirty_kib", proc_kib("/proc/self/smaps_rollup", "Private_Dirty:")},
          {"ranks", ranks_served}};
}

// Answers one request of `r`. False: the rank closed its end, or it is not the preload talking.
// `power`: the node's energy reader (node agent only); each rank's stop is answered with the
// node's energy up to then, so the node's last rank to stop carries the node's whole span.
bool answer(Rank& r, int ranks_served, energy::BackgroundSampler* power, bool* foreign) {
  std::string text, error;
  if (!receive_message(r.fd, &text, kRequestTimeoutMs, &error)) return false;
  const nlohmann::json req = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const std::string op = req.is_object() ? req.value("op", "") : "";
  PapiSession& s = *r.session;
  if (op == "prepare") {
    const std::string spec = req.value("spec", "default");
    s.prepare(topdown::plan_events(spec, topdown::detect_cpu()), req.value("tid", 0));
  } else if (op == "start") {
    s.start();
  } else if (op == "stop") {
    s.stop();
  } else {
    *foreign = true;  // nothing sensible to answer
    return false;
  }
  nlohmann::json reply = state(s, ranks_served);
  if (power != nullptr && op == "stop") {
    nlohmann::json node = power->snapshot();
    node["read_by"] = "node counter agent";
    reply[energy::kRankNodeEnergy] = std::move(node);
  }
  return send_message(r.fd, reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// A connection from another user is refused at once (the directory is ours alone, so none
// should reach the socket; this holds even if one did).
bool same_user(int fd) {
  ucred peer{};
  socklen_t len = sizeof peer;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0 && peer.uid == ::geteuid();
}

}  // namespace

int serve_ranks(int first, int listener, bool shared) {
  // One energy reader per node (issue 31): the node's agent, never a per-rank one. Its first
  // reading is taken before the spawning rank's first request is answered.
  std::unique_ptr<energy::BackgroundSampler> power;
  if (shared) power = std::make_unique<energy::BackgroundSampler>(energy::root_from_env());
  std::vector<Rank> ranks;
  ranks.push_back({first, std::make_unique<PapiSession>(!shared)});
  int served = 1;
  bool foreign = false;
  while (!ranks.empty()) {
    const size_t polled = ranks.size();
    std::vector<pollfd> fds;
    for (const Rank& r : ranks) fds.push_back({r.fd, POLLIN, 0});
    if (listener >= 0) fds.push_back({listener, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR
    if (listener >= 0 && (fds.back().revents & POLLIN) != 0) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0 && same_user(fd)) {
        ranks.push_back({fd, std::make_unique<PapiSession>(!shared)});
        ++served;
      } else if (fd >= 0) {
        ::close(fd);
      }
    }
    // Backwards, so that erasing a rank leaves the indices still to visit in place.
    for (size_t i = polled; i-- > 0;) {
      if (fds[i].revents == 0) continue;
      if (answer(ranks[i], served, power.get(), &foreign)) continue;
      ranks[i].session->stop();  // a rank gone while counting: release its event set
      ::close(ranks[i].fd);
      ranks.erase(ranks.begin() + static_cast<long>(i));
    }
  }
  return foreign ? 2 : 0;
}

}  // namespace hpcsens::agent
