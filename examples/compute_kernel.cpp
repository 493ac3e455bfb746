// A cache-resident compute kernel: a 16 KiB array updated in place many times (core-bound).
//
// Usage: example_compute [REPS]   (default 20000 passes over 2048 doubles)
//
// MPI calls per rank, exactly:
//   MPI_Bcast      1: rank 0's repetition count
//   MPI_Barrier    1: start the kernel together
//   MPI_Allreduce  1: integer checksum (integer sums do not depend on reduction order)
// stdout (rank 0 only) is deterministic.
#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long reps = argc > 1 ? std::atol(argv[1]) : 20000;
  MPI_Bcast(&reps, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  std::array<double, 2048> x{};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 7 + rank);
  MPI_Barrier(MPI_COMM_WORLD);
  for (long r = 0; r < reps; ++r)
    for (double& v : x) v = v * 0.999 + 0.001;
  double sum = 0;
  for (double v : x) sum += v;
  long long local = std::llround(sum * 1000.0), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("compute: ranks=%d reps=%ld checksum=%lld\n", size, reps, total);
  MPI_Finalize();
  return 0;
}
