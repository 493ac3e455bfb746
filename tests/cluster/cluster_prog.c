/* MPI program for the multi-host tests (tests/cluster). Every rank (partner = rank ^ 1, or itself
 * when alone) makes exactly:
 *   MPI_Sendrecv x4 (8 doubles each way: 4 * 64 = 256 bytes sent, 256 received), MPI_Allreduce x3,
 *   MPI_Barrier x1.
 * Usage: cluster_prog [MODE]
 *   (none)       as above; rank 0 prints one deterministic line
 *   kill:R       rank R SIGKILLs itself after the Sendrecvs (the others then wait in Allreduce)
 *   stagger:MS   after the barrier rank k sleeps k*MS milliseconds, so the ranks arrive at
 *                MPI_Finalize at different times */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  const int partner = size > 1 ? rank ^ 1 : rank;
  double out[8], in[8];
  for (int i = 0; i < 8; ++i) out[i] = rank + i;
  for (int k = 0; k < 4; ++k)
    MPI_Sendrecv(out, 8, MPI_DOUBLE, partner < size ? partner : rank, k, in, 8, MPI_DOUBLE,
                 partner < size ? partner : rank, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (strncmp(mode, "kill:", 5) == 0 && rank == atoi(mode + 5)) {
    fflush(stdout);
    kill(getpid(), SIGKILL);
  }
  double sum = 0;
  for (int k = 0; k < 3; ++k) MPI_Allreduce(&in[k], &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (strncmp(mode, "stagger:", 8) == 0) {
    const long ms = atol(mode + 8) * rank;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  if (rank == 0) printf("cluster_prog: ranks=%d sum=%.1f\n", size, sum);
  MPI_Finalize();
  return 0;
}
