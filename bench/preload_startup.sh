#!/bin/sh
# Start-up cost of hpcsens on a job that does nothing: wall time of
#   hpcsens run --out DIR [--events EVENTS] -- mpirun -np NP --oversubscribe TRIVIAL
# against plain `mpirun -np NP --oversubscribe TRIVIAL`, REPS pairs run alternately (plain first,
# then wrapped), medians and their ratio. The target (issue 33) is within 1.05x at 16 ranks. The
# whole wrapped run counts: the CLI, the preload's MPI_Init and MPI_Finalize work, the counter
# agent(s) and the record. On a machine with fewer cores than NP every rank's start-up shares
# them, so say how many cores there were (printed). With PER_RANK=1 in the environment each rank
# starts its own agent, as before one agent per node (HPCSENS_AGENT_PER_RANK), for comparison.
# Where the time goes (front end, preload at MPI_Init/MPI_Finalize, agent): docs/startup-cost.md
# and startup_split.sh.
# Usage: preload_startup.sh HPCSENS TRIVIAL [NP] [REPS] [EVENTS]
set -eu
hpcsens=$1
trivial=$2
np=${3:-16}
reps=${4:-11}
events=${5:-default}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ "${PER_RANK:-0}" = 1 ] && export HPCSENS_AGENT_PER_RANK=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
now() { date +%s.%N; }
load=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while [ $i -lt "$reps" ]; do
  t0=$(now)
  timeout 300 mpirun -np "$np" --oversubscribe "$trivial" > /dev/null || echo "plain run $i failed" >&2
  t1=$(now)
  timeout 300 "$hpcsens" run --out "$out/records" --events "$events" -- \
    mpirun -np "$np" --oversubscribe "$trivial" > /dev/null 2> "$out/err" || echo "hpcsens run $i failed: $(tail -1 "$out/err")" >&2
  t2=$(now)
  echo "$t0 $t1" | awk '{print $2 - $1}' >> "$out/plain"
  echo "$t1 $t2" | awk '{print $2 - $1}' >> "$out/wrapped"
  i=$((i + 1))
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
a=$(median "$out/plain")
b=$(median "$out/wrapped")
echo "cores: $(nproc), load average before: $load, after: $(cut -d' ' -f1-3 /proc/loadavg), ranks: $np, pairs: $reps, events: $events${HPCSENS_AGENT_PER_RANK:+, one agent per rank}"
echo "plain mpirun: median $a s (min $(sort -n "$out/plain" | head -1), max $(sort -n "$out/plain" | tail -1))"
echo "hpcsens run:  median $b s (min $(sort -n "$out/wrapped" | head -1), max $(sort -n "$out/wrapped" | tail -1))"
awk -v a="$a" -v b="$b" 'BEGIN {printf "start-up ratio: %.3fx (+%.0f ms)\n", b / a, (b - a) * 1000}'
# Under load the minima are steadier than the medians (others' work only ever adds time).
amin=$(sort -n "$out/plain" | head -1)
bmin=$(sort -n "$out/wrapped" | head -1)
awk -v a="$amin" -v b="$bmin" 'BEGIN {printf "start-up ratio of minima: %.3fx (+%.0f ms)\n", b / a, (b - a) * 1000}'
