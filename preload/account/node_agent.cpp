#include "preload/account/node_agent.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "preload/account/agent_socket.h"
#include "topdown/event_plan.h"

namespace hpcsens::preload {
namespace {

// What the node's first rank tells the others: "<pid> <socket path>" or "!<why there is none>".
constexpr int kAddressBytes = 512;

struct Address {
  char text[kAddressBytes] = {};
  void set(const std::string& s) { std::snprintf(text, sizeof text, "%s", s.c_str()); }
};

// The node's first rank: a socket in a private directory and the agent with it. What the others
// need to reach it, or why they cannot.
std::string start_agent(CounterClient& client, AgentSocket& sock, const std::string& agent,
                        const std::string& spec) {
  if (auto err = listen_for_ranks(&sock); !err.empty()) {
    // Counted alone: the node's other ranks then start their own agents.
    return "!alone: the node's counter agent has no socket: " + err;
  }
  const bool started = client.host(agent, spec, sock.listener);
  // The agent holds the listening socket now. Ours closes at once: should the agent die, the
  // other ranks' connections are then refused or reset instead of waiting for an answer.
  ::close(sock.listener);
  sock.listener = -1;
  if (!started) {
    remove_agent_socket(sock);
    return "!" + client.status();
  }
  return std::to_string(::getpid()) + " " + sock.path;
}

// Another rank of the node, with its first rank's answer.
void join_agent(CounterClient& client, const std::string& address, const std::string& agent,
                const std::string& spec, pid_t tid) {
  if (address.rfind("!alone: ", 0) == 0) {
    client.prepare(agent, spec, tid);  // no shared socket: a per-rank agent, as before
  } else if (address.rfind('!', 0) == 0) {
    client.refuse(spec, address.substr(1));
  } else {
    const size_t space = address.find(' ');
    const pid_t owner = static_cast<pid_t>(std::atol(address.substr(0, space).c_str()));
    if (space != std::string::npos && client.join(address.substr(space + 1), owner, spec))
      client.prepare_counting(spec, tid);
  }
}

}  // namespace

void prepare_node_counters(CounterClient& client, MPI_Comm world, const std::string& agent,
                           const std::string& spec, pid_t tid) noexcept {
  try {
    MPI_Comm node = pmpi::handles().comm_null;
    const char* per_rank = std::getenv(kAgentPerRankEnv);
    // A rank that counts nothing (--events none) stays out of the node communicator: it needs no
    // agent, address or node barrier, which at 16 ranks on 2 cores cost ~9 ms of start-up (issue
    // 33). The split stays collective over `world`, so ranks given other specs still meet.
    const int split = spec == topdown::kEventsNone ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
    if ((per_rank != nullptr && std::strcmp(per_rank, "1") == 0) ||
        pmpi::Comm_split_type.get()(world, split, 0, pmpi::handles().info_null, &node) != MPI_SUCCESS ||
        node == pmpi::handles().comm_null) {
      // Asked for, or no node communicator: one agent per rank ("none" starts nothing, says so).
      client.prepare(agent, spec, tid);
      return;
    }
    int local = 0;
    pmpi::Comm_rank.get()(node, &local);
    AgentSocket sock;
    Address address;
    if (local == 0) address.set(start_agent(client, sock, agent, spec));
    pmpi::Bcast.get()(address.text, kAddressBytes, pmpi::handles().byte, 0, node);
    address.text[kAddressBytes - 1] = '\0';
    const std::string said = address.text;
    if (local != 0) {
      join_agent(client, said, agent, spec, tid);
    } else if (said.rfind('!', 0) != 0) {
      client.prepare_counting(spec, tid);  // while the others connect (PAPI starts up once)
    } else if (said.rfind("!alone: ", 0) == 0) {
      client.prepare(agent, spec, tid);  // its own agent
    }
    // Every rank has connected (or given up): the socket's name is no longer needed.
    pmpi::Barrier.get()(node);
    if (local == 0) remove_agent_socket(sock);
    pmpi::Comm_free.get()(&node);
  } catch (...) {
    // Never break the job (no memory for a message): the record then says no counters ran.
  }
}

}  // namespace hpcsens::preload
