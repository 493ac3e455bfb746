/* hpcsens named regions: time, MPI time and I/O time of a part of a program, per rank.
 *
 *   #include <hpcsens/region.h>
 *   hpcsens_region_begin("solve");  ...  hpcsens_region_end("solve");
 *
 * Link with -lhpcsens_region (a stub whose functions do nothing), so the program builds and runs
 * without hpcsens; under `hpcsens run` the preload's definitions take their place. Regions nest
 * (an end must name the innermost open region of its thread); names are kept up to 63 bytes; a
 * process keeps at most 64 distinct names. Calls outside MPI_Init..MPI_Finalize are ignored.
 *
 * Fortran (any compiler that appends one underscore, e.g. gfortran):
 *   call hpcsens_region_begin("solve")  ...  call hpcsens_region_end("solve")
 * (trailing blanks of the name are ignored). */
#ifndef HPCSENS_REGION_H
#define HPCSENS_REGION_H

#ifdef __cplusplus
extern "C" {
#endif

void hpcsens_region_begin(const char* name);
void hpcsens_region_end(const char* name);

#ifdef __cplusplus
}
#endif

#endif
