/* Test program: one-sided accesses and sends to MPI_PROC_NULL under the network-delay knob (run
 * on 2 ranks). Each rank exposes 16 doubles and, between two fences, puts 10 doubles (80 B) into
 * its right neighbour, gets 5 doubles (40 B) from it, accumulates one int (4 B) and puts 1 double
 * to MPI_PROC_NULL; then sends 10 doubles to MPI_PROC_NULL with MPI_Send and with a started
 * persistent send (a non-periodic boundary's halo: nothing moves). Expected per rank: 3 delayed
 * messages, 124 bytes. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double base[16] = {0}, out[10] = {1}, in[5];
  int one = 1;
  MPI_Win win;
  MPI_Win_create(base, sizeof base, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const int right = (rank + 1) % size;
  MPI_Win_fence(0, win);
  MPI_Put(out, 10, MPI_DOUBLE, right, 0, 10, MPI_DOUBLE, win);
  MPI_Get(in, 5, MPI_DOUBLE, right, 10, 5, MPI_DOUBLE, win);
  MPI_Accumulate(&one, 1, MPI_INT, right, 15, 1, MPI_INT, MPI_SUM, win);
  MPI_Put(out, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, 1, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Send(out, 10, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Request boundary;
  MPI_Send_init(out, 10, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &boundary);
  MPI_Start(&boundary);
  MPI_Wait(&boundary, MPI_STATUS_IGNORE);
  MPI_Request_free(&boundary);
  MPI_Finalize();
  return 0;
}
