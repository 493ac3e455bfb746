#!/usr/bin/env bash
# Runs every parser's libFuzzer harness for a fixed time: `scripts/fuzz.sh [SECONDS] [PARSER...]`
# (default 30 s each, all parsers: spec system mix fit_csv record model journal appfile net_env).
# Not part of ctest. Builds with clang + ASan/UBSan into build-fuzz/ (-DHPCSENS_FUZZ=ON), starts
# from fuzz/seeds/<parser>/ and keeps the grown corpus in build-fuzz/corpus/<parser>/. An input
# that crashes a parser (or makes it throw anything but InputError) is saved as
# build-fuzz/crashes/<parser>/crash-*; after fixing the parser, copy it into
# fuzz/regressions/<parser>/ so the normal test suite (test_fuzz_regressions) replays it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
shift || true
parsers=("$@")
((${#parsers[@]})) || parsers=(spec system mix fit_csv record model journal appfile cpuinfo net_env)
build=${HPCSENS_FUZZ_BUILD:-$here/build-fuzz}

CC=clang CXX=clang++ cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHPCSENS_FUZZ=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null
cmake --build "$build" --target "${parsers[@]/#/fuzz_}"

status=0
for p in "${parsers[@]}"; do
  mkdir -p "$build/corpus/$p" "$build/crashes/$p"
  echo "== fuzz_$p for ${seconds}s" >&2
  # -fork/-ignore_crashes: go on after a finding, so one known bug does not hide the next.
  "$build/bin/fuzz_$p" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="$build/crashes/$p/" "$build/corpus/$p" "$here/fuzz/seeds/$p" \
    2>"$build/fuzz_$p.log" || true
  findings=$(find "$build/crashes/$p" -type f | wc -l)
  echo "fuzz_$p: $(grep -oE 'exec/s:? [0-9]+' "$build/fuzz_$p.log" | tail -1), $findings finding(s) in $build/crashes/$p" >&2
  ((findings == 0)) || status=1
done
exit $status
