#pragma once
// The PMPI functions the preload itself calls (lifecycle, byte counting), resolved at run time.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "preload/real/real_symbol.h"

namespace hpcsens::preload::pmpi {

// The next definition after this library: the preload defines PMPI_ names itself (so that another
// PMPI tool preloaded before it is seen), and its own work must not go through them.
#define HPCSENS_PMPI(name) \
  inline constinit RealSymbol<decltype(&PMPI_##name)> name{"PMPI_" #name, true};

HPCSENS_PMPI(Init)
HPCSENS_PMPI(Init_thread)
HPCSENS_PMPI(Finalize)
HPCSENS_PMPI(Abort)
HPCSENS_PMPI(Comm_rank)
HPCSENS_PMPI(Comm_size)
HPCSENS_PMPI(Comm_split_type)
HPCSENS_PMPI(Comm_free)
HPCSENS_PMPI(Comm_remote_size)
HPCSENS_PMPI(Comm_test_inter)
HPCSENS_PMPI(Topo_test)
HPCSENS_PMPI(Dist_graph_neighbors_count)
HPCSENS_PMPI(Graph_neighbors_count)
HPCSENS_PMPI(Cartdim_get)
HPCSENS_PMPI(Type_size)
HPCSENS_PMPI(Type_get_envelope)
HPCSENS_PMPI(Get_count)
HPCSENS_PMPI(Status_f2c)
#ifndef PMPI_Type_f2c  // MPICH's f2c are casts (macros): mpi_abi.h
HPCSENS_PMPI(Type_f2c)
HPCSENS_PMPI(Comm_f2c)
HPCSENS_PMPI(Request_f2c)
#endif
HPCSENS_PMPI(Comm_group)
HPCSENS_PMPI(Comm_remote_group)
HPCSENS_PMPI(Group_translate_ranks)
HPCSENS_PMPI(Group_free)
HPCSENS_PMPI(Barrier)
HPCSENS_PMPI(Allreduce)
HPCSENS_PMPI(Allgather)
HPCSENS_PMPI(Send)
HPCSENS_PMPI(Recv)
HPCSENS_PMPI(Bcast)
HPCSENS_PMPI(Gather)
HPCSENS_PMPI(Gatherv)
HPCSENS_PMPI(Get_library_version)
HPCSENS_PMPI(Get_processor_name)

#undef HPCSENS_PMPI

// Predefined handles. Open MPI's are addresses of data symbols in libmpi; referencing them
// directly would make loading the preload into a non-MPI program fail, so they are looked up.
struct Handles {
  MPI_Comm world{};
  MPI_Datatype byte{};
  MPI_Datatype datatype_null{};
  MPI_Op op_band{};  // for agreeing on a flag at finalize
  MPI_Comm comm_null{};
  MPI_Info info_null{};  // for finding the ranks of this node (Comm_split_type)
  MPI_Group world_group{};  // for translating partner ranks to MPI_COMM_WORLD
  bool have_world_group = false;
  // Fortran MPI_IN_PLACE is the address of a common block, under each compiler's mangling.
  const void* fortran_in_place[4] = {};
  // Fortran MPI_STATUS_IGNORE (mpif.h / `use mpi`): the address MPI_F_STATUS_IGNORE holds.
  const void* fortran_status_ignore = nullptr;
  const void* fortran_statuses_ignore = nullptr;  // MPI_F_STATUSES_IGNORE's address
  // mpi_f08's MPI_STATUS(ES)_IGNORE where they are other objects (MPICH: MPI_F08_STATUS_IGNORE;
  // Open MPI 4.1's are the mpif.h ones).
  const void* f08_status_ignore = nullptr;
  const void* f08_statuses_ignore = nullptr;
  bool resolved = false;
};

// Resolves the handles once libmpi is present (from our MPI_Init). Returns false if this process's
// MPI library has another ABI than this preload variant; *other then names that MPI.
bool resolve_handles(const char** other) noexcept;
const char* own_mpi_name() noexcept;  // the MPI this variant is built for
const Handles& handles() noexcept;

}  // namespace hpcsens::preload::pmpi
