/* The node's power for the end-to-end tests: each node's first rank (its rank 0 in
 * MPI_COMM_TYPE_SHARED) advances the fake powercap counter at the same path on its node (on the
 * namespace cluster the path is node-local, so each node has its own counter)
 *   energy_prog ENERGY_UJ_FILE MAX_RANGE_UJ STEP_UJ STEPS
 * STEPS times by STEP_UJ (wrapping at MAX_RANGE_UJ + 1 as the kernel's counter does), replacing the
 * file atomically each time, all between MPI_Init and MPI_Finalize: inside the span hpcsens run
 * reads the counters over. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int advance(const char* path, unsigned long long max, unsigned long long step) {
  unsigned long long v = 0;
  FILE* in = fopen(path, "r");
  if (!in || fscanf(in, "%llu", &v) != 1) return 1;
  fclose(in);
  v = (unsigned long long)(((unsigned __int128)v + step) % ((unsigned __int128)max + 1));
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE* out = fopen(tmp, "w");
  if (!out) return 1;
  fprintf(out, "%llu\n", v);
  if (fclose(out) != 0) return 1;
  return rename(tmp, path);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, bad = 0;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &rank);
  if (rank == 0 && argc == 5) {
    const unsigned long long max = strtoull(argv[2], NULL, 10), step = strtoull(argv[3], NULL, 10);
    for (int i = 0, n = atoi(argv[4]); i < n && !bad; ++i) bad = advance(argv[1], max, step);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return bad;
}
