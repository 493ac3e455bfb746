#!/bin/sh
# Overhead of libhpcsens_preload.so: runs the harness alternately without and with the preload
# (REPS times each) and prints the best of each and the difference. The per-call loop runs on one
# rank alone (a second busy rank on a 2-core VM shares the core's pipeline and doubles every
# cost); the ping-pong runs on 2 ranks.
# Usage: preload_overhead.sh HARNESS PRELOAD_LIB [REPS]
set -eu
harness=$1
lib=$2
reps=${3:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # $1: label, $2: extra mpirun args
  timeout 300 mpirun -np 1 $2 "$harness" 20000000 0 | grep call_ns >> "$out/$1"
  timeout 300 mpirun -np 2 --bind-to core $2 "$harness" 0 200000 | grep pingpong >> "$out/$1"
}
i=0
while [ $i -lt "$reps" ]; do
  run base ""
  run preload "-x LD_PRELOAD=$lib -x HPCSENS_OUT=$out/records -x HPCSENS_EVENTS=none"
  i=$((i + 1))
done
best() { awk -v k="$1" '$1 == k { if (m == "" || $2 < m) m = $2 } END { print m }' "$out/$2"; }
cb=$(best call_ns base); cp=$(best call_ns preload)
pb=$(best pingpong_us base); pp=$(best pingpong_us preload)
awk -v cb="$cb" -v cp="$cp" -v pb="$pb" -v pp="$pp" 'BEGIN {
  printf "MPI_Test(MPI_REQUEST_NULL) ns/call: without %.2f, with %.2f, added %.2f ns\n", cb, cp, cp - cb
  printf "0-byte ping-pong half round trip us: without %.4f, with %.4f, overhead %.2f %%\n", pb, pp, (pp - pb) / pb * 100
}'
