/* Test program: a ring of persistent sends (run on 4 ranks). Each rank
 *   - MPI_Send_init 100 doubles (800 B) to rank+1 and MPI_Recv_init from rank-1, and starts both
 *     5 times with MPI_Startall;
 *   - MPI_Ssend_init 3 ints (12 B) to rank+2, started twice with MPI_Start (matched by MPI_Irecv);
 *   - frees them all, then MPI_Rsend_init 4 ints (16 B) to rank+3 (a handle MPI may reuse),
 *     started once after a barrier that guarantees the receive is posted.
 * Expected per rank: partners rank+1 4000 B / 5 messages, rank+2 24 B / 2, rank+3 16 B / 1;
 * MPI_Send_init 4000 B, MPI_Ssend_init 24 B, MPI_Rsend_init 16 B; MPI_Startall 5, MPI_Start 3.
 * With argument "full": 1,100 persistent sends held at once (never started), then freed; the
 * preload's table holds 1,024, so 76 per rank are counted as dropped. */
#include <mpi.h>
#include <string.h>

static void full(void) {
  static MPI_Request many[1100];
  int x = 0;
  for (int i = 0; i < 1100; ++i) MPI_Send_init(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &many[i]);
  for (int i = 0; i < 1100; ++i) MPI_Request_free(&many[i]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "full") == 0) {
    full();
    MPI_Finalize();
    return 0;
  }
  double out[100] = {0}, in[100];
  int small[4] = {0}, got[4];
  MPI_Request ring[2], ss, rs, r;
  MPI_Send_init(out, 100, MPI_DOUBLE, (rank + 1) % size, 1, MPI_COMM_WORLD, &ring[0]);
  MPI_Recv_init(in, 100, MPI_DOUBLE, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &ring[1]);
  for (int i = 0; i < 5; ++i) {
    MPI_Startall(2, ring);
    MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
  }
  MPI_Ssend_init(small, 3, MPI_INT, (rank + 2) % size, 2, MPI_COMM_WORLD, &ss);
  for (int i = 0; i < 2; ++i) {
    MPI_Irecv(got, 3, MPI_INT, (rank + size - 2) % size, 2, MPI_COMM_WORLD, &r);
    MPI_Start(&ss);
    MPI_Wait(&ss, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&ring[0]);
  MPI_Request_free(&ring[1]);
  MPI_Request_free(&ss);
  MPI_Irecv(got, 4, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD, &r);
  MPI_Rsend_init(small, 4, MPI_INT, (rank + 3) % size, 3, MPI_COMM_WORLD, &rs);
  MPI_Barrier(MPI_COMM_WORLD);  /* every receive is posted: a ready send is legal */
  MPI_Start(&rs);
  MPI_Wait(&rs, MPI_STATUS_IGNORE);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Request_free(&rs);
  MPI_Finalize();
  return 0;
}
