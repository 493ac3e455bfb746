# `cmake --install` layout, relative to the prefix so the tree can be moved after installing:
#   bin/hpcsens, bin/hpcsens-stream      the tool and its STREAM calibrator
#   lib/libhpcsens_preload*.so           the preloads (hpcsens looks in ../lib next to itself;
#                                        HPCSENS_PRELOAD_DIR overrides for other layouts)
#   lib/hpcsens/hpcsens-counter-agent    reads the counters for the preloads, found relative to
#                                        the preload itself (keep it beside the preloads)
#   libexec/hpcsens/example_*            the example MPI programs, built (the demo runs them)
#   share/hpcsens/                       demo.sh, example sources and sweep specs
#   share/doc/hpcsens/                   README and docs/
#   share/man/man1/hpcsens*.1            generated from --help by help2man
#   share/modulefiles/hpcsens/<version>  a Tcl modulefile (environment-modules and Lmod)
# plus, when the region API library exists, its header, a CMake package and a pkg-config file.
# `cpack -G DEB` in the build directory makes a Debian package of the same tree.
set(_examples example_stream example_compute example_imbalance example_fortran example_io
  example_exit example_abort example_no_finalize)
install(TARGETS hpcsens hpcsens-stream RUNTIME DESTINATION bin COMPONENT tool)
install(TARGETS hpcsens_preload LIBRARY DESTINATION lib COMPONENT tool)
install(TARGETS hpcsens-counter-agent RUNTIME DESTINATION lib/hpcsens COMPONENT tool)
if(TARGET hpcsens_preload_mpich)
  install(TARGETS hpcsens_preload_mpich LIBRARY DESTINATION lib COMPONENT tool)
endif()
install(TARGETS ${_examples} RUNTIME DESTINATION libexec/hpcsens COMPONENT tool)
install(PROGRAMS scripts/demo.sh DESTINATION share/hpcsens COMPONENT tool)
install(DIRECTORY examples/ DESTINATION share/hpcsens/examples COMPONENT tool
  PATTERN CMakeLists.txt EXCLUDE)
install(FILES README.md DESTINATION share/doc/hpcsens COMPONENT tool)
install(DIRECTORY docs/ DESTINATION share/doc/hpcsens COMPONENT tool)
configure_file(packaging/modulefiles/hpcsens.tcl.in ${CMAKE_BINARY_DIR}/modulefiles/hpcsens/${PROJECT_VERSION} @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/modulefiles/hpcsens/${PROJECT_VERSION}
  DESTINATION share/modulefiles/hpcsens COMPONENT tool)

# Man pages: help2man turns each command's --help into a page (built with the default target).
find_program(HPCSENS_HELP2MAN help2man)
if(HPCSENS_HELP2MAN)
  set(_man_dir ${CMAKE_BINARY_DIR}/man)
  set(_man_what_run "run an MPI job with per-rank measurement, no recompiling")
  set(_man_what_report "show a run record, model, prediction or sweep as tables, CSV, JSON or HTML")
  set(_man_what_doctor "check what this machine lets hpcsens measure and control")
  set(_man_what_fit "fit the McCalpin sensitivity model to run records or CSV")
  set(_man_what_predict "project a fitted model onto other rates or candidate systems")
  set(_man_what_sweep "run a job across CPU, uncore and memory configurations, then fit")
  set(_pages)
  foreach(sub "" run report doctor fit predict sweep)
    if(sub STREQUAL "")
      set(_page ${_man_dir}/hpcsens.1)
      set(_help "--help")
      set(_what "MPI performance sensitivity: wrap jobs, sweep frequencies, fit models")
    else()
      set(_page ${_man_dir}/hpcsens-${sub}.1)
      set(_help "${sub} --help")
      set(_what "${_man_what_${sub}}")
    endif()
    add_custom_command(OUTPUT ${_page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_man_dir}
      COMMAND ${HPCSENS_HELP2MAN} --no-info --no-discard-stderr --help-option=${_help}
              --version-string=${PROJECT_VERSION} --name=${_what} --output=${_page} $<TARGET_FILE:hpcsens>
      DEPENDS hpcsens VERBATIM COMMENT "help2man: ${_page}")
    list(APPEND _pages ${_page})
  endforeach()
  add_custom_target(hpcsens_man ALL DEPENDS ${_pages})
  install(FILES ${_pages} DESTINATION share/man/man1 COMPONENT tool OPTIONAL)
else()
  message(STATUS "help2man not found: no man pages (apt-get install help2man)")
endif()

# The region API (header + weak stub library that the preload overrides), when it exists.
set(HPCSENS_REGION_TARGET hpcsens_region CACHE STRING "Target of the region API library")
if(TARGET ${HPCSENS_REGION_TARGET})
  include(CMakePackageConfigHelpers)
  install(TARGETS ${HPCSENS_REGION_TARGET} EXPORT hpcsensTargets COMPONENT tool
    LIBRARY DESTINATION lib ARCHIVE DESTINATION lib PUBLIC_HEADER DESTINATION include
    INCLUDES DESTINATION include)
  install(EXPORT hpcsensTargets NAMESPACE hpcsens:: DESTINATION lib/cmake/hpcsens COMPONENT tool)
  configure_package_config_file(packaging/cmake/hpcsensConfig.cmake.in
    ${CMAKE_BINARY_DIR}/packaging/hpcsensConfig.cmake INSTALL_DESTINATION lib/cmake/hpcsens)
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/packaging/hpcsensConfigVersion.cmake
    COMPATIBILITY SameMajorVersion)
  get_target_property(_region_name ${HPCSENS_REGION_TARGET} OUTPUT_NAME)
  if(NOT _region_name)
    set(_region_name ${HPCSENS_REGION_TARGET})
  endif()
  configure_file(packaging/hpcsens.pc.in ${CMAKE_BINARY_DIR}/packaging/hpcsens.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/packaging/hpcsensConfig.cmake
    ${CMAKE_BINARY_DIR}/packaging/hpcsensConfigVersion.cmake DESTINATION lib/cmake/hpcsens COMPONENT tool)
  install(FILES ${CMAKE_BINARY_DIR}/packaging/hpcsens.pc DESTINATION lib/pkgconfig COMPONENT tool)
else()
  message(STATUS "no ${HPCSENS_REGION_TARGET} target: region API, CMake package and pkg-config file not installed")
endif()

# Debian package (`cpack -G DEB`): dependencies found by dpkg-shlibdeps, plus the MPI launchers.
set(CPACK_PACKAGE_NAME hpcsens)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "hpcsens maintainers <hpcsens@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MPI performance sensitivity: LD_PRELOAD profiler, frequency sweeps, model fit")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin | mpich")
# Debian's ldconfig trigger instead of CPack's generated `ldconfig` postinst; the scripts are
# no-ops, so the package also installs into another root (dpkg --root, as the test does).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
  ${PROJECT_SOURCE_DIR}/packaging/debian/postrm ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
