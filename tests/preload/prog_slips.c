/* Ranks that do not reach MPI_Finalize. Every rank makes 3 MPI_Barrier calls, then:
 *   abort: rank 0 calls MPI_Abort(3); the others wait in MPI_Recv from rank 0 until the launcher
 *          ends them (Open MPI: SIGTERM, then SIGKILL).
 *   kill9: rank 1 ends itself with SIGKILL (nothing can be saved of it); the others wait in
 *          MPI_Recv from rank 1 until the launcher ends them.
 *   term:  every rank sends itself SIGTERM after the barriers; with a directory as argument 2 it
 *          first writes 200 + 20 bytes to DIR/slip<0xE9>\"q.RANK (a name that is not UTF-8
 *          and holds a backslash and a quote: escaped from the signal handler as in a full record).
 *   plain: one MPI_Sendrecv around the ring, rank k sending 8 (k + 1) bytes to rank k + 1 (so it
 *          receives 8 k, or 8 size on rank 0: sent and received sizes differ), MPI_Finalize. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD);
  const char* mode = argc > 1 ? argv[1] : "plain";
  if (strcmp(mode, "abort") == 0) {
    if (rank == 0) {
      usleep(200000); /* the others are inside MPI_Recv */
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "kill9") == 0) {
    if (rank == 1) {
      usleep(200000);
      raise(SIGKILL);
    }
    MPI_Recv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "term") == 0) {
    if (argc > 2) {
      char path[4096], data[200] = {0};
      snprintf(path, sizeof path, "%s/slip\xe9\\\"q.%d", argv[2], rank);
      const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || write(fd, data, 200) != 200 || write(fd, data, 20) != 20) return 1;
    }
    raise(SIGTERM);
  } else {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char out[8 * 64] = {0}, in[8 * 64];
    const int n = size <= 64 ? size : 64;
    MPI_Sendrecv(out, 8 * ((rank % n) + 1), MPI_BYTE, (rank + 1) % size, 5, in, sizeof in, MPI_BYTE,
                 (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
