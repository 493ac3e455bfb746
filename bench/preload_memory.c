/* Peak resident memory of an MPI rank (VmHWM from /proc/self/status), read after MPI_Finalize so
 * that the preload's finalize work (record building, gather) is included. Does a little
 * communication so the wrappers' per-thread slots are touched as in a real run.
 * Prints "rank R vmhwm_kib N". With PRELOAD_MEMORY_SMAPS=PREFIX in its environment it also copies
 * /proc/self/smaps to PREFIX.R after MPI_Finalize, for the per-mapping split
 * (docs/methodology.md, "Memory"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long vmhwm_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) sscanf(line + 6, "%ld", &kib);
  if (f) fclose(f);
  return kib;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 1, y = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 100; ++i) {
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 0, &y, 1, MPI_INT, (rank + size - 1) % size,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  printf("rank %d vmhwm_kib %ld\n", rank, vmhwm_kib());
  const char* prefix = getenv("PRELOAD_MEMORY_SMAPS");
  if (prefix && *prefix) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    FILE* in = fopen("/proc/self/smaps", "r");
    FILE* out = fopen(path, "w");
    char buf[4096];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    if (in) fclose(in);
    if (out) fclose(out);
  }
  return 0;
}
