/* MPICH C test program for mpich_test.cpp. Every rank (partner = rank ^ 1, or itself when alone)
 * makes exactly:
 *   MPI_Sendrecv x4 (8 doubles each way: 4 * 64 = 256 bytes sent, 256 received), MPI_Bcast x2,
 *   MPI_Allreduce x3, MPI_Barrier x1.
 * Rank 0 prints one deterministic line; the exit status is argv[1] (default 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int partner = size > 1 ? rank ^ 1 : rank;
  double out[8], in[8];
  for (int i = 0; i < 8; ++i) out[i] = rank + i;
  for (int k = 0; k < 4; ++k)
    MPI_Sendrecv(out, 8, MPI_DOUBLE, partner, k, in, 8, MPI_DOUBLE, partner, k, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  int root_value = rank == 0 ? 42 : 0;
  MPI_Bcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double sum = 0;
  for (int k = 0; k < 3; ++k) MPI_Allreduce(&in[k], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("mpich C: ranks=%d bcast=%d sum=%.1f\n", size, root_value, sum);
  MPI_Finalize();
  return argc > 1 ? atoi(argv[1]) : 0;
}
