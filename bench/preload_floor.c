/* The floors the preload's overhead is compared with (benchmark only, never installed).
   Built twice by bench/CMakeLists.txt:
     libpreload_floor_passthrough.so  MPI_Send/MPI_Recv/MPI_Test that only forward to PMPI_*:
                                      the cost of interposition itself (an extra indirect call)
     libpreload_floor_timed.so        the same plus two TSC reads and one add per call: the cost
                                      of any profiler that times each call, with nothing else */
#include <mpi.h>
#include <stdint.h>
#include <x86intrin.h>

#ifdef HPCSENS_FLOOR_TIMED
static uint64_t g_ticks;
#define TIMED(call)                     \
  const uint64_t start = __rdtsc();     \
  const int rc = call;                  \
  g_ticks += __rdtsc() - start;         \
  return rc
#else
#define TIMED(call) return call
#endif

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  TIMED(PMPI_Send(buf, count, type, dest, tag, comm));
}
int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  TIMED(PMPI_Recv(buf, count, type, source, tag, comm, status));
}
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  TIMED(PMPI_Test(request, flag, status));
}
