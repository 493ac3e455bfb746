/* STREAM triad per rank: a memory-bandwidth-bound kernel (a[i] = b[i] + s * c[i]).
 *
 * Usage: example_stream [N]   (N doubles per array, default 2,000,000; 3 arrays per rank)
 *
 * MPI calls per rank, exactly (what an interposing profiler must count):
 *   MPI_Barrier    NTIMES (10): one before each timed triad, so ranks run the kernel together
 *   MPI_Reduce     1: slowest triad time to rank 0
 *   MPI_Allreduce  1: every rank's checksum verdict
 * stdout (rank 0 only) is deterministic; the bandwidth figure goes to stderr. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NTIMES 10

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? atol(argv[1]) : 2000000L;
  double* a = malloc(sizeof(double) * (size_t)n);
  double* b = malloc(sizeof(double) * (size_t)n);
  double* c = malloc(sizeof(double) * (size_t)n);
  if (!a || !b || !c || n <= 0) {
    fprintf(stderr, "example_stream: cannot allocate %ld doubles\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  const double s = 3.0;
  double best = 1e30;
  for (int k = 0; k < NTIMES; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t = MPI_Wtime();
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double dt = MPI_Wtime() - t;
    if (dt < best) best = dt;
  }
  /* Every a[i] must be 1 + 3 * 2 = 7 exactly. */
  int ok = 1;
  for (long i = 0; i < n; ++i) ok &= a[i] == 7.0;
  double slowest = 0;
  MPI_Reduce(&best, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("stream-triad: ranks=%d n=%ld ntimes=%d check=%s\n", size, n, NTIMES, all_ok ? "ok" : "FAILED");
    if (slowest > 0)
      fprintf(stderr, "stream-triad: per-rank triad bandwidth (slowest rank, best of %d): %.1f MB/s\n",
              NTIMES, 3.0 * sizeof(double) * (double)n / slowest / 1e6);
  }
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
