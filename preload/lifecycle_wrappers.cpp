// MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort in C and in every Fortran mangling.
// Open MPI's Fortran layer calls PMPI_Init etc. directly, so the Fortran entry points need their
// own wrappers: they forward to the next definition of the same symbol and call the lifecycle.
#include "preload/lifecycle.h"
#include "preload/interpose/wrapper_support.h"

using namespace hpcsens::preload;

// Both MPI_ and PMPI_ names, each forwarding to the next definition of its own name, so another
// PMPI tool preloaded before or after hpcsens gets its lifecycle calls too (see wrappers_c.cpp).
// The forwarded call is nested (not counted); after_init/before_finalize run once whichever
// entry point reaches them first.
#define HPCSENS_LIFECYCLE(sym)                                                                 \
  extern "C" HPCSENS_EXPORT int sym##Init(int* argc, char*** argv) {                          \
    static constinit RealSymbol<decltype(&PMPI_Init)> real{#sym "Init", true};                \
    int rc;                                                                                    \
    {                                                                                          \
      InternalScope nested;                                                                    \
      rc = real.get()(argc, argv);                                                             \
    }                                                                                          \
    if (rc == MPI_SUCCESS) after_init();                                                       \
    return rc;                                                                                 \
  }                                                                                            \
  extern "C" HPCSENS_EXPORT int sym##Init_thread(int* argc, char*** argv, int required,       \
                                                 int* provided) {                              \
    static constinit RealSymbol<decltype(&PMPI_Init_thread)> real{#sym "Init_thread", true};  \
    int rc;                                                                                    \
    {                                                                                          \
      InternalScope nested;                                                                    \
      rc = real.get()(argc, argv, required, provided);                                         \
    }                                                                                          \
    if (rc == MPI_SUCCESS) after_init();                                                       \
    return rc;                                                                                 \
  }                                                                                            \
  extern "C" HPCSENS_EXPORT int sym##Finalize() {                                             \
    static constinit RealSymbol<decltype(&PMPI_Finalize)> real{#sym "Finalize", true};        \
    before_finalize();                                                                         \
    InternalScope nested;                                                                      \
    return real.get()();                                                                       \
  }                                                                                            \
  extern "C" HPCSENS_EXPORT int sym##Abort(MPI_Comm comm, int errorcode) {                    \
    static constinit RealSymbol<decltype(&PMPI_Abort)> real{#sym "Abort", true};              \
    before_abort();                                                                            \
    return real.get()(comm, errorcode);                                                        \
  }

HPCSENS_LIFECYCLE(MPI_)
HPCSENS_LIFECYCLE(PMPI_)

namespace {
using FInit = void (*)(void*);
using FInitThread = void (*)(void*, void*, void*);
using FFinalize = void (*)(void*);
using FAbort = void (*)(void*, void*, void*);
}  // namespace

#define HPCSENS_FORTRAN_INIT(sym)                                                          \
  extern "C" HPCSENS_EXPORT void sym(void* ierror) {                                      \
    static constinit RealSymbol<FInit> real{#sym, true};                                  \
    real.get()(ierror);                                                                   \
    if (fb::ok(ierror)) after_init();                                                     \
  }
#define HPCSENS_FORTRAN_INIT_THREAD(sym)                                                   \
  extern "C" HPCSENS_EXPORT void sym(void* required, void* provided, void* ierror) {      \
    static constinit RealSymbol<FInitThread> real{#sym, true};                            \
    real.get()(required, provided, ierror);                                               \
    if (fb::ok(ierror)) after_init();                                                     \
  }
#define HPCSENS_FORTRAN_FINALIZE(sym)                                                      \
  extern "C" HPCSENS_EXPORT void sym(void* ierror) {                                      \
    static constinit RealSymbol<FFinalize> real{#sym, true};                              \
    before_finalize();                                                                    \
    real.get()(ierror);                                                                   \
  }
#define HPCSENS_FORTRAN_ABORT(sym)                                                         \
  extern "C" HPCSENS_EXPORT void sym(void* comm, void* errorcode, void* ierror) {         \
    static constinit RealSymbol<FAbort> real{#sym, true};                                 \
    before_abort();                                                                       \
    real.get()(comm, errorcode, ierror);                                                  \
  }
#define HPCSENS_FORTRAN_ALL(macro, lower, upper) \
  macro(lower) macro(lower##_) macro(lower##__) macro(upper) macro(lower##_f08_)

HPCSENS_FORTRAN_ALL(HPCSENS_FORTRAN_INIT, mpi_init, MPI_INIT)
HPCSENS_FORTRAN_ALL(HPCSENS_FORTRAN_INIT_THREAD, mpi_init_thread, MPI_INIT_THREAD)
HPCSENS_FORTRAN_ALL(HPCSENS_FORTRAN_FINALIZE, mpi_finalize, MPI_FINALIZE)
HPCSENS_FORTRAN_ALL(HPCSENS_FORTRAN_ABORT, mpi_abort, MPI_ABORT)
