/* Short I/O bursts in a compute run, for the phase test: each rank writes an input file of 32 MiB
 * before MPI_Init (so it is in the page cache), reads it back right after MPI_Init (a set-up
 * read), then computes (a spin on the clock) for 1.2 s, writing 8 MiB every 0.2 s (a periodic
 * checkpoint). It prints when each burst began and ended, in seconds since MPI_Init returned
 * ("rank R read 0.000100 0.004000", "rank R write 0.200000 0.203000"). The files are in /dev/shm
 * (tmpfs: a write is a copy, never held up by the kernel's write-back of a busy disk, which took
 * 200 ms for one 8 MiB write to /tmp on this VM under load) and removed at the end.
 * Usage: prog_bursts DIR (DIR: unused, the tests' convention) */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { kInput = 32 << 20, kCheckpoint = 8 << 20 };

static void fill(const char* path, char* buf, size_t n) {
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || write(fd, buf, n) != (ssize_t)n) exit(1);
  close(fd);
}

int main(int argc, char** argv) {
  (void)argc, (void)argv;
  char in_path[4096], out_path[4096];
  snprintf(in_path, sizeof in_path, "/dev/shm/hpcsens-bursts-input.%ld", (long)getpid());
  char* buf = malloc(kInput);
  if (!buf) return 1;
  memset(buf, 'x', kInput);
  fill(in_path, buf, kInput);
  MPI_Init(&argc, &argv);
  const double start = now();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  snprintf(out_path, sizeof out_path, "/dev/shm/hpcsens-bursts-checkpoint.%ld", (long)getpid());
  double t = now();
  const int fd = open(in_path, O_RDONLY);
  size_t got = 0;
  for (ssize_t n; fd >= 0 && got < kInput && (n = read(fd, buf + got, kInput - got)) > 0;) got += (size_t)n;
  if (fd >= 0) close(fd);
  printf("rank %d read %.6f %.6f\n", rank, t - start, now() - start);
  volatile double sink = 0;
  for (int k = 1; k <= 5; ++k) {
    while (now() < start + 0.2 * k) sink += 1.0;
    t = now();
    fill(out_path, buf, kCheckpoint);
    printf("rank %d write %.6f %.6f\n", rank, t - start, now() - start);
  }
  while (now() < start + 1.2) sink += 1.0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  unlink(in_path);
  unlink(out_path);
  free(buf);
  return 0;
}
