/* Fixture for the PAPI test double's mpirun tests: a fixed amount of work, one MPI_Allreduce,
 * one line of output per rank, and the exit status given as argv[1] (so a test can check that
 * counting, or failing to count, changes neither the job's output nor its exit status). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long local = rank + 1, sum = 0;
  MPI_Allreduce(&local, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d sum %ld\n", rank, size, sum);
  fflush(stdout);
  MPI_Finalize();
  return argc > 1 ? atoi(argv[1]) : 0;
}
