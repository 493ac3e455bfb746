#!/bin/bash
# Installs the build into a temporary prefix, MOVES the prefix, then from the moved copy:
# a wrapped MPI job (record checked), the man pages, the modulefile (environment-modules'
# modulecmd), HPCSENS_PRELOAD_DIR for a preload kept elsewhere, and env-only use
# (mpirun -x LD_PRELOAD=...) with its one-line banner.  Usage: install_moved.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d /tmp/hpcsens-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmake --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/moved"
p=$tmp/moved
for f in bin/hpcsens bin/hpcsens-stream lib/libhpcsens_preload.so lib/hpcsens/hpcsens-counter-agent \
  libexec/hpcsens/example_imbalance \
  share/hpcsens/demo.sh share/hpcsens/examples/sweeps/emulated.yaml share/doc/hpcsens/user-guide.md \
  share/man/man1/hpcsens.1 share/man/man1/hpcsens-run.1 share/modulefiles/hpcsens; do
  [ -e "$p/$f" ] || fail "$f not installed"
done
grep -q '^\.TH HPCSENS' "$p/share/man/man1/hpcsens.1" || fail "hpcsens.1 is not a man page"
! grep -rq "$tmp/first" "$p/share/modulefiles" || fail "modulefile names the old prefix"

# 1. A wrapped job from the moved tree: the preload is found at ../lib next to the moved binary.
cd "$tmp"
"$p/bin/hpcsens" run --out "$tmp/out" -- mpirun -np 2 --oversubscribe "$p/libexec/hpcsens/example_imbalance" 2 \
  >"$tmp/run.out" 2>"$tmp/run.err" || fail "wrapped job failed: $(cat "$tmp/run.err")"
grep -qx "imbalance: ranks=2 slow_rank=1 units_total=8" "$tmp/run.out" || fail "job output changed"
rec=$(sed -n 's/^hpcsens: record: \([^ ]*\).*/\1/p' "$tmp/run.err")
# PAPI's own word on its perf_event component (never the CPU model): where libpfm4 knows no core
# PMU (AMD family 0x1a with Debian's libpfm4 4.13), PAPI disables it and counts nothing at all.
papi_off=$(papi_component_avail 2>/dev/null | grep -A1 '^Name: *perf_event ' | grep -c 'Disabled' || true)
python3 - "$rec" "$papi_off" <<'PY' || fail "record from the moved install is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
papi_off = sys.argv[2] not in ("", "0")
assert r["job"]["nranks"] == 2 and r["complete"] is True, r["job"]
for k in r["ranks"]:
    assert k["mpi_calls"]["MPI_Barrier"]["count"] == 1 and k["mpi_calls"]["MPI_Allreduce"]["count"] == 1, k
    # counters come from the moved tree's counter agent (lib/hpcsens/ beside the preload); where
    # PAPI is off, that agent is what names PAPI's reason, and no value stands in for a count
    if papi_off:
        assert not k["counters"], k["counters"]
    else:
        assert k["counters"].get("perf::TASK-CLOCK", 0) > 0, (r["counters_status"], k["counters"])
if papi_off:
    assert r["counters_status"].startswith("counters unavailable: PAPI's perf_event component is disabled"), r["counters_status"]
else:
    assert r["counters_status"] == "ok", r["counters_status"]
PY

# 2. The modulefile, from wherever the tree now is.
env_out=$(modulecmd bash use "$p/share/modulefiles" 2>/dev/null; MODULEPATH="$p/share/modulefiles" modulecmd bash load hpcsens 2>&1)
echo "$env_out" | grep -q "PATH=$p/bin" || fail "module load does not put $p/bin on PATH: $env_out"
echo "$env_out" | grep -q "HPCSENS_PRELOAD=$p/lib/libhpcsens_preload.so" || fail "module load: no HPCSENS_PRELOAD: $env_out"

# 3. HPCSENS_PRELOAD_DIR: the preloads moved out of lib/ (an unusual layout), their counter
#    agent (hpcsens/ beside them) with them.
mkdir "$tmp/odd"
mv "$p"/lib/libhpcsens_preload*.so "$p"/lib/hpcsens "$tmp/odd/"
# The job runs unmeasured (its own output intact); no record was written, so hpcsens exits 74
# (docs/user-guide.md, "No record is not success"), and --keep-job-status gives the job's 0.
st=0
"$p/bin/hpcsens" run --out "$tmp/out2" -- mpirun -np 2 --oversubscribe "$p/libexec/hpcsens/example_imbalance" 2 \
  >"$tmp/nolib.out" 2>"$tmp/nolib.err" || st=$?
[ "$st" = 74 ] || fail "job without preload: expected exit 74 (no record), got $st: $(cat "$tmp/nolib.err")"
grep -qx "imbalance: ranks=2 slow_rank=1 units_total=8" "$tmp/nolib.out" || fail "job without preload did not run"
"$p/bin/hpcsens" run --keep-job-status --out "$tmp/out2" -- mpirun -np 2 --oversubscribe \
  "$p/libexec/hpcsens/example_imbalance" 2 >/dev/null 2>/dev/null || fail "--keep-job-status must give the job's 0"
grep -q "not found in ../lib/ next to hpcsens; running unmeasured" "$tmp/nolib.err" || fail "no warning: $(cat "$tmp/nolib.err")"
HPCSENS_PRELOAD_DIR="$tmp/odd" "$p/bin/hpcsens" run --out "$tmp/out3" -- mpirun -np 2 --oversubscribe \
  "$p/libexec/hpcsens/example_imbalance" 2 >/dev/null 2>"$tmp/odd.err" || fail "HPCSENS_PRELOAD_DIR run failed"
grep -q "^hpcsens: record: $tmp/out3/" "$tmp/odd.err" || fail "HPCSENS_PRELOAD_DIR not used: $(cat "$tmp/odd.err")"

# 4. Env-only: no hpcsens run at all; rank 0 names the record in one line, like mpiP.
mkdir "$tmp/envonly" && cd "$tmp/envonly"
mpirun -np 2 --oversubscribe -x LD_PRELOAD="$tmp/odd/libhpcsens_preload.so" "$p/libexec/hpcsens/example_imbalance" 2 \
  >"$tmp/env.out" 2>"$tmp/env.err" || fail "env-only job failed: $(cat "$tmp/env.err")"
grep -qx "imbalance: ranks=2 slow_rank=1 units_total=8" "$tmp/env.out" || fail "env-only job output changed"
# Where PAPI is off (papi_off above), its one counters warning comes beside the banner.
[ "$(grep -c '^hpcsens: ' "$tmp/env.err")" = $((papi_off > 0 ? 2 : 1)) ] || fail "expected one banner line: $(cat "$tmp/env.err")"
[ "$papi_off" = 0 ] || [ "$(grep -c '^hpcsens: warning: counters: ' "$tmp/env.err")" = 1 ] \
  || fail "expected PAPI's one warning beside the banner: $(cat "$tmp/env.err")"
grep -Eq '^hpcsens: 2 ranks on 1 host, job [0-9.]+ s; record: hpcsens-out/[^ ]+\.json \(hpcsens report ' "$tmp/env.err" \
  || fail "banner: $(cat "$tmp/env.err")"
ls hpcsens-out/*.json >/dev/null || fail "env-only record missing"
"$p/bin/hpcsens" report hpcsens-out/*.json --format md >/dev/null || fail "env-only record unreadable"
# 5. The region API from the moved tree: built with pkg-config and with the CMake package, it runs
#    unmeasured with the stub and its region lands in the record under the moved preload.
mkdir "$tmp/api" && cd "$tmp/api"
cat > region_prog.c <<'C'
#include <hpcsens/region.h>
#include <mpi.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  hpcsens_region_begin("solve");
  MPI_Barrier(MPI_COMM_WORLD);
  hpcsens_region_end("solve");
  MPI_Finalize();
  return 0;
}
C
PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --exists hpcsens || fail "pkg-config does not find hpcsens in the moved tree"
mpicc region_prog.c $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs hpcsens) -Wl,-rpath,"$p/lib" \
  -o region_prog || fail "region program does not build with pkg-config"
mpirun -np 2 --oversubscribe ./region_prog || fail "region program fails with the stub"
# (the preloads were moved to $tmp/odd in step 3)
HPCSENS_PRELOAD_DIR="$tmp/odd" "$p/bin/hpcsens" run --quiet --out "$tmp/out4" -- mpirun -np 2 --oversubscribe \
  ./region_prog 2>/dev/null || fail "region program fails under hpcsens run"
python3 -c 'import json,sys,glob; r=json.load(open(glob.glob(sys.argv[1]+"/*.json")[0])); \
assert all(k["regions"]["solve"]["count"] == 1 for k in r["ranks"]), r["ranks"][0].get("regions")' "$tmp/out4" \
  || fail "region 'solve' missing from the record"
cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(region_user C)
find_package(MPI REQUIRED)
find_package(hpcsens REQUIRED)
add_executable(region_prog region_prog.c)
target_link_libraries(region_prog PRIVATE hpcsens::hpcsens_region MPI::MPI_C)
CM
cmake -S . -B b -DCMAKE_PREFIX_PATH="$p" >/dev/null 2>"$tmp/cmake.err" || fail "find_package(hpcsens): $(cat "$tmp/cmake.err")"
cmake --build b >/dev/null || fail "region program does not build with the CMake package"
echo "install_moved: OK ($p)"
