#pragma once
// The network part of hpcsens-stream (`--network`): ping-pong latency and streaming bandwidth
// between rank 0 and one rank on its own host (intra-node) and one on another host (inter-node),
// each measured only where such a rank exists. Rank 0 prints one JSON line.
#include <mpi.h>

namespace hpcsens::sweep {

void run_network_calibration(MPI_Comm comm);

}  // namespace hpcsens::sweep
