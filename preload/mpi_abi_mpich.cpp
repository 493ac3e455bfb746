// MPICH's ABI (see mpi_abi.h).
#include "preload/mpi_abi.h"

#include <cstddef>

#ifndef MPICH
#error "mpi_abi_mpich.cpp must be compiled against MPICH's mpi.h"
#endif

namespace hpcsens::preload::abi {

bool resolve_handles(pmpi::Handles& h) noexcept {
  // Handles are compile-time integers; only check that this process really is an MPICH job.
  if (dlsym(RTLD_DEFAULT, "PMPI_Get_library_version") == nullptr) return false;
  h.world = MPI_COMM_WORLD;
  h.comm_null = MPI_COMM_NULL;
  h.byte = MPI_BYTE;
  h.datatype_null = MPI_DATATYPE_NULL;
  // libmpich keeps the address of the Fortran MPI_IN_PLACE (set by the Fortran binding's init
  // before it calls the C MPI_Init) in MPIR_F_MPI_IN_PLACE; mpif.h and `use mpi` put it second in
  // the common block /MPIPRIV1/ (after MPI_BOTTOM). mpi_f08 goes through the C entry points,
  // which see the C MPI_IN_PLACE.
  if (auto* slot = static_cast<void* const*>(dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE")))
    h.fortran_in_place[0] = *slot;
  if (auto* block = static_cast<const char*>(dlsym(RTLD_DEFAULT, "mpipriv1_")))
    h.fortran_in_place[1] = block + sizeof(MPI_Fint);
  return true;
}

}  // namespace hpcsens::preload::abi
