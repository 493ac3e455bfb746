# libhpcsens_preload_mpich.so: the same sources and generated wrappers as hpcsens_preload, compiled
# against MPICH's mpi.h with mpi_abi_mpich.cpp instead of mpi_abi_openmpi.cpp. Optional: without
# MPICH's headers only the Open MPI library is built. Included from preload/CMakeLists.txt after
# hpcsens_preload is defined, so its source list, libraries and link options are reused as they are.
pkg_check_modules(HPCSENS_MPICH QUIET mpich)
if(NOT HPCSENS_MPICH_FOUND)
  message(STATUS "MPICH not found (pkg-config mpich): libhpcsens_preload_mpich.so not built")
  return()
endif()
message(STATUS "MPICH ${HPCSENS_MPICH_VERSION}: building libhpcsens_preload_mpich.so")

get_target_property(_srcs hpcsens_preload SOURCES)
list(TRANSFORM _srcs REPLACE "mpi_abi_openmpi\\.cpp$" "mpi_abi_mpich.cpp")
get_target_property(_libs hpcsens_preload LINK_LIBRARIES)
get_target_property(_lopts hpcsens_preload LINK_OPTIONS)
get_target_property(_defs hpcsens_preload COMPILE_DEFINITIONS)

add_library(hpcsens_preload_mpich SHARED ${_srcs})
# MPICH's include dir only: Open MPI's (MPI_C_INCLUDE_DIRS) must not be on this path.
target_include_directories(hpcsens_preload_mpich BEFORE PRIVATE ${HPCSENS_MPICH_INCLUDE_DIRS})
target_compile_definitions(hpcsens_preload_mpich PRIVATE ${_defs})
target_link_libraries(hpcsens_preload_mpich PRIVATE ${_libs})
target_link_options(hpcsens_preload_mpich PRIVATE ${_lopts})
set_target_properties(hpcsens_preload_mpich PROPERTIES
  LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/exports.map
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
