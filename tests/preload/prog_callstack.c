/* Known call stacks for the depth-2 call-site test (issue 33, checked as mpiP's -k 2 would be):
 * helper() sends from one line, called 3 times with 4 ints from line "site:from_a" and 2 times with
 * 64 ints from line "site:from_b" (rank 0 to rank 1); site_a(), always inlined into main, makes
 * one MPI_Allreduce of one int on every rank ("site:inlined"). The send is checked so that the
 * compiler cannot turn it into a tail call (which would make main the site). */
#include <mpi.h>

static inline __attribute__((always_inline)) void site_a(int* v, int* out) {
  MPI_Allreduce(v, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* site:inlined */
}

__attribute__((noinline)) void helper(int* buf, int n, int to) {
  if (MPI_Send(buf, n, MPI_INT, to, 1, MPI_COMM_WORLD) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1); /* site:helper */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, v = 1, out = 0, buf[64] = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  site_a(&v, &out);
  if (rank == 0) {
    for (int i = 0; i < 3; ++i) helper(buf, 4, 1);  /* site:from_a */
    for (int i = 0; i < 2; ++i) helper(buf, 64, 1); /* site:from_b */
  } else if (rank == 1) {
    for (int i = 0; i < 5; ++i) MPI_Recv(buf, 64, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
