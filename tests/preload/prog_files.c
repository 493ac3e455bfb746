/* Test program of the per-file I/O table (issue 20 item 2). Usage: prog_files [many] DIR.
 * It works in DIR (chdir), on every rank r:
 *   unique.r (relative path, posix): write() 10 x 1000 B and 3 x 50 B, then pwrite() 100 B at
 *     100000 (sequential), at 5000 (random) and at 5100 (consecutive): 16 writes, 10450 B,
 *     14 consecutive, 1 sequential, 1 random; sizes: 6 in 0-100, 10 in 100-1K.
 *   DIR/shared.dat (absolute, made by the test, 4096 B): read() 4 x 1024 B and one read at the end
 *     (0 B): 5 reads, 4096 B, 5 consecutive; sizes: 1 in 0-100, 4 in 100-1K.
 *   stream.r (fopen, stdio): fwrite 3 x 2000 B, fclose: 6000 B, sizes: 3 in 1K-10K.
 *   "sp ace\xe9.r" (posix): write() 7 B: a path with a space and a non-UTF-8 byte.
 *   /dev/null written and /proc/self/statm read: not file I/O.
 *   mpiio.dat (MPI-IO, relative, shared by all ranks): MPI_File_write_at 1000 B at r x 1000.
 * With "many": also opens many.0 .. many.599 (write 1 B each, close): more than the table holds. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int check(int ok, const char* what) {
  if (!ok) fprintf(stderr, "prog_files: %s failed\n", what);
  return ok ? 0 : 1;
}

static int unique_file(int rank) {
  char name[64], block[1000];
  memset(block, 'u', sizeof block);
  snprintf(name, sizeof name, "unique.%d", rank);
  const int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  int bad = check(fd >= 0, "open unique");
  for (int i = 0; i < 10; ++i) bad |= check(write(fd, block, 1000) == 1000, "write 1000");
  for (int i = 0; i < 3; ++i) bad |= check(write(fd, block, 50) == 50, "write 50");
  bad |= check(pwrite(fd, block, 100, 100000) == 100, "pwrite 100000");
  bad |= check(pwrite(fd, block, 100, 5000) == 100, "pwrite 5000");
  bad |= check(pwrite(fd, block, 100, 5100) == 100, "pwrite 5100");
  return bad | check(close(fd) == 0, "close unique");
}

static int shared_file(const char* dir) {
  char path[4096], buf[1024];
  snprintf(path, sizeof path, "%s/shared.dat", dir);
  const int fd = open(path, O_RDONLY);
  int bad = check(fd >= 0, "open shared");
  for (int i = 0; i < 4; ++i) bad |= check(read(fd, buf, sizeof buf) == 1024, "read 1024");
  bad |= check(read(fd, buf, sizeof buf) == 0, "read at end");
  return bad | check(close(fd) == 0, "close shared");
}

static int stream_and_odd_name(int rank) {
  char name[64], block[2000];
  memset(block, 's', sizeof block);
  snprintf(name, sizeof name, "stream.%d", rank);
  FILE* f = fopen(name, "w");
  int bad = check(f != NULL, "fopen");
  for (int i = 0; i < 3; ++i) bad |= check(fwrite(block, 1, 2000, f) == 2000, "fwrite");
  bad |= check(fclose(f) == 0, "fclose");
  snprintf(name, sizeof name, "sp ace\xe9.%d", rank);
  const int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  bad |= check(fd >= 0 && write(fd, "odd one", 7) == 7, "odd name");
  return bad | check(close(fd) == 0, "close odd");
}

static int not_files(void) {
  char buf[256];
  const int null = open("/dev/null", O_WRONLY);
  int bad = check(null >= 0 && write(null, buf, 100) == 100, "/dev/null");
  close(null);
  const int statm = open("/proc/self/statm", O_RDONLY);
  bad |= check(statm >= 0 && read(statm, buf, sizeof buf) > 0, "/proc/self/statm");
  close(statm);
  return bad;
}

static int mpiio_file(int rank) {
  char block[1000];
  memset(block, 'm', sizeof block);
  MPI_File fh;
  int bad = check(MPI_File_open(MPI_COMM_WORLD, "mpiio.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                MPI_INFO_NULL, &fh) == MPI_SUCCESS, "MPI_File_open");
  bad |= check(MPI_File_write_at(fh, (MPI_Offset)rank * 1000, block, 1000, MPI_BYTE,
                                 MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_File_write_at");
  return bad | check(MPI_File_close(&fh) == MPI_SUCCESS, "MPI_File_close");
}

static int many_files(void) {
  int bad = 0;
  for (int i = 0; i < 600 && !bad; ++i) {
    char name[64];
    snprintf(name, sizeof name, "many.%d", i);
    const int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    bad |= check(fd >= 0 && write(fd, "x", 1) == 1, "many");
    close(fd);
  }
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* dir = argv[argc - 1];
  if (argc < 2 || chdir(dir) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  int bad = unique_file(rank) | shared_file(dir) | stream_and_odd_name(rank) | not_files();
  bad |= mpiio_file(rank);
  if (argc > 2 && strcmp(argv[1], "many") == 0) bad |= many_files();
  MPI_Finalize();
  return bad;
}
