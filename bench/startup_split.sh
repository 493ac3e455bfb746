#!/bin/bash
# Where one wrapped run's start-up time goes (issue 33), from scheduler tracepoints and uprobes
# (perf probe: no ptrace, so oversubscribed ranks run as without it). Prints the front end's
# timeline (hpcsens exec .. job's launcher exec, launcher exit .. hpcsens exit), per-rank medians
# of the preload's phases around the real PMPI_Init/PMPI_Finalize, and the counter agent's
# lifetime. Needs root and perf; probes go on private copies and are removed at exit.
# Usage: startup_split.sh HPCSENS TRIVIAL [NP] [EVENTS]   (results: docs/startup-cost.md)
set -eu
hpcsens=$(readlink -f "$1")
trivial=$(readlink -f "$2")
np=${3:-16}
events=${4:-default}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
libmpi=$(ldd "$trivial" | awk '/libmpi\.so/ {print $3}')
work=$(mktemp -d)
mkdir -p "$work/bin" "$work/lib/hpcsens"
cp "$hpcsens" "$work/bin/hpcsens"
cp "$(dirname "$hpcsens")/../lib/libhpcsens_preload.so" "$work/lib/"
cp "$(dirname "$hpcsens")/../lib/hpcsens/hpcsens-counter-agent" "$work/lib/hpcsens/"
cp "$trivial" "$work/bin/trivial"
groups="sufe supre suag sumpi"
cleanup() { for g in $groups; do perf probe -q -d "$g:*" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
# probe GROUP BINARY NAME SYMBOL-REGEX [return]: the first defined text symbol matching it.
probe() {
  local addr
  addr=$( (nm "$2" 2>/dev/null | grep -q . && nm "$2" || nm -D "$2") | awk -v re="$4" '$2 ~ /^[Tt]$/ && $3 ~ re {print $1; exit}')
  [ -n "$addr" ] || { echo "no symbol /$4/ in $2" >&2; return 0; }
  perf probe -f -q -x "$2" -a "$1:$3=0x$addr${5:+%return}" >/dev/null 2>&1 || echo "cannot probe $3" >&2
}
H=$work/bin/hpcsens P=$work/lib/libhpcsens_preload.so A=$work/lib/hpcsens/hpcsens-counter-agent
probe sufe "$H" fe_main '^main$'
probe sufe "$H" detect_rank_mpi 'mpi15detect_rank_mpi'
probe sufe "$H" spawn '3run5spawnE'
probe sufe "$H" collect 'run14collect_record'
probe sufe "$H" render 'report22render_run_report_file'
probe supre "$P" wrap_init '^MPI_Init$'
probe supre "$P" wrap_init_ret '^MPI_Init$' r
probe supre "$P" node_agent 'preload21prepare_node_counters'
probe supre "$P" node_agent_ret 'preload21prepare_node_counters' r
probe supre "$P" wrap_fin '^MPI_Finalize$'
probe sumpi "$libmpi" real_init_ret '^PMPI_Init$' r
probe sumpi "$libmpi" real_fin '^PMPI_Finalize$'
probe sumpi "$libmpi" real_fin_ret '^PMPI_Finalize$' r
probe suag "$A" serving 'agent11serve_ranks'
probe suag "$A" proc_read 'proc_kib'
probe suag "$A" proc_read_ret 'proc_kib' r
echo "cores: $(nproc), load average: $(cut -d' ' -f1-3 /proc/loadavg), ranks: $np, events: $events"
perf record -q -o "$work/perf.data" -e sched:sched_process_exec -e sched:sched_process_exit \
  -e 'sufe:*' -e 'supre:*' -e 'suag:*' -e 'sumpi:*' -- \
  "$work/bin/hpcsens" run --out "$work/out" --events "$events" -- \
  mpirun -np "$np" --oversubscribe "$work/bin/trivial" > /dev/null 2>&1 || echo "the run failed" >&2
perf script -i "$work/perf.data" -F comm,pid,tid,time,event 2>/dev/null | awk '
  { split($2, pt, "/"); pid = pt[1]; tid = pt[2]; t = $3; sub(/:$/, "", t); e = $4; sub(/:$/, "", e); sub(/.*:/, "", e)
    if (t0 == "") { t0 = t; front = pid }; ms = (t - t0) * 1000 }
  function out(what) { printf "%8.1f ms  %s\n", ms, what }
  pid == front && e != "sched_process_exit" && e != "sched_process_exec" { out("hpcsens: " e) }
  pid == front && e == "sched_process_exit" && pid == tid { out("hpcsens exits") }
  $1 == "mpirun" && e == "sched_process_exec" { out("launcher exec (pid " pid ")"); launcher[pid] = 1 }
  launcher[pid] && e == "sched_process_exit" && pid == tid { out("launcher exits") }
  $1 ~ /counter/ && e == "sched_process_exec" { out("agent exec"); ag0 = ms }
  $1 ~ /counter/ && e == "serving" { out("agent serving") }
  $1 ~ /counter/ && e == "proc_read" { pr = ms }
  $1 ~ /counter/ && e == "proc_read_ret__return" { prn++; prsum += ms - pr }
  $1 ~ /counter/ && e == "sched_process_exit" && pid == tid { out("agent exits"); agent_life = ms - ag0 }
  $1 ~ /trivi/ && e == "sched_process_exec" { rank[pid] = 1 }
  rank[pid] && !((pid, e) in T) { T[pid, e] = ms }
  function med(a, b,   p, n, v) { n = 0; for (p in rank) if ((p, a) in T && (p, b) in T) v[++n] = T[p, b] - T[p, a]
    if (n == 0) return "-"; asort(v); return sprintf("%.1f ms (max %.1f)", v[int((n + 1) / 2)], v[n]) }
  END {
    print "per rank, median over ranks:"
    print "  exec to the preload'"'"'s MPI_Init:         " med("sched_process_exec", "wrap_init")
    print "  real PMPI_Init:                        " med("wrap_init", "real_init_ret__return")
    print "  preload after PMPI_Init (node agent):  " med("real_init_ret__return", "wrap_init_ret__return") " (" med("node_agent", "node_agent_ret__return") ")"
    print "  preload before PMPI_Finalize:          " med("wrap_fin", "real_fin")
    print "  real PMPI_Finalize:                    " med("real_fin", "real_fin_ret__return")
    if (prn) printf "agent: lifetime %.1f ms, %d reads of /proc/self/{status,smaps_rollup} %.1f ms\n", agent_life, prn, prsum
  }'
