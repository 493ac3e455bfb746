#pragma once
// The agent's service loop: one counting session per connected rank, each answered in turn.
// A per-rank agent has only its spawning rank (on kAgentFd); the node's agent also accepts the
// node's other ranks on a listening socket (kListenFd) in a private directory (docs/methodology.md
// "One counter agent per node").
namespace hpcsens::agent {

// Serves `first` (the spawning rank's socketpair end) and, when `listener` >= 0, every rank of
// the same user that connects to it, until no rank is connected. `shared`: several sessions share
// PAPI (none shuts it down). Returns the exit status (0; 2 when a peer is not the preload).
int serve_ranks(int first, int listener, bool shared);

}  // namespace hpcsens::agent
