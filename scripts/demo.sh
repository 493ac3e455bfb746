#!/usr/bin/env bash
# The pipeline end to end, on any machine (`./setup.sh demo` runs it after building only what it
# needs; an installed tree has it as share/hpcsens/demo.sh):
#   1. an unchanged, deliberately imbalanced MPI program wrapped by `hpcsens run` (measured);
#   2. an EMULATED frequency sweep (records computed from a known model, labelled so) and the
#      model `hpcsens fit` recovers from it;
#   3. that model projected onto candidate systems with `hpcsens predict`;
#   4. where every report went.
# Usage: scripts/demo.sh DIR [--print-ranks]   (DIR: a build directory, or an install prefix)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "${1:-$here/../build}" && pwd)"
hpcsens="$root/bin/hpcsens"
example="$root/bin/example_imbalance"
[[ -x $example ]] || example="$root/libexec/hpcsens/example_imbalance"
# Specs and candidate systems: from the source tree, or from an install's share/hpcsens.
share="$here/../examples"
[[ -d $share/sweeps ]] || share="$root/share/hpcsens/examples"
out="${HPCSENS_DEMO_OUT:-$PWD/hpcsens-demo}"
# At most one rank per online CPU (4 where there are more): more ranks than CPUs wait for the
# scheduler, and a newcomer's first answer would be "oversubscribed: figures are unreliable".
# --print-ranks prints the choice and exits (tests/integration/demo_ranks_test.sh).
cpus="$(nproc 2>/dev/null || echo 1)"
[[ $cpus =~ ^[0-9]+$ ]] && (( cpus >= 1 )) || cpus=1
ranks=$(( cpus < 4 ? cpus : 4 ))
if [[ ${2:-} == --print-ranks ]]; then echo "$ranks"; exit 0; fi
for f in "$hpcsens" "$example" "$share/sweeps/emulated.yaml" "$share/systems/candidates.yaml"; do
  [[ -e $f ]] || { echo "demo: $f is missing; build first (./setup.sh build)" >&2; exit 1; }
done
mkdir -p "$out"
# Open MPI refuses root unless told; it counts slots by cores, so --oversubscribe lets a rank per
# hardware thread start (never more ranks than online CPUs: above).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

banner() { printf '\n=== %s\n\n' "$*"; }

banner "1. MEASURED: hpcsens run --out $out/runs -- mpirun -np $ranks --oversubscribe example_imbalance
    ($ranks ranks: this machine has $cpus online CPUs, and the demo runs at most one rank per CPU.)
    The program's own output comes first (stdout, untouched); hpcsens then prints, on stderr,
    McCalpin's barrier-corrected job time, the imbalance statistics and the per-rank table.
    The last rank ($((ranks - 1))) does 3x the work: it is 'slowest', while the others wait for it in MPI_Barrier."
status=0
"$hpcsens" run --out "$out/runs" -- mpirun -np "$ranks" --oversubscribe "$example" 2>&1 | tee "$out/run.log" ||
  status=$?
record="$(sed -n 's/^hpcsens: record: \([^ ]*\).*/\1/p' "$out/run.log" | tail -n 1)"
[[ -n $record ]] || { echo "demo: no record was written" >&2; exit 1; }

banner "2. EMULATED sweep: hpcsens sweep examples/sweeps/emulated.yaml --out $out/sweep
    No job runs and no knob changes: each record is COMPUTED from the spec's ground truth
    (W_cpu=90 Gcycles, W_mem=1500 GB, T_io=3 s, 1 % noise) and marked emulated. hpcsens fit
    then has to recover that truth from the noisy records."
rm -rf "$out/sweep"
"$hpcsens" sweep "$share/sweeps/emulated.yaml" --out "$out/sweep" 2>&1 | grep -Ev '^(EMULATED )?\[[#-]+\] ' || status=$?

banner "3. Prediction from the EMULATED model onto candidate systems:
    hpcsens predict $out/sweep/model.json --system examples/systems/candidates.yaml"
"$hpcsens" predict "$out/sweep/model.json" --system "$share/systems/candidates.yaml" || status=$?

banner "4. Reports"
cat <<EOF
  measured run record (JSON)   $record
  read it back                 $hpcsens report $record --format md
  EMULATED sweep directory     $out/sweep  (journal.jsonl, records/, results.csv)
  fitted model (EMULATED)      $out/sweep/model.json
EOF
# (Further pipeline steps, e.g. HTML reports, are appended below.)

# --- HTML reports (engineer report's block): one self-contained page for the measured run and
# one for the EMULATED sweep above (its records, journal and model on one page).
banner "5. Pictures: hpcsens report --format html (self-contained pages; open them in a browser)"
"$hpcsens" report "$record" --format html -o "$out/run-report.html" || status=$?
if [[ -d $out/sweep ]]; then
  "$hpcsens" report "$out/sweep" --format html -o "$out/sweep-report.html" || status=$?
fi
echo "HTML report of the measured run:   $out/run-report.html"
echo "HTML report of the EMULATED sweep: $out/sweep-report.html"
exit "$status"
