/* Region names cut at the 63-byte limit inside a UTF-8 character (issue 22): "a"x62 followed by
 * "é" (2 bytes) and by "€" (3 bytes) are both cut to the 62 a's (one region, count 2), never to
 * two invalid byte strings that the JSON writer would turn into one duplicate key; a Latin-1 name
 * ("caf\xe9") is stored losslessly as "caf\\xe9". With the argument "abort" every rank leaves a
 * partial record (MPI_Abort) with the same names. */
#include <mpi.h>
#include <string.h>

#include "hpcsens/region.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  char e_acute[80], euro[80];
  memset(e_acute, 'a', 62);
  strcpy(e_acute + 62, "\xc3\xa9" "tail");
  memset(euro, 'a', 62);
  strcpy(euro + 62, "\xe2\x82\xac");
  hpcsens_region_begin(e_acute);
  hpcsens_region_end(e_acute);
  hpcsens_region_begin(euro);
  hpcsens_region_end(euro);
  hpcsens_region_begin("caf\xe9");
  hpcsens_region_end("caf\xe9");
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Finalize();
  return 0;
}
