/* libhpcsens_region: do-nothing definitions of the region API (include/hpcsens/region.h), weak so
 * that any other definition wins at link time; at run time the preload, loaded first, provides
 * the real ones. */
#include <stddef.h>

#include "hpcsens/region.h"

__attribute__((weak)) void hpcsens_region_begin(const char* name) { (void)name; }
__attribute__((weak)) void hpcsens_region_end(const char* name) { (void)name; }
/* Fortran: gfortran's name mangling, with the hidden length of the character argument. */
__attribute__((weak)) void hpcsens_region_begin_(const char* name, size_t len) {
  (void)name;
  (void)len;
}
__attribute__((weak)) void hpcsens_region_end_(const char* name, size_t len) {
  (void)name;
  (void)len;
}
