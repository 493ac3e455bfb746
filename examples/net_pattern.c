/* A communication pattern with a known critical path, for validating the network terms
   (issue 21; tests/integration/net_validation_test.cpp, docs/methodology.md).

   Every rank, ITERS times:
     1. ring:      MPI_Sendrecv of BYTES to the right neighbour, from the left     1 message
     2. halo:      MPI_Isend of BYTES to the left and to the right neighbour,
                   MPI_Irecv from both, MPI_Waitall                                2 messages
     3. allreduce: MPI_Allreduce of one double                           ceil(log2 p) messages
     4. compute:   a fixed busy loop of COMPUTE_US microseconds (time that no network changes)
   So per iteration the critical path carries 3 + ceil(log2 p) messages and
   3 x BYTES + 8 x ceil(log2 p) bytes (the halo's two sends leave one after the other), and the
   program prints them (rank 0) as `expected_messages` and `expected_bytes` for the whole run.

   Usage: mpirun -np P net_pattern [ITERS [BYTES [COMPUTE_US]]]   (defaults 200, 65536, 200) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int ceil_log2(int p) {
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}

static void busy_us(double us) {
  const double end = MPI_Wtime() + us * 1e-6;
  while (MPI_Wtime() < end) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  const int bytes = argc > 2 ? atoi(argv[2]) : 65536;
  const double compute_us = argc > 3 ? atof(argv[3]) : 200;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  char* out = calloc((size_t)bytes + 1, 1);
  char* in = calloc((size_t)bytes + 1, 1);
  char* halo_l = calloc((size_t)bytes + 1, 1);
  char* halo_r = calloc((size_t)bytes + 1, 1);
  double x = rank, sum = 0;
  for (int i = 0; i < iters; ++i) {
    MPI_Sendrecv(out, bytes, MPI_BYTE, right, 1, in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Request req[4];
    MPI_Irecv(halo_l, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(halo_r, bytes, MPI_BYTE, right, 3, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(out, bytes, MPI_BYTE, left, 3, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(out, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    busy_us(compute_us);
  }
  if (rank == 0) {
    const long long steps = ceil_log2(size);
    printf("expected_messages %lld\nexpected_bytes %lld\n", (long long)iters * (3 + steps),
           (long long)iters * (3LL * bytes + 8 * steps));
  }
  free(out);
  free(in);
  free(halo_l);
  free(halo_r);
  MPI_Finalize();
  return 0;
}
