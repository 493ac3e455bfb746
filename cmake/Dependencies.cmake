# Every dependency is a Debian package installed by setup.sh; find them all here once.
find_package(PkgConfig REQUIRED)
find_package(MPI REQUIRED COMPONENTS C CXX Fortran)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(simdjson REQUIRED)  # report: reading 100,000-rank records fast
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Ceres REQUIRED)
pkg_check_modules(PAPI REQUIRED IMPORTED_TARGET papi)
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)  # report: call sites to file:line

find_path(GLPK_INCLUDE_DIR glpk.h REQUIRED)
find_library(GLPK_LIBRARY glpk REQUIRED)
add_library(hpcsens::glpk UNKNOWN IMPORTED)
set_target_properties(hpcsens::glpk PROPERTIES IMPORTED_LOCATION ${GLPK_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${GLPK_INCLUDE_DIR})

find_path(PFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h REQUIRED)
find_library(PFM_LIBRARY pfm REQUIRED)
add_library(hpcsens::pfm UNKNOWN IMPORTED)
set_target_properties(hpcsens::pfm PROPERTIES IMPORTED_LOCATION ${PFM_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${PFM_INCLUDE_DIR})

if(HPCSENS_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(HPCSENS_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

find_program(MPIEXEC_PROGRAM NAMES mpirun mpiexec REQUIRED)
