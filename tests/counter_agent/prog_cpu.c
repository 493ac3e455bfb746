/* Burns a known amount of CPU time on the MPI_Init thread between MPI_Init and MPI_Finalize and
 * prints it as the thread itself measures it (CLOCK_THREAD_CPUTIME_ID), plus whether PAPI or
 * libpfm4 is mapped into this process. Usage: prog_cpu CPU_MS
 * stdout per rank: "rank R cpu_ns N papi_mapped 0|1" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int papi_mapped(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[1024];
  int found = 0;
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, "libpapi") || strstr(line, "libpfm")) found = 1;
  if (f) fclose(f);
  return found;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long long start = thread_cpu_ns();
  const long long want = (argc > 1 ? atoll(argv[1]) : 200) * 1000000LL;
  volatile double acc = 0;
  while (thread_cpu_ns() - start < want)
    for (int i = 0; i < 10000; ++i) acc = acc * 0.999 + 1.0;
  int rank, x = 1, y = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const long long used = thread_cpu_ns() - start;
  printf("rank %d cpu_ns %lld papi_mapped %d\n", rank, used, papi_mapped());
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
