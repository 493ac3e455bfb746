#!/bin/sh
# Overhead of libhpcsens_preload.so, next to the floors it cannot go below:
#   none         no preload (sanity: MPI_ and PMPI_ are the same function, so ~0)
#   passthrough  a preload whose wrappers only forward (cost of interposition itself)
#   timed        a preload that reads the TSC twice per call and adds (cost of timing each call)
#   hpcsens      libhpcsens_preload.so with counters off (HPCSENS_EVENTS=none)
# Each figure is the median of paired in-process blocks (MPI_* vs PMPI_*, see preload_overhead.c);
# the per-call loop runs on one rank alone (a second busy rank on a 2-core VM would share the
# core), the ping-pong on 2 ranks bound to cores. The run with the median ping-pong overhead of
# REPS runs is reported per variant.
# Last: an 8-byte write() to a tracked file (per-call and per-file accounting) and the record bytes
# per entry of a rank's `files` (issue 20).
# Usage: preload_overhead.sh HARNESS PRELOAD_LIB [REPS]   (floors are looked up next to PRELOAD_LIB)
set -eu
harness=$1
lib=$2
reps=${3:-3}
libdir=$(dirname "$lib")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() {  # $1: label, $2: preload library or "", $3: extra mpirun args for the ping-pong, $4: more -x
  x=""
  [ -n "$2" ] && x="-x LD_PRELOAD=$2 -x HPCSENS_OUT=$out/records -x HPCSENS_EVENTS=none ${4:-}"
  i=0
  while [ $i -lt "$reps" ]; do
    c=$(timeout 300 mpirun -np 1 $x "$harness" 30 0 | awk '/^call_added_ns/ {print $2}')
    p=$(timeout 300 mpirun -np 2 --bind-to core ${3:-} $x "$harness" 0 400 |
        awk '/^pingpong_us_pmpi/ {b=$2} /^pingpong_added_ns/ {a=$2} /^pingpong_overhead_pct/ {o=$2}
             END {print b, a, o}')
    echo "$c $p" >> "$out/$1"
    i=$((i + 1))
  done
  sort -n -k4 "$out/$1" | awk -v n="$reps" 'NR == int((n + 1) / 2)' > "$out/$1.median"
  awk -v label="$1" '{
    printf "%-12s MPI_Test +%6.2f ns/call   ping-pong %.4f us +%6.1f ns (%5.2f %%)\n",
           label, $1, $2, $3, $4 }' "$out/$1.median"
}
echo "variant      added per MPI_Test call     0-byte half round trip (PMPI) + added (overhead)"
measure none ""
[ -f "$libdir/libpreload_floor_passthrough.so" ] && measure passthrough "$libdir/libpreload_floor_passthrough.so"
[ -f "$libdir/libpreload_floor_timed.so" ] && measure timed "$libdir/libpreload_floor_timed.so"
measure hpcsens "$lib"
# With the call-site table on (--callsites): one site here, so every call hits the same entry.
# Since each thread adds to its own row of sums (preload/account/callsites.h) depth 1 costs what no
# table costs within the spread (2026-11-29, load 2.2-2.7, min of 5 alternated: 13.83 ns against
# 13.74 ns, floor 13.21 ns; 26.27 ns with the shared atomic sums before).
measure callsites "$lib" "" "-x HPCSENS_CALLSITES=1"
paste "$out/hpcsens.median" "$out/callsites.median" | awk '{
  printf "--callsites adds: %+.2f ns/MPI_Test call, %+.1f ns per ping-pong hop\n", $5 - $1, $7 - $3 }'
# Call stacks of 4 frames (--stack-depth 4): walked on every call through the per-address rule
# cache (preload/account/stack_cache.h); ~20 ns per frame walked (same runs: depth 2 79 ns,
# depth 4 118 ns added per call).
measure depth4 "$lib" "" "-x HPCSENS_CALLSITES=1 -x HPCSENS_STACK_DEPTH=4"
paste "$out/hpcsens.median" "$out/depth4.median" | awk '{
  printf "--stack-depth 4 adds: %+.2f ns/MPI_Test call, %+.1f ns per ping-pong hop\n", $5 - $1, $7 - $3 }'
# The shared-memory ping-pong (~0.2-0.6 us here) is the worst case; a network-like latency shows
# what the same per-call cost is on an interconnect. TCP over loopback stands in for one here.
echo "ping-pong through Open MPI's TCP transport on loopback (network-like latency):"
measure none-tcp "" "--mca btl self,tcp"
measure hpcsens-tcp "$lib" "--mca btl self,tcp"
# What the preload adds beyond the unavoidable cost of reading the clock twice per call.
if [ -f "$out/timed.median" ]; then
  paste "$out/timed.median" "$out/hpcsens.median" | awk '{
    printf "hpcsens beyond the timing floor: %+.2f ns/MPI_Test call, %+.1f ns per ping-pong hop\n",
           $5 - $1, $7 - $3 }'
fi
# Per-file I/O (issue 20): an 8-byte write() to a file the program opened after MPI_Init, so it is
# counted per call and per file (file_table.h), against libc's own write in the same process.
echo "8-byte write() to a tracked file (median of paired blocks; the call itself is a system call):"
for v in none hpcsens; do
  mkdir -p "$out/w-$v"
  x=""
  [ "$v" = hpcsens ] && x="-x LD_PRELOAD=$lib -x HPCSENS_OUT=$out/w-records -x HPCSENS_EVENTS=none"
  timeout 300 mpirun -np 1 $x "$harness" 0 0 30 "$out/w-$v" |
    awk -v label="$v" '/^write_ns_libc/ {b=$2} /^write_added_ns/ {a=$2}
         END {printf "%-12s write() %.1f ns (libc) +%6.2f ns/call\n", label, b, a}'
done
# What one file adds to a rank's record (JSON bytes per entry of `files`).
python3 - "$out/w-records" <<'PY'
import json, pathlib, sys
for p in pathlib.Path(sys.argv[1]).glob("*.json"):
    files = json.loads(p.read_text())["ranks"][0].get("files", [])
    for f in files:
        print("record bytes per file entry: %d (%s)" % (len(json.dumps(f, separators=(",", ":"))), f["path"]))
PY
