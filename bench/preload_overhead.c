/* Preload overhead harness (run by preload_overhead.sh, with and without an LD_PRELOAD library).

   Why paired, in-process blocks: on a shared 2-core VM the 0-byte ping-pong latency of one run
   differs from the next by 3x (host placement of the vCPUs, other jobs), so comparing separate
   runs measures the noise, not the wrapper. Here every measurement alternates short blocks of
   the same loop through MPI_* (the interposed entry point) and through PMPI_* (straight into the
   MPI library, never intercepted: looked up in libmpi itself, because libhpcsens_preload.so also
   defines PMPI_ names so that other PMPI tools coexist with it) in the same processes, and reports the median of the paired
   differences. Without a preload both paths are the same function, so the figure is ~0.

   Prints on rank 0:
     call_ns_mpi / call_ns_pmpi / call_added_ns   MPI_Test(MPI_REQUEST_NULL) in a tight loop
     pingpong_us_mpi / pingpong_us_pmpi           0-byte MPI_Send/MPI_Recv half round trip
     pingpong_added_ns / pingpong_overhead_pct    median of the paired block differences
     write_ns_preload / write_ns_libc / write_added_ns  8-byte write() to a file opened after
                                                  MPI_Init (a tracked file: per-call and per-file
                                                  accounting), through the interposed write and
                                                  through libc's own
   Usage: mpirun -np 1|2 preload_overhead [CALL_BLOCKS] [PINGPONG_BLOCKS] [WRITE_BLOCKS DIR] */
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The MPI library's own PMPI_ functions, whatever a preload defines. */
static int (*lib_test)(MPI_Request*, int*, MPI_Status*) = PMPI_Test;
static int (*lib_send)(const void*, int, MPI_Datatype, int, int, MPI_Comm) = PMPI_Send;
static int (*lib_recv)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*) = PMPI_Recv;
static void find_library_pmpi(void) {
  const char* names[] = {"libmpi.so.40", "libmpich.so.12", "libmpi.so.12"};
  for (int i = 0; i < 3; ++i) {
    void* h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void* t = dlsym(h, "PMPI_Test");
    void* s = dlsym(h, "PMPI_Send");
    void* r = dlsym(h, "PMPI_Recv");
    if (t && s && r) {
      *(void**)&lib_test = t;
      *(void**)&lib_send = s;
      *(void**)&lib_recv = r;
      return;
    }
  }
}

enum { kCallsPerBlock = 200000, kTripsPerBlock = 2000, kMaxBlocks = 10000 };

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}
static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

/* Nanoseconds per MPI_Test on a null request, through MPI_ or PMPI_. */
static double test_block(int use_pmpi) {
  MPI_Request req = MPI_REQUEST_NULL;
  int flag = 0;
  const double t = PMPI_Wtime();
  if (use_pmpi)
    for (long i = 0; i < kCallsPerBlock; ++i) lib_test(&req, &flag, MPI_STATUS_IGNORE);
  else
    for (long i = 0; i < kCallsPerBlock; ++i) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
  return (PMPI_Wtime() - t) / kCallsPerBlock * 1e9;
}

/* Microseconds per half round trip between ranks 0 and 1, through MPI_ or PMPI_. */
static double pingpong_block(int rank, int use_pmpi) {
  const int peer = 1 - rank;
  char b = 0;
  PMPI_Barrier(MPI_COMM_WORLD);
  const double t = PMPI_Wtime();
  for (long i = 0; i < kTripsPerBlock; ++i) {
    if (use_pmpi) {
      if (rank == 0) {
        lib_send(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        lib_recv(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        lib_recv(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        lib_send(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      }
    } else {
      if (rank == 0) {
        MPI_Send(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        MPI_Recv(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&b, 0, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      }
    }
  }
  return (PMPI_Wtime() - t) / kTripsPerBlock / 2 * 1e6;
}

/* Runs `blocks` pairs, alternating which path goes first, and reports medians. */
typedef double (*block_fn)(int rank, int use_pmpi);
static void paired(block_fn fn, int rank, int blocks, double* med_mpi, double* med_pmpi,
                   double* med_diff) {
  static double a[kMaxBlocks], p[kMaxBlocks], d[kMaxBlocks];
  fn(rank, 0);  /* warm-up: first-call symbol lookups, caches */
  fn(rank, 1);
  for (int k = 0; k < blocks; ++k) {
    if (k % 2) {
      a[k] = fn(rank, 0);
      p[k] = fn(rank, 1);
    } else {
      p[k] = fn(rank, 1);
      a[k] = fn(rank, 0);
    }
    d[k] = a[k] - p[k];
  }
  *med_diff = median(d, blocks);
  *med_mpi = median(a, blocks);
  *med_pmpi = median(p, blocks);
}

static double test_block_r(int rank, int use_pmpi) { (void)rank; return test_block(use_pmpi); }

/* libc's own write, whatever a preload defines; the file written by write_block. */
static ssize_t (*libc_write)(int, const void*, size_t) = write;
static int g_write_fd = -1;
enum { kWritesPerBlock = 20000 };

/* Nanoseconds per 8-byte write() at the file's start, through the interposed or libc's write. */
static double write_block(int rank, int use_libc) {
  (void)rank;
  static const char bytes[8] = "hpcsens";
  lseek(g_write_fd, 0, SEEK_SET);
  const double t = PMPI_Wtime();
  if (use_libc)
    for (long i = 0; i < kWritesPerBlock; ++i) libc_write(g_write_fd, bytes, sizeof bytes);
  else
    for (long i = 0; i < kWritesPerBlock; ++i) write(g_write_fd, bytes, sizeof bytes);
  return (PMPI_Wtime() - t) / kWritesPerBlock * 1e9;
}

static void write_bench(int rank, int blocks, const char* dir) {
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (libc && dlsym(libc, "write")) *(void**)&libc_write = dlsym(libc, "write");
  char path[4096];
  snprintf(path, sizeof path, "%s/write_bench.%d", dir, rank);
  g_write_fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (g_write_fd < 0) return;
  double m, p, d;
  paired(write_block, rank, blocks, &m, &p, &d);
  printf("write_ns_preload %.2f\nwrite_ns_libc %.2f\nwrite_added_ns %.2f\n", m, p, d);
  close(g_write_fd);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  find_library_pmpi();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int call_blocks = argc > 1 ? atoi(argv[1]) : 30;
  int pp_blocks = argc > 2 ? atoi(argv[2]) : 400;
  if (call_blocks > kMaxBlocks) call_blocks = kMaxBlocks;
  if (pp_blocks > kMaxBlocks) pp_blocks = kMaxBlocks;

  if (call_blocks > 0 && rank == 0) {
    double m, p, d;
    paired(test_block_r, rank, call_blocks, &m, &p, &d);
    printf("call_ns_mpi %.2f\ncall_ns_pmpi %.2f\ncall_added_ns %.2f\n", m, p, d);
  }
  if (pp_blocks > 0 && size >= 2) {
    double m = 0, p = 0, d = 0;
    if (rank < 2) paired(pingpong_block, rank, pp_blocks, &m, &p, &d);
    if (rank == 0)
      printf("pingpong_us_mpi %.4f\npingpong_us_pmpi %.4f\npingpong_added_ns %.1f\n"
             "pingpong_overhead_pct %.2f\n", m, p, d * 1e3, p > 0 ? d / p * 100 : 0);
  }
  if (argc > 4 && atoi(argv[3]) > 0 && rank == 0) write_bench(rank, atoi(argv[3]), argv[4]);
  MPI_Finalize();
  return 0;
}
