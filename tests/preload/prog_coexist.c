/* 2 ranks: rank 0 sends 5 messages to rank 1; both call MPI_Barrier 3 times. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 5; ++i) {
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
