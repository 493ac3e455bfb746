/* Test program: bytes fscanf consumes, and I/O on a descriptor above the tracked range.
 * argv[1]: a directory for this rank's files.
 * fscanf: the file "12345 678\nabc 7" followed by 10,000 'x' and " 9" is scanned with
 *   "%d" (5 bytes: "12345"), "%d" (4: " 678"), "%s" (4: "\nabc"), "%d" (2: " 7") and "%*s%d"
 *   (10,003: " " + 10,000 'x' + " 9", across several refills of the stream's 4 KiB buffer):
 *   10,018 bytes in 5 calls.
 * descriptors: a file opened with open() and written 10 bytes, dup2'ed to 200 and written 5
 *   bytes there, then dup2'ed to the highest descriptor the hard limit allows and written 7 bytes
 *   there (counted: posix writes 22). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int scan(const char* path) {
  FILE* f = fopen(path, "w");
  if (!f) return 1;
  fputs("12345 678\nabc 7 ", f);
  for (int i = 0; i < 10000; ++i) fputc('x', f);
  fputs(" 9", f);
  fclose(f);
  f = fopen(path, "r");
  if (!f) return 1;
  int a = 0, b = 0, c = 0, d = 0;
  char s[16];
  int ok = fscanf(f, "%d", &a) + fscanf(f, "%d", &b) + fscanf(f, "%15s", s) + fscanf(f, "%d", &c) +
           fscanf(f, "%*s%d", &d);
  fclose(f);
  return ok == 5 && a == 12345 && b == 678 && strcmp(s, "abc") == 0 && c == 7 && d == 9 ? 0 : 1;
}

static int high_fd(const char* path, int rank) {
  const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  char buf[100] = {0};
  if (fd < 0 || write(fd, buf, 10) != 10) return 1;
  if (dup2(fd, 200) != 200 || write(200, buf, 5) != 5) return 1;
  close(200);
  /* The highest descriptor the hard limit allows (19,999 under a 20,000 limit; 65,600 and more
   * where it is higher): inside the tracked range of 2^20, so its 7 bytes are counted. */
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 1;
  rl.rlim_cur = rl.rlim_max;
  if (rl.rlim_cur > 65601) rl.rlim_cur = 65601;
  if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return 1;
  const int high = (int)rl.rlim_cur - 1;
  if (high <= 200 || dup2(fd, high) != high || write(high, buf, 7) != 7) return 1;
  close(high);
  if (rank == 0) printf("HIGH-FD %d\n", high);
  close(fd);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char scan_path[4096], fd_path[4096];
  snprintf(scan_path, sizeof scan_path, "%s/scan%d.txt", argc > 1 ? argv[1] : ".", rank);
  snprintf(fd_path, sizeof fd_path, "%s/fd%d.bin", argc > 1 ? argv[1] : ".", rank);
  int rc = scan(scan_path);
  if (rc == 0) rc = high_fd(fd_path, rank);
  MPI_Finalize();
  return rc;
}
