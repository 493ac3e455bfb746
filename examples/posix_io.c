/* POSIX I/O with known byte counts: every rank writes CHUNKS x 1 MiB with write(2), fsyncs,
 * then reads the file back with CHUNKS read(2) calls of 1 MiB, and removes it.
 *
 * Usage: example_io [DIR]   (where the per-rank files go, default /tmp)
 *
 * Per rank, exactly: bytes written 4,194,304 (4 write calls), bytes read 4,194,304 (4 read
 * calls, plus none at EOF), 1 fsync, 2 open, 2 close.
 * MPI calls per rank, exactly:
 *   MPI_Barrier    1: after the I/O
 *   MPI_Allreduce  1: total bytes
 * stdout (rank 0 only, via stdio after the measured I/O) is deterministic. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1 << 20)
#define CHUNKS 4

static void fail(const char* what, const char* path) {
  perror(what);
  fprintf(stderr, "example_io: %s failed on %s\n", what, path);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = argc > 1 ? argv[1] : "/tmp";
  char path[4096];
  snprintf(path, sizeof path, "%s/example_io.%d.%d.dat", dir, (int)getppid(), rank);
  char* buf = malloc(CHUNK);
  if (!buf) fail("malloc", path);
  memset(buf, 'a' + rank % 26, CHUNK);

  long long written = 0, got = 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("open for writing", path);
  for (int i = 0; i < CHUNKS; ++i) {
    ssize_t n = write(fd, buf, CHUNK);
    if (n != CHUNK) fail("write", path);
    written += n;
  }
  if (fsync(fd) != 0) fail("fsync", path);
  close(fd);
  fd = open(path, O_RDONLY);
  if (fd < 0) fail("open for reading", path);
  for (int i = 0; i < CHUNKS; ++i) {
    ssize_t n = read(fd, buf, CHUNK);
    if (n != CHUNK) fail("read", path);
    got += n;
  }
  close(fd);
  unlink(path);
  free(buf);

  MPI_Barrier(MPI_COMM_WORLD);
  long long mine = written + got, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("io: ranks=%d bytes_written_per_rank=%lld bytes_read_per_rank=%lld total=%lld\n", size, written, got,
           total);
  MPI_Finalize();
  return 0;
}
