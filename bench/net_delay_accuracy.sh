#!/bin/sh
# Achieved vs requested delay of the network-delay knob, per message (net_delay_accuracy.c):
# added latencies 0 (knob off: the wrapper's own cost), 0.5 to 100 us on 0-byte messages, then
# added per-byte time on 64 KiB messages. Target: within 5 % at 1 us and above.
# Usage: net_delay_accuracy.sh HARNESS PRELOAD_LIB
set -eu
harness=$1
lib=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
one() {  # $1 bytes, $2 added latency us, $3 added-link bandwidth GB/s
  timeout 300 mpirun -np 1 -x LD_PRELOAD="$lib" -x HPCSENS_OUT="$out" -x HPCSENS_EVENTS=none \
    -x HPCSENS_NET_LATENCY_US="$2" -x HPCSENS_NET_BANDWIDTH_GBS="$3" "$harness" "$1" |
    awk -v b="$1" -v l="$2" -v w="$3" '/^requested_ns/ {r=$2} /^achieved_ns/ {a=$2} /^error_pct/ {e=$2}
      END {printf "%8d B  +%7s us  link %6s GB/s  requested %10.1f ns  achieved %10.1f ns  %s\n",
                  b, l, w, r, a, (r > 0 ? sprintf("error %+6.2f %%", e) : "(knob off)")}'
}
echo "network-delay knob: achieved vs requested delay per message (median of paired blocks)"
one 0 0 0
for lat in 0.5 1 2 5 10 100; do one 0 "$lat" 0; done
for bw in 100 10 1; do one 65536 0 "$bw"; done
one 65536 5 10
