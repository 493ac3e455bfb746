/* A minimal PMPI tool, as mpiP or a site's library is built: it defines MPI_Send, MPI_Barrier and
 * MPI_Finalize, counts, and calls the PMPI_ versions. Preloaded beside hpcsens in both orders by
 * the coexistence test. It makes no MPI call of its own (its report uses the launcher's rank). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long sends, barriers;

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++sends;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Barrier(MPI_Comm comm) {
  ++barriers;
  return PMPI_Barrier(comm);
}

int MPI_Finalize(void) {
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  fprintf(stderr, "other-tool rank %s: MPI_Send %ld MPI_Barrier %ld\n", rank ? rank : "?", sends,
          barriers);
  return PMPI_Finalize();
}
