/* A rank that misbehaves on request, for the failure messages of `hpcsens run`:
 *   ok     MPI_Init, MPI_Comm_rank, MPI_Barrier, MPI_Finalize, prints "guard: ok <rank>"
 *   sleep  MPI_Init, then sleeps 60 s (for --timeout)
 *   segv   MPI_Init, then raises SIGSEGV before MPI_Finalize */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ok";
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (strcmp(mode, "sleep") == 0) sleep(60);
  if (strcmp(mode, "segv") == 0) raise(SIGSEGV);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  printf("guard: ok %d\n", rank);
  return 0;
}
