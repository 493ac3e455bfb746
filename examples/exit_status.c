/* Finishes MPI normally, then exits with the status given on the command line (default 3),
 * to check that wrappers hand the job's exit status back unchanged.
 * MPI calls per rank, exactly: MPI_Barrier 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  const int status = argc > 1 ? atoi(argv[1]) : 3;
  if (rank == 0) printf("exit: status=%d\n", status);
  MPI_Finalize();
  return status;
}
