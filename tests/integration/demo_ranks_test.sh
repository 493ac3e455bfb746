#!/usr/bin/env bash
# Issue 29: `./setup.sh demo` (scripts/demo.sh) runs at most one rank per online CPU, so a
# newcomer's first answer on a 2-CPU machine is not "oversubscribed: figures are unreliable".
# `nproc` is replaced by a stub printing a given count (a double of coreutils' nproc, which prints
# the CPUs the process may run on); the demo's own choice is read back with --print-ranks.
# Usage: demo_ranks_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src="$1" build="$2"
stub="$(mktemp -d)"
trap 'rm -rf "$stub"' EXIT
fail=0
for case in "1 1" "2 2" "3 3" "4 4" "16 4"; do
  read -r cpus want <<<"$case"
  printf '#!/bin/sh\necho %s\n' "$cpus" >"$stub/nproc"
  chmod +x "$stub/nproc"
  got="$(PATH="$stub:$PATH" "$src/scripts/demo.sh" "$build" --print-ranks)"
  if [[ $got != "$want" ]]; then
    echo "FAIL: $cpus online CPUs: the demo runs $got ranks, expected $want" >&2
    fail=1
  fi
done
# The measured step launches that many ranks, not a fixed 4.
if ! grep -q 'mpirun -np "$ranks"' "$src/scripts/demo.sh" || grep -q 'mpirun -np 4' "$src/scripts/demo.sh"; then
  echo "FAIL: scripts/demo.sh does not launch \$ranks ranks" >&2
  fail=1
fi
exit "$fail"
