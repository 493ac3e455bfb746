/* Known call sites for the call-site test (the test finds each "site:" marker's line in this
 * file): MPI_Barrier 3 times from one line of main, MPI_Allreduce once from reduce_once, and 5
 * messages from one MPI_Send line (rank 0) to one MPI_Recv line (rank 1). */
#include <mpi.h>

__attribute__((noinline)) static int reduce_once(int v) {
  int out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site:allreduce */
  return out;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD); /* site:barrier */
  for (int i = 0; i < 5; ++i) {
    if (rank == 0) MPI_Send(&i, 1, MPI_INT, 1, 7, MPI_COMM_WORLD); /* site:send */
    else if (rank == 1) MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* site:recv */
  }
  v = reduce_once(rank);
  MPI_Finalize();
  return v == 1 ? 0 : 1;
}
