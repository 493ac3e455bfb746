#pragma once
// The rank's side of its counters: a hpcsens-counter-agent process (counter_agent/) that counts
// the rank's MPI_Init thread with PAPI from outside, so PAPI and libpfm4 never load into the
// rank (docs/methodology.md "Memory"). Never fails the job: an agent that is missing,
// cannot start, is refused by perf_event or stops answering becomes a readable status.
//
// What is counted: the thread `tid` (the one that called MPI_Init), from start() to stop().
#include <sys/types.h>

#include <string>

#include "counter_agent/counter_readings.h"

namespace hpcsens::preload {

class CounterClient : public agent::CounterReadings {
 public:
  CounterClient() = default;
  CounterClient(const CounterClient&) = delete;
  CounterClient& operator=(const CounterClient&) = delete;
  ~CounterClient();

  // Spawns `agent` for this rank alone and has it set up the event spec (HPCSENS_EVENTS syntax)
  // for thread `tid`; slow (PAPI initialisation), so it runs before the init barrier. "none"
  // starts no agent.
  void prepare(const std::string& agent, const std::string& spec, pid_t tid);

  // One agent per node (preload/account/node_agent.h). The node's first rank hosts it: spawns
  // `agent` with `listener`, the listening socket the node's other ranks connect to.
  bool host(const std::string& agent, const std::string& spec, int listener);
  // Another rank of the node: connects to the agent's socket at `path`, made by `owner_pid`.
  bool join(const std::string& path, pid_t owner_pid, const std::string& spec);
  // After host() or join(): the agent sets up `spec` for thread `tid` of this rank.
  void prepare_counting(const std::string& spec, pid_t tid);
  // No agent for this rank: `why` becomes the status.
  void refuse(const std::string& spec, const std::string& why);
  // The host reaps the node's agent once every rank of the node has stopped (after the finalize
  // barrier); stop() alone only closes the host's own connection.
  void release();
  // Starts counting (one round trip to the agent).
  void start();
  // Stops counting, fills values() and lets the agent go.
  void stop();

  // The agent's peak resident memory in KiB as it last reported it (-1: no agent ran).
  long agent_vmhwm_kib() const { return agent_vmhwm_kib_; }
  // Its private dirty memory in KiB (what one more agent costs the node), -1 likewise.
  long agent_private_kib() const { return agent_private_kib_; }
  // How many ranks the agent had served when it last answered (1 for a per-rank agent).
  int agent_ranks() const { return agent_ranks_; }
  // The node's energy (JSON text of energy/sampler.h's node object) as the node's agent handed it
  // over with the answer to stop(); empty from a per-rank agent or without one.
  const std::string& node_energy() const { return node_energy_; }

 private:
  bool spawn(const std::string& agent, int listener);
  bool exchange(const std::string& request, int timeout_ms);
  void end_agent(bool kill_it);

  int fd_ = -1;
  pid_t pid_ = -1;
  int pidfd_ = -1;  // the agent, verified as our child; signals go only through it
  bool running_ = false;
  bool shared_ = false;  // hosting the node's agent: stop() leaves it to the other ranks
  int agent_ranks_ = 0;
  long agent_vmhwm_kib_ = -1;
  long agent_private_kib_ = -1;
  std::string node_energy_;
};

// Where the agent sits relative to the library this code is linked into (the preload).
std::string counter_agent_path();

}  // namespace hpcsens::preload
