#pragma once
// Which ranks share a node, for the network-delay knob (net_delay.h): MPI-aware, so it lives
// beside the MPI-free knob, in the preload library itself.
#include <string>

#include "preload/real/pmpi.h"

namespace hpcsens::preload {

// Every rank's node (the hash of its processor name), gathered over `world` and handed to
// set_net_nodes. A collective: call it on every rank, only when the knob is on (its variables
// are the job's, so every rank takes the same branch). Returns the number of distinct nodes.
int gather_net_nodes(MPI_Comm world, int size, const std::string& host) noexcept;

}  // namespace hpcsens::preload
