#!/bin/sh
# Achieved vs requested delay of the network-delay knob, per message (net_delay_accuracy.c):
# added latencies 0 (knob off: the wrapper's own cost), 0.5 to 100 us on 0-byte messages, then
# added per-byte time on 64 KiB messages. The delay a message gets is what it costs beyond the
# knob-off wrapper (a sweep's baseline runs under the wrapper too): achieved - the first line's
# cost. Target: within 5 % at 1 us and above. Beside it, the same pause made by the program itself
# (a spin before the library's own Isend) against none: what any pause between MPI calls costs
# the library; "knob vs pause" is the knob's own error once that is taken out.
# Then the same rows with 2 us of the program's own work before every message.
# Usage: net_delay_accuracy.sh HARNESS PRELOAD_LIB
set -eu
harness=$1
lib=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
wrapper_ns=0
work=0  # ns of the program's own work before every message (both blocks)
runs=${RUNS:-3}  # runs per figure: the median is printed (one run's knob-off figure moved by 60 ns)
one_run() {  # $1 bytes, $2 added latency us, $3 added-link bandwidth GB/s
  timeout 300 mpirun -np 1 -x LD_PRELOAD="$lib" -x HPCSENS_OUT="$out" -x HPCSENS_EVENTS=none \
    -x HPCSENS_NET_LATENCY_US="$2" -x HPCSENS_NET_BANDWIDTH_GBS="$3" "$harness" "$1" "$work" 2>/dev/null |
    awk '/^requested_ns/ {r=$2} /^achieved_ns/ {a=$2} /^program_gap_ns/ {g=$2} END {print r, a, g}'
}
median_col() { sort -n -k"$1" "$2" | awk -v c="$1" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }
one() {  # the same, median over $runs runs of each column
  : > "$out/runs"
  i=0
  while [ $i -lt "$runs" ]; do one_run "$@" >> "$out/runs"; i=$((i + 1)); done
  echo "$(median_col 1 "$out/runs") $(median_col 2 "$out/runs") $(median_col 3 "$out/runs")"
}
echo "network-delay knob: achieved vs requested delay per message (median of paired blocks, vs PMPI; median of $runs runs)"
set -- $(one 0 0 0)
wrapper_ns=$2
printf "knob off: the wrapper's own cost %.1f ns per message\n" "$wrapper_ns"
row() {  # $1 bytes, $2 us, $3 GB/s
  set -- "$1" "$2" "$3" $(one "$1" "$2" "$3")
  awk -v b="$1" -v l="$2" -v w="$3" -v r="$4" -v a="$5" -v g="$6" -v off="$wrapper_ns" 'BEGIN {
    printf "%8d B  +%5s us  link %4s GB/s  requested %9.1f ns  vs PMPI %9.1f  over knob-off %9.1f ns  error %+6.2f %%  | program pause %9.1f ns  knob vs pause %+6.2f %%\n",
           b, l, w, r, a, a - off, 100 * (a - off - r) / r, g, 100 * (a - off - g) / r }'
}
for lat in 0.5 1 2 5 10 100; do row 0 "$lat" 0; done
for bw in 100 10 1; do row 65536 0 "$bw"; done
row 65536 5 10
# A program does something between its messages; a loop of back-to-back messages is the worst
# case, because a pause also costs the overlap the processor finds between one message's end and
# the next one's start. The same rows with 2 us of the program's own work before every message:
work=2000
echo "with 2 us of program work before every message (both blocks):"
set -- $(one 0 0 0)
wrapper_ns=$2
printf "knob off: the wrapper's own cost %.1f ns per message\n" "$wrapper_ns"
for lat in 1 2 5 10; do row 0 "$lat" 0; done
row 65536 0 10
