/* Test program: an fsync-heavy job (issue 29), scaled down. argv[1]: a directory.
 * Rank 0 writes <dir>/result.dat through stdio: fopen, 16 fwrite of 1 MiB, fflush, then
 * fsync(fileno(f)) (a POSIX call on a stdio stream's descriptor), fclose. Every rank then writes
 * <dir>/data.<rank> with POSIX: open, 8 pwrite of 1 MiB, fsync, close. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)

static int stdio_part(const char* dir, const char* block) {
  char path[4096];
  snprintf(path, sizeof path, "%s/result.dat", dir);
  FILE* f = fopen(path, "w");
  if (f == NULL) return 1;
  for (int i = 0; i < 16; ++i)
    if (fwrite(block, 1, MIB, f) != MIB) return 1;
  if (fflush(f) != 0 || fsync(fileno(f)) != 0) return 1;
  return fclose(f) != 0;
}

static int posix_part(const char* dir, int rank, const char* block) {
  char path[4096];
  snprintf(path, sizeof path, "%s/data.%d", dir, rank);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 1;
  for (int i = 0; i < 8; ++i)
    if (pwrite(fd, block, MIB, (off_t)i * MIB) != MIB) return 1;
  if (fsync(fd) != 0) return 1;
  return close(fd) != 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* dir = argc > 1 ? argv[1] : ".";
  char* block = malloc(MIB);
  if (block == NULL) MPI_Abort(MPI_COMM_WORLD, 2);
  memset(block, 'x', MIB);
  int bad = rank == 0 ? stdio_part(dir, block) : 0;
  bad += posix_part(dir, rank, block);
  MPI_Barrier(MPI_COMM_WORLD);
  free(block);
  MPI_Finalize();
  return bad;
}
