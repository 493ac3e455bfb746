# Read by ctest before any test runs (TEST_INCLUDE_FILES): Open MPI refuses root unless both
# variables are set. gtest_discover_tests (CMake 3.25) splits a ';'-separated ENVIRONMENT
# property into separate arguments, so only the first variable would reach the tests.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
