#pragma once
// One counter agent per node, shared by the node's ranks (docs/methodology.md "One counter agent
// per node"). The node's ranks are found with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), which
// Open MPI and MPICH answer alike under any launcher (no launcher-specific local-rank variable).
// Its rank 0 makes a private directory with a listening socket and starts the agent; the others
// connect to it. Collective over `world`: every rank calls it at MPI_Init, before the init barrier.
// A rank with the spec "none" takes part only in the split (as MPI_UNDEFINED): no node
// communicator, broadcast or barrier for it, and the node's counting ranks share one agent.
#include <sys/types.h>

#include <string>

#include "preload/account/counter_client.h"
#include "preload/real/pmpi.h"

namespace hpcsens::preload {

// "1" in the ranks' environment: one agent per rank instead (bench/preload_startup.sh compares
// the two). Set by no hpcsens command.
inline constexpr char kAgentPerRankEnv[] = "HPCSENS_AGENT_PER_RANK";

// Sets `client` up for this rank's thread `tid` with the event spec `spec`. Never fails the job:
// whatever goes wrong ends up in the client's status. "none" connects to no agent.
void prepare_node_counters(CounterClient& client, MPI_Comm world, const std::string& agent,
                           const std::string& spec, pid_t tid) noexcept;

}  // namespace hpcsens::preload
