// hpcsens-counter-agent: counts threads of other processes with PAPI, so that PAPI and libpfm4
// (about 3 MiB resident once loaded and initialised) stay out of the MPI ranks. The node's first
// rank spawns it with posix_spawn and talks to it over a socketpair on fd 3; with --serve-node it
// also finds a listening socket on fd 4 that the node's other ranks connect to
// (counter_agent/protocol.h). It exits when every rank has closed its end, or when the rank that
// started it exits.
#include <sys/prctl.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "counter_agent/protocol.h"
#include "counter_agent/rank_server.h"

int main(int argc, char** argv) {
  const bool node = argc == 2 && std::strcmp(argv[1], "--serve-node") == 0;
  if (argc != 2 || (!node && std::strcmp(argv[1], "--serve") != 0)) {
    std::fprintf(stderr,
                 "usage: %s --serve | --serve-node\n(started by libhpcsens_preload.so with its socket "
                 "on fd %d and, for the node, a listening socket on fd %d; not meant to be run by "
                 "hand)\n",
                 argv[0], hpcsens::agent::kAgentFd, hpcsens::agent::kListenFd);
    return 2;
  }
  // A rank killed outright closes the socket too, but die with it even if something else holds
  // a copy of the descriptor.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  using namespace hpcsens::agent;
  return serve_ranks(kAgentFd, node ? kListenFd : -1, /*shared=*/node);
}
