#pragma once
// What differs between the MPI ABIs the preload is built for. The same sources are compiled once
// against Open MPI's mpi.h (libhpcsens_preload.so, with mpi_abi_openmpi.cpp) and once against
// MPICH's (libhpcsens_preload_mpich.so, with mpi_abi_mpich.cpp); CMake picks the .cpp.
//   Open MPI: handles are pointers to data symbols in libmpi (looked up with dlsym, so the preload
//             loads into non-MPI programs), f2c conversions are functions.
//   MPICH:    handles are integer constants and f2c conversions are casts (macros in mpi.h).
#include "preload/real/pmpi.h"

namespace hpcsens::preload::abi {

// Fills the predefined handles and the Fortran MPI_IN_PLACE addresses of this ABI, and looks up
// the conversion functions used on the hot path. False if this process's MPI library does not
// have this ABI; then *other names the MPI it has ("Open MPI", "MPICH", ...).
bool resolve_handles(pmpi::Handles& h, const char** other) noexcept;
// The other ABI's MPI ("MPICH" in the Open MPI variant, "Open MPI" in the MPICH one) if this
// process has loaded it, else nullptr. Works before MPI_Init (data symbols of a loaded libmpi).
const char* foreign_mpi_loaded() noexcept;
// The MPI this preload variant is built for ("Open MPI" or "MPICH").
const char* own_mpi_name() noexcept;

inline MPI_Datatype type_f2c(MPI_Fint f) noexcept {
#ifdef PMPI_Type_f2c
  return PMPI_Type_f2c(f);
#else
  return pmpi::Type_f2c.get()(f);
#endif
}

inline MPI_Comm comm_f2c(MPI_Fint f) noexcept {
#ifdef PMPI_Comm_f2c
  return PMPI_Comm_f2c(f);
#else
  return pmpi::Comm_f2c.get()(f);
#endif
}

inline MPI_Request request_f2c(MPI_Fint f) noexcept {
#ifdef PMPI_Request_f2c
  return PMPI_Request_f2c(f);
#else
  return pmpi::Request_f2c.get()(f);
#endif
}

}  // namespace hpcsens::preload::abi
