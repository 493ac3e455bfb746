/* Every rank leaves with exit(0) without calling MPI_Finalize (a common bug, and what a crash
 * looks like to a profiler that reports only at finalize).
 * MPI calls per rank: MPI_Barrier 1, MPI_Allreduce 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  int one = 1, n = 0;
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("no-finalize: %d ranks exit without MPI_Finalize\n", n);
    fflush(stdout);
  }
  exit(0);
}
