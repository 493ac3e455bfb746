#!/usr/bin/env bash
# The demo `./setup.sh demo` ends with: an unchanged MPI program, deliberately imbalanced (its
# last rank does 3x the work), wrapped by `hpcsens run`, then the record read back by
# `hpcsens report`. Usage: scripts/demo.sh BUILD_DIR
set -euo pipefail
build="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build}"
hpcsens="$build/bin/hpcsens"
example="$build/bin/example_imbalance"
out="${HPCSENS_DEMO_OUT:-$build/demo-out}"
for f in "$hpcsens" "$example"; do
  [[ -x $f ]] || { echo "demo: $f is missing; build first (./setup.sh build)" >&2; exit 1; }
done
# Open MPI refuses root unless told, and 4 ranks may exceed this machine's cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

banner() { printf '\n=== %s\n\n' "$*"; }

banner "1. The job, wrapped: hpcsens run --out $out -- mpirun -np 4 --oversubscribe example_imbalance
    The program's own output comes first (stdout, untouched); hpcsens then prints, on stderr,
    the job facts, McCalpin's barrier-corrected job time, the imbalance statistics and the
    per-rank table. Rank 3 is designed to do 3x the work: it should be 'slowest', with little
    MPI time, while ranks 0-2 wait for it in MPI_Barrier."
status=0
"$hpcsens" run --out "$out" -- mpirun -np 4 --oversubscribe "$example" 2>&1 | tee "$out.log" || status=$?
record="$(sed -n 's/^hpcsens: record: \([^ ]*\).*/\1/p' "$out.log" | tail -n 1)"
rm -f "$out.log"
[[ -n $record ]] || { echo "demo: no record was written" >&2; exit 1; }

banner "2. The same record read back later: hpcsens report $record --format md
    (also --format table or csv; --all lists every rank of large jobs)"
"$hpcsens" report "$record" --format md

banner "3. Raw record (JSON, schema hpcsens.run.v1): $record"
echo "Keys: schema, job, config, timing, ranks[], imbalance, counters_status (docs/record-format.md)."
# --- HTML reports (engineer report's block): one self-contained page for the run above and one
# for an emulated sweep (no knob touched, every number computed and marked EMULATED).
banner "4. Pictures: hpcsens report --format html (self-contained pages; open them in a browser)"
"$hpcsens" report "$record" --format html -o "$out/run-report.html"
rm -rf "$out/sweep-emulated"
sweep_spec="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/examples/sweeps/emulated.yaml"
"$hpcsens" sweep "$sweep_spec" --out "$out/sweep-emulated" > /dev/null 2>&1 ||
  { echo "demo: the emulated sweep failed (run: hpcsens sweep $sweep_spec)" >&2; exit 1; }
"$hpcsens" report "$out/sweep-emulated" --format html -o "$out/sweep-report.html"
echo "HTML report of the run:             $out/run-report.html"
echo "HTML report of the emulated sweep:  $out/sweep-report.html"
exit "$status"
