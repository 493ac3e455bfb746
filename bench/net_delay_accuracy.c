/* Accuracy of the network-delay knob (run by net_delay_accuracy.sh, once per requested delay).

   One rank sends BYTES to itself (MPI_Isend + MPI_Recv + MPI_Wait) in short blocks, alternately
   through MPI_Isend (the preload's wrapper, which spins the delay before handing the message to
   MPI) and through the MPI library's own PMPI_Isend (never delayed, looked up in libmpi as in
   preload_overhead.c). The median of the paired block differences per message is the delay the
   knob achieved, to compare with the one requested (HPCSENS_NET_LATENCY_US +
   BYTES / HPCSENS_NET_BANDWIDTH_GBS). Pairing in one process keeps a shared VM's drift out.
   Then the same pause made by the program itself (a clock spin before the library's Isend) against
   no pause: what a pause between MPI calls costs by itself, which the delayed message pays too.
   Prints: requested_ns, achieved_ns, error_pct, program_gap_ns.   Usage: mpirun -np 1 net_delay_accuracy BYTES [WORK_NS: the program's own work before every message] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*isend_fn)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
static isend_fn lib_isend = PMPI_Isend;
static void find_library_isend(void) {
  const char* names[] = {"libmpi.so.40", "libmpich.so.12", "libmpi.so.12"};
  for (int i = 0; i < 3; ++i) {
    void* h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
    void* f = h ? dlsym(h, "PMPI_Isend") : NULL;
    if (f) {
      *(void**)&lib_isend = f;
      return;
    }
  }
}

enum { kBlocks = 200, kMaxMessages = 2000 };

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double gap_ns = 0; /* a spin in the program itself before each message (0: none) */
static double work_ns = 0; /* the program's own work before every message, in every block */
static void spin_ns(double ns) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < ns);
}

/* Seconds per message of one block through `isend`. */
static double block(isend_fn isend, char* out, char* in, int bytes, int messages) {
  const double t = PMPI_Wtime();
  for (int i = 0; i < messages; ++i) {
    MPI_Request r;
    if (work_ns + gap_ns > 0) spin_ns(work_ns + gap_ns);
    isend(out, bytes, MPI_BYTE, 0, 7, MPI_COMM_SELF, &r);
    PMPI_Recv(in, bytes, MPI_BYTE, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  return (PMPI_Wtime() - t) / messages;
}

static double env_num(const char* name) {
  const char* v = getenv(name);
  return v ? atof(v) : 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  find_library_isend();
  const int bytes = argc > 1 ? atoi(argv[1]) : 0;
  work_ns = argc > 2 ? atof(argv[2]) : 0;
  const double lat_us = env_num("HPCSENS_NET_LATENCY_US"), bw = env_num("HPCSENS_NET_BANDWIDTH_GBS");
  const double requested_ns = lat_us * 1e3 + (bw > 0 ? bytes / bw : 0);
  /* About 2 ms of delay per block, at least 20 messages. */
  int messages = requested_ns > 0 ? (int)(2e6 / requested_ns) : kMaxMessages;
  if (messages < 20) messages = 20;
  if (messages > kMaxMessages) messages = kMaxMessages;
  char* out = calloc((size_t)bytes + 1, 1);
  char* in = calloc((size_t)bytes + 1, 1);
  static double diff[kBlocks];
  block(lib_isend, out, in, bytes, messages); /* warm-up */
  block(MPI_Isend, out, in, bytes, messages);
  for (int b = 0; b < kBlocks; ++b) {
    const double m = block(MPI_Isend, out, in, bytes, messages);
    const double p = block(lib_isend, out, in, bytes, messages);
    diff[b] = (m - p) * 1e9;
  }
  qsort(diff, kBlocks, sizeof *diff, cmp_double);
  const double achieved = 0.5 * (diff[kBlocks / 2 - 1] + diff[kBlocks / 2]);
  printf("requested_ns %.1f\nachieved_ns %.1f\n", requested_ns, achieved);
  /* The same gap made by the program itself (a spin, then the library's own Isend): what a pause
     of that length between MPI calls costs the library (progress-engine catch-up), which a
     delayed message pays too. */
  if (requested_ns > 0) {
    static double gap_diff[kBlocks];
    for (int b = 0; b < kBlocks; ++b) {
      gap_ns = 0;
      const double p = block(lib_isend, out, in, bytes, messages);
      gap_ns = requested_ns;
      const double g = block(lib_isend, out, in, bytes, messages);
      gap_diff[b] = (g - p) * 1e9;
    }
    gap_ns = 0;
    qsort(gap_diff, kBlocks, sizeof *gap_diff, cmp_double);
    printf("program_gap_ns %.1f\n", 0.5 * (gap_diff[kBlocks / 2 - 1] + gap_diff[kBlocks / 2]));
  }
  if (requested_ns > 0) printf("error_pct %.2f\n", 100.0 * (achieved - requested_ns) / requested_ns);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
