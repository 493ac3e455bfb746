// The region API (include/hpcsens/region.h) and MPI_Pcontrol, as the preload defines them.
#include <cstdarg>
#include <cstring>

#include "preload/rank_record/regions.h"
#include "preload/interpose/wrapper_support.h"

using namespace hpcsens::preload;

namespace {
std::size_t trimmed(const char* s, std::size_t len) {
  while (len > 0 && s[len - 1] == ' ') --len;
  return len;
}
}  // namespace

extern "C" {

HPCSENS_EXPORT void hpcsens_region_begin(const char* name) {
  region_begin(name, name ? std::strlen(name) : 0);
}
HPCSENS_EXPORT void hpcsens_region_end(const char* name) {
  region_end(name, name ? std::strlen(name) : 0);
}
HPCSENS_EXPORT void hpcsens_region_begin_(const char* name, std::size_t len) {
  region_begin(name, name ? trimmed(name, len) : 0);
}
HPCSENS_EXPORT void hpcsens_region_end_(const char* name, std::size_t len) {
  region_end(name, name ? trimmed(name, len) : 0);
}

// MPI_Pcontrol is variadic; its extra arguments are never read (mpiP and IPM disagree on them).
static int pcontrol(const char* sym, int level) {
  // Fortran's MPI_PCONTROL calls PMPI_Pcontrol: only the outermost call starts a phase.
  if (t_state.depth == 0) pcontrol_phase(level);
  using Fn = int (*)(int, ...);
  static constinit RealSymbol<Fn> real_mpi{"MPI_Pcontrol", true};
  static constinit RealSymbol<Fn> real_pmpi{"PMPI_Pcontrol", true};
  InternalScope nested;
  return (sym[0] == 'P' ? real_pmpi : real_mpi).get()(level);
}
HPCSENS_EXPORT int MPI_Pcontrol(const int level, ...) { return pcontrol("MPI", level); }
HPCSENS_EXPORT int PMPI_Pcontrol(const int level, ...) { return pcontrol("PMPI", level); }

}  // extern "C"

namespace {
using FPcontrol = void (*)(void*);  // MPI_PCONTROL(LEVEL) has no IERROR
}

#define HPCSENS_FORTRAN_PCONTROL(sym)                                        \
  extern "C" HPCSENS_EXPORT void sym(void* level) {                          \
    static constinit RealSymbol<FPcontrol> real{#sym, true};                  \
    if (level != nullptr && t_state.depth == 0)                               \
      pcontrol_phase(*static_cast<const MPI_Fint*>(level));                   \
    InternalScope nested;                                                      \
    real.get()(level);                                                         \
  }
HPCSENS_FORTRAN_PCONTROL(mpi_pcontrol)
HPCSENS_FORTRAN_PCONTROL(mpi_pcontrol_)
HPCSENS_FORTRAN_PCONTROL(mpi_pcontrol__)
HPCSENS_FORTRAN_PCONTROL(MPI_PCONTROL)
HPCSENS_FORTRAN_PCONTROL(mpi_pcontrol_f08_)
