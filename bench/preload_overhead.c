/* Preload overhead harness (run by preload_overhead.sh with and without LD_PRELOAD).
   Prints two numbers on rank 0:
     call_ns      mean time of MPI_Test(MPI_REQUEST_NULL) in a tight loop (an intercepted call
                  that does almost nothing, so the difference is the wrapper's own cost)
     pingpong_us  half round trip of a 0-byte MPI_Send/MPI_Recv ping-pong between ranks 0 and 1
   Usage: mpirun -np 2 preload_overhead [CALLS] [ROUND_TRIPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long calls = argc > 1 ? atol(argv[1]) : 20000000L;
  const long trips = argc > 2 ? atol(argv[2]) : 200000L;

  MPI_Request req = MPI_REQUEST_NULL;
  int flag = 0;
  for (long i = 0; i < calls / 10 + 1; ++i) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  double t = MPI_Wtime();
  for (long i = 0; i < calls; ++i) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  const double call_ns = calls > 0 ? (MPI_Wtime() - t) / (double)calls * 1e9 : 0;

  double pingpong_us = 0;
  if (size >= 2 && rank < 2) {
    const int peer = 1 - rank;
    char b = 0;
    for (long i = 0; i < trips + trips / 10; ++i) {
      if (i == trips / 10) t = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      }
    }
    pingpong_us = (MPI_Wtime() - t) / (double)trips / 2 * 1e6;
  }
  if (rank == 0) printf("call_ns %.2f\npingpong_us %.4f\n", call_ns, pingpong_us);
  MPI_Finalize();
  return 0;
}
