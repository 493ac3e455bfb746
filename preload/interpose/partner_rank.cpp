// Partner ranks of point-to-point sends, as MPI_COMM_WORLD ranks (the partner table is keyed by
// world rank so traffic on different communicators to one process adds up).
#include "preload/account/net_delay.h"
#include "preload/real/mpi_abi.h"
#include "preload/interpose/wrapper_support.h"

namespace hpcsens::preload {
namespace {

int translate(int rank, MPI_Comm comm) {
  const auto& h = pmpi::handles();
  if (rank < 0 || !h.resolved) return -1;  // MPI_PROC_NULL, MPI_ANY_SOURCE
  // The common case costs one compare and no MPI call.
  if (comm == h.world) return rank;
  if (comm == h.comm_null || !h.have_world_group) return -1;
  // Another communicator: MPI's own group calls (no allocation of ours; Open MPI and MPICH
  // return the communicator's existing group with a reference count).
  int inter = 0;
  pmpi::Comm_test_inter.get()(comm, &inter);
  MPI_Group group;
  const int rc = inter ? pmpi::Comm_remote_group.get()(comm, &group)
                       : pmpi::Comm_group.get()(comm, &group);
  if (rc != MPI_SUCCESS) return -1;
  int out = MPI_UNDEFINED;
  pmpi::Group_translate_ranks.get()(group, 1, &rank, h.world_group, &out);
  pmpi::Group_free.get()(&group);
  return out == MPI_UNDEFINED ? -1 : out;
}

// Largest group whose members are checked one by one; a larger one is taken to span nodes.
constexpr int kNodeCheckRanks = 256;

bool spans_nodes(MPI_Comm comm) {
  const auto& h = pmpi::handles();
  if (!g_net_inter_only || comm == h.world || !h.resolved || !h.have_world_group) return true;
  int inter = 0, p = 0;
  pmpi::Comm_test_inter.get()(comm, &inter);
  if (inter || pmpi::Comm_size.get()(comm, &p) != MPI_SUCCESS || p > kNodeCheckRanks) return true;
  MPI_Group group;
  if (pmpi::Comm_group.get()(comm, &group) != MPI_SUCCESS) return true;
  int ranks[kNodeCheckRanks], world[kNodeCheckRanks];
  for (int i = 0; i < p; ++i) ranks[i] = i;
  const int rc = pmpi::Group_translate_ranks.get()(group, p, ranks, h.world_group, world);
  pmpi::Group_free.get()(&group);
  if (rc != MPI_SUCCESS) return true;
  for (int i = 0; i < p; ++i)
    if (!net_stays_on_node(world[i])) return true;
  return false;
}

}  // namespace

int cb::world_rank(int rank, MPI_Comm comm) noexcept { return translate(rank, comm); }
bool cb::off_node(MPI_Comm comm) noexcept { return spans_nodes(comm); }
bool fb::off_node(const void* comm) noexcept {
  if (comm == nullptr || !pmpi::handles().resolved) return true;
  return spans_nodes(abi::comm_f2c(*static_cast<const MPI_Fint*>(comm)));
}

int fb::world_rank(const void* rank, const void* comm) noexcept {
  if (rank == nullptr || comm == nullptr || !pmpi::handles().resolved) return -1;
  return translate(*static_cast<const MPI_Fint*>(rank),
                   abi::comm_f2c(*static_cast<const MPI_Fint*>(comm)));
}

}  // namespace hpcsens::preload
