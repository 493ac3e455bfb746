#!/bin/sh
# Added peak resident memory (VmHWM) per rank of libhpcsens_preload.so with the default events:
# the median over REPS runs of NP (default 2) ranks of (VmHWM with the preload) - (VmHWM
# without), in KiB and MiB. Counters are read by hpcsens-counter-agent, one process per node
# (PAPI and libpfm4 stay out of the ranks): its own peak is printed apart, as the records report
# it (preload.counter_agent_*, rank 0's node), because it is node memory the ranks' VmHWM does not
# show; its private memory divided by the ranks it served is each rank's share, added to the
# rank's own for the total per rank (target under 1 MiB, issue 33). docs/methodology.md "Memory".
# NP=16 in the environment runs 16 ranks; PER_RANK=1 starts one agent per rank (as before).
# EXTRA (e.g. HPCSENS_CALLSITES=1) is passed to the ranks too: with it every optional measurement
# is on. The record's size per rank (the median record over REPS runs / 2) is printed beside.
# Usage: preload_memory.sh HARNESS PRELOAD_LIB [REPS] [EVENTS] [EXTRA]
set -eu
harness=$1
lib=$2
reps=${3:-5}
events=${4:-default}
extra=${5:-}
np=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ "${PER_RANK:-0}" = 1 ] && export HPCSENS_AGENT_PER_RANK=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # $1: file, $2: extra mpirun args
  i=0
  while [ $i -lt "$reps" ]; do
    timeout 120 mpirun -np "$np" --oversubscribe $2 "$harness" | awk '/vmhwm_kib/ {print $4}' >> "$1"
    i=$((i + 1))
  done
}
run "$out/without" "-x PRELOAD_MEMORY_SMAPS=$out/smaps-without"
run "$out/with" "-x PRELOAD_MEMORY_SMAPS=$out/smaps-with -x LD_PRELOAD=$lib -x HPCSENS_OUT=$out/records -x HPCSENS_EVENTS=$events${extra:+ -x $extra}${HPCSENS_AGENT_PER_RANK:+ -x HPCSENS_AGENT_PER_RANK}"
median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
a=$(median "$out/without")
b=$(median "$out/with")
echo "VmHWM per rank without the preload: $a KiB (median of $(wc -l < "$out/without") ranks)"
echo "VmHWM per rank with the preload (events=$events): $b KiB"
awk -v a="$a" -v b="$b" 'BEGIN {printf "added VmHWM per rank: %d KiB = %.2f MiB\n", b - a, (b - a) / 1024}'
# Proportional set size (Pss: each resident page divided by the processes that map it), the last
# run's ranks after MPI_Finalize: the preload's code pages, which the page cache shares between the
# node's ranks, count once per node here, as the counter agent's memory does below.
pss() { cat "$out"/smaps-"$1".* | awk '/^Pss:/ {s += $2} END {print s}'; }
awk -v a="$(pss without)" -v b="$(pss with)" -v n="$np" 'BEGIN {printf "added Pss per rank (pages shared by the %d ranks divided among them): %d KiB = %.2f MiB\n", n, (b - a) / n, (b - a) / n / 1024}'
ls -l "$out"/records/*.json 2>/dev/null | awk '{print $5}' > "$out/sizes" || true
[ -s "$out/sizes" ] && awk -v r="$(median "$out/sizes")" -v x="${extra:-none}" \
  -v n="$np" 'BEGIN {printf "record size per rank (%d ranks, extra: %s): %d bytes = %.1f KiB\n", n, x, r / n, r / n / 1024}'
agent() {  # $1: the record key; median over the runs' records
  cat "$out"/records/*.json 2>/dev/null | grep -o "\"$1\": *-\?[0-9]*" | sed 's/.*: *//' > "$out/$1" || true
  [ -s "$out/$1" ] && median "$out/$1" || echo -1
}
g=$(agent counter_agent_vmhwm_kib)
p=$(agent counter_agent_private_kib)
n=$(agent counter_agent_ranks)
if [ "$g" -ge 0 ]; then
  awk -v g="$g" -v p="$p" -v n="$n" 'BEGIN {printf "counter agent (a separate process serving %d ranks): VmHWM %d KiB = %.2f MiB, of it private (not shared with other processes) %d KiB = %.2f MiB\n", n, g, g / 1024, p, p / 1024}'
  [ "$n" -lt 1 ] && n=1
  awk -v a="$a" -v b="$b" -v p="$p" -v n="$n" 'BEGIN {s = p / n; printf "per rank with its share of the agent: %d + %d KiB = %d KiB = %.2f MiB\n", b - a, s, b - a + s, (b - a + s) / 1024}'
  awk -v a="$(pss without)" -v b="$(pss with)" -v r="$np" -v p="$p" -v n="$n" 'BEGIN {s = p / n; q = (b - a) / r; printf "per rank by Pss with its share of the agent: %d + %d KiB = %d KiB = %.2f MiB\n", q, s, q + s, (q + s) / 1024}'
else
  echo "counter agent: none started (events=$events)"
fi
