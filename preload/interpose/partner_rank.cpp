// Partner ranks of point-to-point sends, as MPI_COMM_WORLD ranks (the partner table is keyed by
// world rank so traffic on different communicators to one process adds up).
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

}  // namespace

int cb::world_rank(int rank, MPI_Comm comm) noexcept { return translate(rank, comm); }

int fb::world_rank(const void* rank, const void* comm) noexcept {
  if (rank == nullptr || comm == nullptr || !pmpi::handles().resolved) return -1;
  return translate(*static_cast<const MPI_Fint*>(rank),
                   abi::comm_f2c(*static_cast<const MPI_Fint*>(comm)));
}

}  // namespace hpcsens::preload
