/* Minimal MPI job for the Top-Down run test: each rank does a little floating-point work,
 * one MPI_Allreduce, and exits 0. Every rank makes exactly: MPI_Init, MPI_Comm_rank,
 * MPI_Allreduce x1, MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  volatile double x = 0.0;
  for (int i = 0; i < 2000000; ++i) x = x + (double)i * 1e-9;
  double local = x, sum = 0.0;
  MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
