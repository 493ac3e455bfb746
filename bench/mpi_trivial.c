/* The smallest MPI job, for start-up cost (preload_startup.sh): MPI_Init, MPI_Finalize, exit. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
