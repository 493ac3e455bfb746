#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   ./setup.sh demo   install what is missing, build, run the demo (an MPI job wrapped by hpcsens run)
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
  nlohmann-json3-dev libcli11-dev libyaml-cpp-dev libfmt-dev libsimdjson-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev  # libFuzzer harnesses (scripts/fuzz.sh)
  slurmd slurmctld slurm-client munge
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

build() {
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
}

# Open MPI refuses root unless told; tests and the demo run as whoever calls them.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

case "$mode" in
  build) install_missing; build ;;
  demo)
    install_missing; build
    exec "$here/scripts/demo.sh" "$build_dir" ;;
  test)
    install_missing; build
    cd "$build_dir"
    exec ctest --output-on-failure --timeout 600 -j 2 ;;
  *) echo "usage: $0 demo|test|build" >&2; exit 2 ;;
esac
