/* Test MPI program for the preload tests: a fixed, known set of calls per rank so the record can
   be checked call by call. Usage: prog_c MODE DIR   (MODE: normal, exit, abort, threads). */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int rank, size;

static void posix_io(const char* dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/posix.rank%d.dat", dir, rank);
  static char block[4096];
  memset(block, 'x', sizeof block);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (write(fd, block, sizeof block) != (ssize_t)sizeof block) abort();
  if (write(fd, block, sizeof block) != (ssize_t)sizeof block) abort();
  fsync(fd);
  close(fd);
  fd = open(path, O_RDONLY);
  if (read(fd, block, sizeof block) != (ssize_t)sizeof block) abort();
  close(fd);
}

static void mpi_io(const char* dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/mpiio.dat", dir);
  char data[1000];
  memset(data, 'y', sizeof data);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at(fh, (MPI_Offset)rank * 1000, data, 1000, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  /* The file now holds 1000 bytes per rank: a read of 1000 at offset size*1000-500 gets 500. */
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  MPI_File_read_at(fh, (MPI_Offset)size * 1000 - 500, data, 1000, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
}

static void messages(void) {
  int ints[150] = {0};
  for (int i = 0; i < 3; ++i) {
    if (rank == 0) MPI_Send(ints, 100, MPI_INT, 1, i, MPI_COMM_WORLD);
    /* Posted 150, received 100: the record counts what arrived, with or without a status. */
    MPI_Status st;
    if (rank == 1)
      MPI_Recv(ints, 150, MPI_INT, 0, i, MPI_COMM_WORLD, i == 0 ? &st : MPI_STATUS_IGNORE);
  }
  double in[10] = {1}, out[10];
  for (int i = 0; i < 5; ++i) MPI_Allreduce(in, out, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  char s[7] = "hello!", r[7];
  MPI_Request req[2];
  MPI_Irecv(r, 7, MPI_CHAR, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(s, 7, MPI_CHAR, (rank + 1) % size, 9, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  int b[16] = {0};
  MPI_Bcast(b, 16, MPI_INT, 0, MPI_COMM_WORLD);
  int g[64] = {0};
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 4, MPI_INT, MPI_COMM_WORLD);
}

static void* thread_body(void* arg) {
  int tag = (int)(long)arg, x = 1, y = 0;
  for (int i = 0; i < 25; ++i)
    MPI_Sendrecv(&x, 1, MPI_INT, rank, tag, &y, 1, MPI_INT, rank, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  return NULL;
}

/* "inplace" mode, 2 ranks: the v-collectives with MPI_IN_PLACE, whose contribution is this rank's
   entry of the count array (8 bytes per double):
     Allgatherv, recvcounts {1,2}:      rank 0: 8,  rank 1: 16
     Gatherv to 0, recvcounts {1,2}:    rank 0 (in place): 8,  rank 1 sends 2: 16
     Scatterv from 0, sendcounts {3,4}: rank 0 (in place): 24, rank 1 receives 4: 32 */
static void in_place_collectives(void) {
  double buf[8] = {0};
  int counts12[2] = {1, 2}, displs12[2] = {0, 1};
  int counts34[2] = {3, 4}, displs34[2] = {0, 3};
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts12, displs12, MPI_DOUBLE,
                 MPI_COMM_WORLD);
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts12, displs12, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(buf, 2, MPI_DOUBLE, NULL, NULL, NULL, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    MPI_Scatterv(buf, counts34, displs34, MPI_DOUBLE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0,
                 MPI_COMM_WORLD);
  else
    MPI_Scatterv(NULL, NULL, NULL, MPI_DOUBLE, buf, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "normal";
  const char* dir = argc > 2 ? argv[2] : ".";
  if (strcmp(mode, "threads") == 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) return 77;
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "threads") == 0) {
    pthread_t t[4];
    for (long i = 0; i < 4; ++i) pthread_create(&t[i], NULL, thread_body, (void*)i);
    for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
    MPI_Finalize();
    return 0;
  }
  if (strcmp(mode, "inplace") == 0) {
    in_place_collectives();
    MPI_Finalize();
    return 0;
  }
  messages();
  posix_io(dir);
  mpi_io(dir);
  /* Some work, so the counters and the compute time are not zero. */
  volatile double acc = 0;
  for (long i = 0; i < 20000000; ++i) acc += (double)i * 1e-9;
  /* A child that exits normally is not the rank: it must not leave a partial record. */
  pid_t child = fork();
  if (child == 0) exit(0);
  waitpid(child, NULL, 0);
  if (strcmp(mode, "exit") == 0) exit(3);
  if (strcmp(mode, "abort") == 0) {
    if (rank == 0) MPI_Abort(MPI_COMM_WORLD, 5);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
