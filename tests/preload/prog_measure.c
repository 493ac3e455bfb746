/* Exact-count program for the measurements added by issue 11 (run on 4 ranks):
 *   stdio: per rank out.<rank> written with fprintf (12 B), fwrite (1000 B), fputs (4 B),
 *          fputc (1 B), then read back with fgets (12 B) and fread (1000 B);
 *   partners: to rank+1 six MPI_Send (3 x 1000, 40, 80, 24 B), to rank+2 one MPI_Isend of 5000 B;
 *   non-blocking receives posted far larger than what arrives (Wait, Waitall with
 *          MPI_STATUSES_IGNORE, Test): MPI_Irecv bytes = 5000 + 40 + 80 + 24;
 *   added calls: MPI_Dims_create, Cart_create, Cart_sub, Cart_coords, Comm_create_group,
 *          Comm_idup, Intercomm_create, Intercomm_merge, Dist_graph_create_adjacent once each;
 *   phases: MPI_Pcontrol(1) ... MPI_Pcontrol(0); regions "setup" x1, "solve" x2, "output" x1
 *          (stdio only), and one unmatched end (a counted region error).
 * Built with _FORTIFY_SOURCE so glibc's __fprintf_chk/__fread_chk variants are exercised. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "hpcsens/region.h"

static char big[100000];
/* Not const: GCC turns fputs of a string of known length into fwrite. */
static char abc[8] = "abc\n";

static void stdio_part(int rank, const char* dir) {
  char path[4096], line[64];
  snprintf(path, sizeof path, "%s/out.%d", dir, rank);
  FILE* f = fopen(path, "w");
  fprintf(f, "value=%05d\n", 42);
  fwrite(big, 10, 100, f);
  fputs(abc, f);
  fputc('z', f);
  fclose(f);
  f = fopen(path, "r");
  if (fgets(line, sizeof line, f) == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  if (fread(big, 1, 1000, f) != 1000) MPI_Abort(MPI_COMM_WORLD, 4);
  fclose(f);
  printf("rank %d wrote its file\n", rank); /* stdout is a pipe: not counted */
}

static void topology_part(int rank, int size) {
  int dims[2] = {0, 0}, periods[2] = {1, 1}, remain[2] = {1, 0}, coords[2];
  MPI_Comm cart, sub, dup, half, inter, merged, graph;
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_sub(cart, remain, &sub);
  MPI_Cart_coords(cart, rank, 2, coords);
  MPI_Group world_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm created;
  MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &created);
  MPI_Request r;
  MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 5, &inter);
  MPI_Intercomm_merge(inter, rank % 2, &merged);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, MPI_UNWEIGHTED, 1, &next,
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  MPI_Comm* comms[] = {&cart, &sub, &created, &dup, &half, &inter, &merged, &graph};
  for (int i = 0; i < 8; ++i) MPI_Comm_free(comms[i]);
  MPI_Group_free(&world_group);
}

static void ring_part(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int next2 = (rank + 2) % size, prev2 = (rank + size - 2) % size;
  int buf[250], in[250];
  memset(buf, 0, sizeof buf);
  hpcsens_region_begin("solve");
  for (int i = 0; i < 3; ++i) {
    MPI_Send(buf, 250, MPI_INT, next, 1, MPI_COMM_WORLD);
    MPI_Recv(in, 250, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  hpcsens_region_end("solve");
  hpcsens_region_begin("solve");
  MPI_Request req[3], sreq;
  MPI_Irecv(big, 100000, MPI_BYTE, prev2, 2, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(big + 50000, 5000, MPI_BYTE, next2, 2, MPI_COMM_WORLD, &sreq);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  int a[1000], b[1000], c[1000];
  MPI_Irecv(a, 1000, MPI_INT, prev, 3, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(b, 1000, MPI_INT, prev, 4, MPI_COMM_WORLD, &req[1]);
  MPI_Send(buf, 10, MPI_INT, next, 3, MPI_COMM_WORLD);
  MPI_Send(buf, 20, MPI_INT, next, 4, MPI_COMM_WORLD);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Irecv(c, 1000, MPI_INT, prev, 5, MPI_COMM_WORLD, &req[2]);
  MPI_Send(buf, 6, MPI_INT, next, 5, MPI_COMM_WORLD);
  int done = 0;
  while (!done) MPI_Test(&req[2], &done, MPI_STATUS_IGNORE);
  hpcsens_region_end("solve");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hpcsens_region_begin("setup");
  topology_part(rank, size);
  hpcsens_region_end("setup");
  hpcsens_region_begin("output");
  stdio_part(rank, argc > 1 ? argv[1] : ".");
  hpcsens_region_end("output");
  MPI_Pcontrol(1);
  ring_part(rank, size);
  MPI_Pcontrol(0);
  hpcsens_region_end("never-begun");
  MPI_Finalize();
  return 0;
}
