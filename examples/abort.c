/* The last rank calls MPI_Abort(MPI_COMM_WORLD, 5) while the others wait in MPI_Recv for a
 * message that never comes: the launcher must end the job, nothing may hang.
 * MPI calls per rank before the abort: MPI_Barrier 1. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    fprintf(stderr, "abort: rank %d calls MPI_Abort(5)\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 5);
  }
  int never = 0;
  MPI_Recv(&never, 1, MPI_INT, size - 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
