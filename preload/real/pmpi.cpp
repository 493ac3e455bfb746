#include "preload/real/pmpi.h"

#include "preload/real/mpi_abi.h"

namespace hpcsens::preload::pmpi {
namespace {
Handles g_handles;

}  // namespace

bool resolve_handles(const char** other) noexcept {
  if (g_handles.resolved) return true;
  if (!abi::resolve_handles(g_handles, other)) return false;
  // The byte-count helpers run inside counted calls: look them up now, not on first use (a lookup
  // may lock and allocate).
  Type_size.find();
  Type_get_envelope.find();
  Get_count.find();
  Status_f2c.find();
  // MPI-2's C name for the Fortran MPI_STATUS_IGNORE, a data symbol of Open MPI and MPICH alike.
  if (auto* slot = static_cast<void* const*>(find_symbol("MPI_F_STATUS_IGNORE", false)))
    g_handles.fortran_status_ignore = *slot;
  if (auto* slot = static_cast<void* const*>(find_symbol("MPI_F_STATUSES_IGNORE", false)))
    g_handles.fortran_statuses_ignore = *slot;
  if (auto* slot = static_cast<void* const*>(find_symbol("MPI_F08_STATUS_IGNORE", false)))
    g_handles.f08_status_ignore = *slot;
  if (auto* slot = static_cast<void* const*>(find_symbol("MPI_F08_STATUSES_IGNORE", false)))
    g_handles.f08_statuses_ignore = *slot;
  Comm_size.find();
  Comm_rank.find();
  Comm_remote_size.find();
  Comm_test_inter.find();
  Comm_group.find();
  Comm_remote_group.find();
  Group_translate_ranks.find();
  Group_free.find();
  g_handles.have_world_group = Comm_group.get()(g_handles.world, &g_handles.world_group) ==
                               MPI_SUCCESS;
  g_handles.resolved = true;
  return true;
}

const char* own_mpi_name() noexcept { return abi::own_mpi_name(); }

const Handles& handles() noexcept { return g_handles; }

}  // namespace hpcsens::preload::pmpi
