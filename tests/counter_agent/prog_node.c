/* The node's counter agent as the ranks see it. Each rank counts its own children that are
 * counter agents (comm "hpcsens-counter", ppid = the rank): rank 0 prints the job's total as
 * "agents N". With "kill", the rank that has the agent kills it and waits until the kernel says it
 * is dead (zombie or gone: the preload reaps it later) before any rank goes on. Every rank then
 * burns CPU_MS of its MPI_Init thread's CPU time, prints "rank R cpu_ns N", and exits with STATUS
 * after MPI_Finalize. Usage: prog_node count|kill CPU_MS STATUS */
#include <dirent.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* State letter and parent of /proc/PID/stat, 0 when the process is gone. */
static char proc_state(long pid, long* ppid, char* comm, size_t n) {
  char path[64], buf[512] = {0};
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[got] = 0;
  char* open = strchr(buf, '(');
  char* close = strrchr(buf, ')');
  char state = 0;
  if (!open || !close || sscanf(close + 1, " %c %ld", &state, ppid) != 2) return 0;
  snprintf(comm, n, "%.*s", (int)(close - open - 1), open + 1);
  return state;
}

/* This rank's agent children: how many, and the pid of the last one. */
static int agent_children(long* last) {
  DIR* d = opendir("/proc");
  struct dirent* e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL) {
    long pid = atol(e->d_name), ppid = 0;
    char comm[64] = {0};
    if (pid <= 0) continue;
    const char st = proc_state(pid, &ppid, comm, sizeof comm);
    if (st && st != 'Z' && ppid == (long)getpid() && strcmp(comm, "hpcsens-counter") == 0) {
      ++n;
      *last = pid;
    }
  }
  if (d) closedir(d);
  return n;
}

static long long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int kill_it = argc > 1 && strcmp(argv[1], "kill") == 0;
  const long long want = (argc > 2 ? atoll(argv[2]) : 100) * 1000000LL;
  int rank, total = 0;
  long agent = 0, ppid = 0;
  char comm[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int mine = agent_children(&agent);
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("agents %d\n", total);
  if (kill_it && mine > 0) {
    kill((pid_t)agent, SIGKILL);
    while (1) {  /* the test's timeout bounds this */
      const char st = proc_state(agent, &ppid, comm, sizeof comm);
      if (st == 0 || st == 'Z') break;
      usleep(1000);
    }
    printf("killed %ld\n", agent);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const long long start = thread_cpu_ns();
  volatile double acc = 0;
  while (thread_cpu_ns() - start < want)
    for (int i = 0; i < 10000; ++i) acc = acc * 0.999 + 1.0;
  printf("rank %d cpu_ns %lld\n", rank, thread_cpu_ns() - start);
  fflush(stdout);
  MPI_Finalize();
  return argc > 3 ? atoi(argv[3]) : 0;
}
