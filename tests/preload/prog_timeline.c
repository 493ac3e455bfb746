/* A three-phase program for the timeline test: compute (a spin on the clock, no MPI, no I/O)
 * for 0.6 s, then MPI only (MPI_Allreduce in a loop) for 0.6 s, then POSIX writes for 0.3 s.
 * MPI_Pcontrol(1) and (2) mark the switches. Each rank prints when its switches happened, in seconds
 * since MPI_Init returned ("rank R switch_mpi_s=... switch_io_s=..."), for the test to compare with
 * the record's bins. Usage: prog_timeline DIR (the I/O phase writes DIR/timeline.<rank>). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* True on every rank until rank 0's clock passes `until` (one Allreduce per call). */
static int go_on(double until) {
  int mine = now() < until, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double start = now();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  volatile double sink = 0;
  while (now() < start + 0.6) sink += 1.0;
  const double switch_mpi = now() - start;
  MPI_Pcontrol(1);
  while (go_on(start + 1.2)) {
  }
  const double switch_io = now() - start;
  MPI_Pcontrol(2);
  char path[4096];
  snprintf(path, sizeof path, "%s/timeline.%d", argc > 1 ? argv[1] : "/tmp", rank);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  char block[4096];
  memset(block, 'x', sizeof block);
  for (int i = 0; now() < start + switch_io + 0.3; ++i) {
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) break;
    if (i % 256 == 255) lseek(fd, 0, SEEK_SET);  /* 1 MiB of file, rewritten */
  }
  close(fd);
  printf("rank %d switch_mpi_s=%.6f switch_io_s=%.6f\n", rank, switch_mpi, switch_io);
  MPI_Finalize();
  return 0;
}
