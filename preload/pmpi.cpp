#include "preload/pmpi.h"

namespace hpcsens::preload::pmpi {
namespace {
Handles g_handles;

template <class H>
H lookup(const char* ompi_symbol, H fallback) {
#ifdef OPEN_MPI
  (void)fallback;
  return reinterpret_cast<H>(dlsym(RTLD_DEFAULT, ompi_symbol));
#else
  (void)ompi_symbol;
  return fallback;
#endif
}
}  // namespace

bool resolve_handles() noexcept {
  if (g_handles.resolved) return true;
#ifdef OPEN_MPI
  g_handles.world = lookup<MPI_Comm>("ompi_mpi_comm_world", nullptr);
  g_handles.comm_null = lookup<MPI_Comm>("ompi_mpi_comm_null", nullptr);
  g_handles.byte = lookup<MPI_Datatype>("ompi_mpi_byte", nullptr);
  g_handles.datatype_null = lookup<MPI_Datatype>("ompi_mpi_datatype_null", nullptr);
  if (g_handles.world == nullptr || g_handles.byte == nullptr) return false;
#else
  g_handles.world = MPI_COMM_WORLD;
  g_handles.comm_null = MPI_COMM_NULL;
  g_handles.byte = MPI_BYTE;
  g_handles.datatype_null = MPI_DATATYPE_NULL;
#endif
  const char* names[4] = {"mpi_fortran_in_place_", "mpi_fortran_in_place",
                          "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
  for (int i = 0; i < 4; ++i) g_handles.fortran_in_place[i] = dlsym(RTLD_DEFAULT, names[i]);
  // The byte-count helpers run inside counted calls: look them up now, not on first use (dlsym
  // may lock and allocate).
  Type_size.find();
  Type_get_envelope.find();
  Get_count.find();
  Type_f2c.find();
  Comm_f2c.find();
  Comm_size.find();
  Comm_remote_size.find();
  Comm_test_inter.find();
  g_handles.resolved = true;
  return true;
}

const Handles& handles() noexcept { return g_handles; }

}  // namespace hpcsens::preload::pmpi
