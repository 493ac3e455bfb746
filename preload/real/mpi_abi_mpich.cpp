// MPICH's ABI (see mpi_abi.h).
#include "preload/real/mpi_abi.h"

#include <dlfcn.h>

#include <cstddef>

#ifndef MPICH
#error "mpi_abi_mpich.cpp must be compiled against MPICH's mpi.h"
#endif

namespace hpcsens::preload::abi {

const char* own_mpi_name() noexcept { return "MPICH"; }

const char* foreign_mpi_loaded() noexcept {
  return dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world") != nullptr ? "Open MPI" : nullptr;
}

bool resolve_handles(pmpi::Handles& h, const char** other) noexcept {
  // Handles are compile-time integers, valid only if this process's libmpi has MPICH's ABI: an
  // Open MPI rank (its handles are pointers) also defines PMPI_*, so look for Open MPI's data
  // symbols and for one that only MPICH-ABI libraries define.
  if (find_symbol("ompi_mpi_comm_world", false) != nullptr) {
    *other = "Open MPI";
    return false;
  }
  if (find_symbol("MPIR_Err_create_code", false) == nullptr) {
    *other = "an unrecognised MPI";
    return false;
  }
  h.world = MPI_COMM_WORLD;
  h.comm_null = MPI_COMM_NULL;
  h.byte = MPI_BYTE;
  h.op_band = MPI_BAND;
  h.datatype_null = MPI_DATATYPE_NULL;
  h.info_null = MPI_INFO_NULL;
  // libmpich keeps the address of the Fortran MPI_IN_PLACE (set by the Fortran binding's init
  // before it calls the C MPI_Init) in MPIR_F_MPI_IN_PLACE; mpif.h and `use mpi` put it second in
  // the common block /MPIPRIV1/ (after MPI_BOTTOM). mpi_f08 goes through the C entry points,
  // which see the C MPI_IN_PLACE.
  if (auto* slot = static_cast<void* const*>(find_symbol("MPIR_F_MPI_IN_PLACE", false)))
    h.fortran_in_place[0] = *slot;
  if (auto* block = static_cast<const char*>(find_symbol("mpipriv1_", false)))
    h.fortran_in_place[1] = block + sizeof(MPI_Fint);
  return true;
}

}  // namespace hpcsens::preload::abi
