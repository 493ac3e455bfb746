// MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort in C and in every Fortran mangling.
// Open MPI's Fortran layer calls PMPI_Init etc. directly, so the Fortran entry points need their
// own wrappers: they forward to the next definition of the same symbol and call the lifecycle.
#include "preload/lifecycle.h"
#include "preload/wrapper_support.h"

using namespace hpcsens::preload;

extern "C" HPCSENS_EXPORT int MPI_Init(int* argc, char*** argv) {
  const int rc = pmpi::Init.get()(argc, argv);
  if (rc == MPI_SUCCESS) after_init();
  return rc;
}

extern "C" HPCSENS_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required,
                                              int* provided) {
  const int rc = pmpi::Init_thread.get()(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) after_init();
  return rc;
}

extern "C" HPCSENS_EXPORT int MPI_Finalize() {
  before_finalize();
  return pmpi::Finalize.get()();
}

extern "C" HPCSENS_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode) {
  before_abort();
  return pmpi::Abort.get()(comm, errorcode);
}

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
