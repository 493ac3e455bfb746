/* A deliberately imbalanced program: the last rank (nranks-1) does 3x the work of the others,
 * so it has the most compute time and every other rank waits for it in MPI_Barrier.
 *
 * Usage: example_imbalance [UNITS]   (work units of the fast ranks, default 25)
 *
 * MPI calls per rank, exactly:
 *   MPI_Barrier    1: the others wait here for the slow rank
 *   MPI_Allreduce  1: total units done
 * stdout (rank 0 only) is deterministic. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* One unit of pure core work (a few milliseconds); volatile keeps the compiler honest. */
static double unit_of_work(double seed) {
  volatile double x = seed;
  for (int i = 0; i < 1000000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long base = argc > 1 ? atol(argv[1]) : 25;
  const long units = rank == size - 1 ? 3 * base : base;
  double acc = 0;
  for (long u = 0; u < units; ++u) acc += unit_of_work(1.0 + (double)u);
  if (acc < 0) fprintf(stderr, "impossible\n"); /* uses acc */
  MPI_Barrier(MPI_COMM_WORLD);
  long total = 0;
  MPI_Allreduce(&units, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("imbalance: ranks=%d slow_rank=%d units_total=%ld\n", size, size - 1, total);
  MPI_Finalize();
  return 0;
}
