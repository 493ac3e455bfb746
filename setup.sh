#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   ./setup.sh demo   install what is missing, build only the tool, the preload and the examples
#                     (unity build, -O1; prints the build's wall and CPU time), run the demo (a
#                     wrapped MPI job, an EMULATED sweep with its fit, a prediction)
#   ./setup.sh test   install what is missing, build, run every test
#   ./setup.sh build  install what is missing and build only
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode="${1:-demo}"
build_dir="${HPCSENS_BUILD_DIR:-$here/build}"

packages=(
  cmake ninja-build g++ gfortran pkg-config
  openmpi-bin libopenmpi-dev mpich libmpich-dev
  libpapi-dev papi-tools libpfm4-dev
  libceres-dev libglpk-dev
  libdw-dev  # call sites resolved to file:line (report/symbolize)
  nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libfmt-dev libsimdjson-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev  # libFuzzer harnesses (scripts/fuzz.sh)
  libjs-chart.js chromium
  python3-mpi4py  # mpi4py (Open MPI) under the preload: tests/preload/real_codes_mpirun_test.cpp
  slurmd slurmctld slurm-client munge
  slurmdbd mariadb-server  # the namespace cluster's accounting (sacct, Slurm's ConsumedEnergy)
  openssh-server openssh-client iproute2 help2man environment-modules dpkg-dev
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# everything (tests and benchmarks included), or only what the demo runs (target hpcsens_demo: the
# tool, the Open MPI preload, the examples). The demo build is cut for compile time, measured per
# translation unit (docs/user-guide.md, "Build time"): -O1 without debug information (about half the
# CPU time of -O2 -g), and CMake's unity build with one unit per library, so that the headers nearly
# every file includes (nlohmann/json, fmt, CLI11) are parsed and instantiated once per library rather
# than once per file. `build` and `test` set the usual flags and separate units back.
flags() {
  flag_args=("-DCMAKE_C_FLAGS_RELWITHDEBINFO=$1" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$1"
    "-DCMAKE_Fortran_FLAGS_RELWITHDEBINFO=$1")
}
build() {
  flags "-O2 -g -DNDEBUG"
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${flag_args[@]}" \
    -DCMAKE_UNITY_BUILD=OFF -DHPCSENS_BUILD_TESTS=ON -DHPCSENS_BUILD_BENCH=ON >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
}
build_demo() {
  # Wall time depends on what else the machine runs: the CPU seconds (user + system, compilers
  # included) and the load average beside it make the figure comparable between machines.
  local TIMEFORMAT
  TIMEFORMAT="setup: demo build took %1R s wall, %1U s user + %1S s system CPU on $(nproc) cores"
  TIMEFORMAT+=" (load average $(cut -d' ' -f1-3 /proc/loadavg) at start)"
  flags "-O1 -DNDEBUG"
  time {
    cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${flag_args[@]}" \
      -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 \
      -DHPCSENS_BUILD_TESTS=OFF -DHPCSENS_BUILD_BENCH=OFF >/dev/null
    cmake --build "$build_dir" -j "$(nproc)" --target hpcsens_demo
  }
}

# Open MPI refuses root unless told; tests and the demo run as whoever calls them.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

case "$mode" in
  build) install_missing; build ;;
  demo)
    install_missing; build_demo
    HPCSENS_DEMO_OUT="${HPCSENS_DEMO_OUT:-$build_dir/demo-out}" exec "$here/scripts/demo.sh" "$build_dir" ;;
  test)
    install_missing; build
    cd "$build_dir"
    exec ctest --output-on-failure --timeout 600 -j 2 ;;
  *) echo "usage: $0 demo|test|build" >&2; exit 2 ;;
esac
