/* Memory per rank for the memory test: rank 1 allocates and touches MIB MiB (argv[1], default
 * 64), every other rank nothing; each rank prints its own VmHWM (KiB) read just before
 * MPI_Finalize ("rank R vmhwm_kib=N"), so the test can also run it without the preload and see
 * what the preload adds. Rank 1 holds the memory until after MPI_Finalize, so the timeline's
 * last sample (taken at t2 whatever the load) sees it. Usage: prog_memory MIB [DIR] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long vmhwm_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) v = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  return v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64;
  if (rank == 1) {
    volatile char* p = malloc(mib << 20);
    if (!p) return 1;
    for (size_t i = 0; i < (mib << 20); i += 4096) p[i] = (char)i; /* every page resident */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d vmhwm_kib=%ld\n", rank, vmhwm_kib());
    MPI_Finalize(); /* the memory still held: the timeline's last sample (at t2) sees it */
    free((void*)p);
    return 0;
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d vmhwm_kib=%ld\n", rank, vmhwm_kib());
  MPI_Finalize();
  return 0;
}
