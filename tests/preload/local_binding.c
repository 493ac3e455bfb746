/* A language binding in miniature: a shared library linked against libmpi that local_loader opens
 * with RTLD_LOCAL, as Python opens mpi4py's MPI module (and Julia, R and Java their bindings).
 * Its MPI calls reach the preload through the global scope; the real libmpi is only in the
 * binding's local scope. Per rank: MPI_Init_thread, 3 MPI_Allreduce of one int, 2 MPI_Bcast of
 * 100 bytes, 1 MPI_Sendrecv of 64 bytes each way around a ring, MPI_Finalize. */
#include <mpi.h>
#include <stddef.h>

int binding_run(void) {
  int provided = 0, rank = 0, size = 1, sum = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; ++i) MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char buf[100] = {0}, in[64];
  for (int i = 0; i < 2; ++i) MPI_Bcast(buf, 100, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Sendrecv(buf, 64, MPI_BYTE, (rank + 1) % size, 0, in, 64, MPI_BYTE, (rank + size - 1) % size,
               0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return sum == size * (size - 1) / 2 ? 0 : 3;
}
