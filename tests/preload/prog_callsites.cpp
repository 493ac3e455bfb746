// Known call sites in C++ (the test finds each "site:" marker's line): MPI_Barrier 3 times from
// halo::Exchange::settle, MPI_Allreduce once from the template halo::sum<int>, and 5 messages
// from one MPI_Send line (rank 0) to one MPI_Recv line (rank 1) in halo::Exchange::swap.
#include <mpi.h>

namespace halo {

template <class T>
[[gnu::noinline]] T sum(T v) {
  T out{};
  MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);  // site:allreduce
  return out;
}

class Exchange {
 public:
  explicit Exchange(int rank) : rank_(rank) {}
  [[gnu::noinline]] void settle() {
    for (int i = 0; i < 3; ++i) MPI_Barrier(MPI_COMM_WORLD);  // site:barrier
    // Work after the loop: the last call is not in tail position (a tail call returns to OUR
    // caller, and its site would be main's line: docs/user-guide.md, "Call sites").
    settled_ = true;
  }
  bool settled() const { return settled_; }
  [[gnu::noinline]] void swap() {
    int v = 0;
    for (int i = 0; i < 5; ++i) {
      if (rank_ == 0) MPI_Send(&i, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);  // site:send
      else if (rank_ == 1) MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // site:recv
    }
  }

 private:
  int rank_;
  volatile bool settled_ = false;
};

}  // namespace halo

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  halo::Exchange x(rank);
  x.settle();
  x.swap();
  const int total = halo::sum(rank);
  MPI_Finalize();
  return total == 1 && x.settled() ? 0 : 1;
}
