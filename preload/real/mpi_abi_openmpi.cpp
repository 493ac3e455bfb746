// Open MPI's ABI (see mpi_abi.h).
#include "preload/real/mpi_abi.h"

#include <dlfcn.h>

#ifndef OPEN_MPI
#error "mpi_abi_openmpi.cpp must be compiled against Open MPI's mpi.h"
#endif

namespace hpcsens::preload::abi {
namespace {
template <class H>
H lookup(const char* symbol) {
  return reinterpret_cast<H>(find_symbol(symbol, false));
}
}  // namespace

const char* own_mpi_name() noexcept { return "Open MPI"; }

const char* foreign_mpi_loaded() noexcept {
  return dlsym(RTLD_DEFAULT, "MPIR_Err_create_code") != nullptr ? "MPICH" : nullptr;
}

bool resolve_handles(pmpi::Handles& h, const char** other) noexcept {
  // MPI_COMM_WORLD etc. are &ompi_mpi_comm_world etc.: undefined data symbols if named directly.
  h.world = lookup<MPI_Comm>("ompi_mpi_comm_world");
  h.comm_null = lookup<MPI_Comm>("ompi_mpi_comm_null");
  h.byte = lookup<MPI_Datatype>("ompi_mpi_byte");
  h.datatype_null = lookup<MPI_Datatype>("ompi_mpi_datatype_null");
  h.op_band = lookup<MPI_Op>("ompi_mpi_op_band");
  h.info_null = lookup<MPI_Info>("ompi_mpi_info_null");
  if (h.world == nullptr || h.byte == nullptr) {
    *other = find_symbol("MPIR_Err_create_code", false) ? "MPICH" : "an unrecognised MPI";
    return false;
  }
  // Fortran MPI_IN_PLACE is the address of a common block, under each compiler's mangling.
  const char* names[4] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                          "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
  for (int i = 0; i < 4; ++i) h.fortran_in_place[i] = find_symbol(names[i], false);
  pmpi::Type_f2c.find();
  pmpi::Comm_f2c.find();
  pmpi::Request_f2c.find();
  return true;
}

}  // namespace hpcsens::preload::abi
