/* MPI-4 calls through MPICH 4.0 for mpich_test.cpp (MpichMpi4). Run on 2 ranks (partner =
 * rank ^ 1); every rank makes exactly:
 *   MPI_Send_c x1 (100 doubles: 800 bytes) and MPI_Recv_c x1 posting 200 doubles (800 arrive),
 *   MPI_Allreduce_c x1 (10 ints: 40 bytes), MPI_Alltoallv_c x1 (MPI_Count counts {4,4} ints: 32),
 *   MPI_Allreduce_init x1, MPI_Start x3 + MPI_Wait x3 on it, MPI_Isendrecv x1 (16 ints each way:
 *   64 sent) completed by MPI_Wait (x4 in all), a partitioned pair: MPI_Psend_init and
 *   MPI_Precv_init x1 (4 partitions of 8 ints), MPI_Startall x1, MPI_Pready_range x1,
 *   MPI_Waitall x1, MPI_Request_free x3, MPI_Barrier x1.
 * Rank 0 prints one deterministic line. */
#include <mpi.h>
#include <stdio.h>

static void send_recv_c(int rank, int partner) {
  double out[100], in[200];
  for (int i = 0; i < 100; ++i) out[i] = rank + i;
  MPI_Status st;
  if (rank % 2 == 0) {
    MPI_Send_c(out, 100, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD);
    MPI_Recv_c(in, 200, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, &st);
  } else {
    MPI_Recv_c(in, 200, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, &st);
    MPI_Send_c(out, 100, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD);
  }
}

static int persistent_allreduce(void) {
  double x = 1, sum = 0, total = 0;
  MPI_Request req;
  MPI_Allreduce_init(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int k = 0; k < 3; ++k) {
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    total += sum;
  }
  MPI_Request_free(&req);
  return (int)total;
}

static int partitioned(int partner) {
  int out[32], in[32];
  for (int i = 0; i < 32; ++i) out[i] = i;
  MPI_Request reqs[2];
  MPI_Psend_init(out, 4, 8, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
  MPI_Precv_init(in, 4, 8, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
  MPI_Startall(2, reqs);
  MPI_Pready_range(0, 3, reqs[0]);
  MPI_Status sts[2];
  MPI_Waitall(2, reqs, sts);
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
  return in[31];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int partner = rank ^ 1;
  send_recv_c(rank, partner);
  int ten[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, tens[10];
  MPI_Allreduce_c(ten, tens, 10, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int a2a_out[8] = {0}, a2a_in[8];
  const MPI_Count counts[2] = {4, 4};
  const MPI_Aint displs[2] = {0, 4};
  MPI_Alltoallv_c(a2a_out, counts, displs, MPI_INT, a2a_in, counts, displs, MPI_INT,
                  MPI_COMM_WORLD);
  const int total = persistent_allreduce();
  int sr_out[16] = {0}, sr_in[16];
  MPI_Request req;
  MPI_Isendrecv(sr_out, 16, MPI_INT, partner, 3, sr_in, 16, MPI_INT, partner, 3, MPI_COMM_WORLD,
                &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  const int last = partitioned(partner);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("mpich MPI-4: allreduce=%d total=%d partitioned=%d\n", tens[0], total, last);
  MPI_Finalize();
  return 0;
}
