#!/bin/bash
# A throw-away single-node Slurm on localhost for the tests: munged, slurmctld and slurmd with
# every file (key, socket, config, state, spool, logs, pid files) in one directory, on free
# high ports, so nothing of a system Slurm or munge is read or touched.
#
#   slurm_localhost.sh start DIR     bring it up; prints SLURM_CONF=DIR/slurm.conf when the node is idle
#   slurm_localhost.sh stop DIR      stop the daemons and remove DIR
#   slurm_localhost.sh run DIR CMD.. start, run CMD with SLURM_CONF set, stop (also on failure)
#
# Exit 77 when slurmctld is not installed (the only case the tests skip). Any other failure
# exits 1 and prints the daemons' log tails, so an installed but broken Slurm fails the test.
# `start` also leaves a watchdog that stops everything after HPCSENS_SLURM_LIFETIME_S (120) s,
# so a test killed by its timeout does not leave daemons behind.
set -u

die() {
  echo "slurm_localhost: $*" >&2
  for f in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
    [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
  done
  do_stop
  exit 1
}

# A port nobody listens on (state 0A in /proc/net/tcp*); randomized so parallel users rarely clash.
free_port() {
  local p hex
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    hex=$(printf '%04X' "$p")
    [ "$p" = "${1:-}" ] && continue
    if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{print $2}' | grep -q ":$hex\$"; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# Alive and not a zombie (an exited daemon stays a zombie until its reaper gets to it).
alive() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

do_stop() {
  [ -d "$dir" ] || return 0
  local pids="" pid f
  # All at once: each daemon takes about 2 s to shut down.
  for f in slurmd slurmctld munged; do
    [ -s "$dir/$f.pid" ] || continue
    pid=$(cat "$dir/$f.pid")
    kill -TERM "$pid" 2>/dev/null && pids="$pids $pid"
  done
  for _ in $(seq 1 100); do
    local left=""
    for pid in $pids; do alive "$pid" && left="$left $pid"; done
    pids=$left
    [ -z "$pids" ] && break
    sleep 0.05
  done
  for pid in $pids; do kill -KILL "$pid" 2>/dev/null; done
  # The watchdog last: it may be the process running this very function.
  if [ -s "$dir/watchdog.pid" ] && [ "$(cat "$dir/watchdog.pid")" != "${BASHPID:-}" ]; then
    kill -TERM -- "-$(cat "$dir/watchdog.pid")" 2>/dev/null
  fi
  rm -rf "$dir"
}

do_start() {
  local missing=""
  command -v slurmctld >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
  if ! command -v slurmctld >/dev/null 2>&1; then
    echo "slurm_localhost: slurmctld is not installed" >&2
    exit 77
  fi
  for t in slurmd munged mungekey srun sinfo; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
  done
  [ -z "$missing" ] || die "slurmctld is installed but not:$missing (apt-get install slurmd slurm-client munge)"

  mkdir -p "$dir" "$dir/state" "$dir/spool" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  # munged refuses a socket directory that others cannot search.
  chmod 755 "$dir"

  local node cpus user ctld_port slurmd_port
  node=$(hostname -s)
  cpus=$(slurmd -C 2>/dev/null | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -n 1)
  [ -n "$cpus" ] || die "slurmd -C did not report CPUs"
  user=$(id -un)
  ctld_port=$(free_port) || die "no free port"
  slurmd_port=$(free_port "$ctld_port") || die "no free port"

  mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1 || die "mungekey failed"
  chmod 600 "$dir/munge.key"
  munged --socket="$dir/munge.sock" --key-file="$dir/munge.key" --log-file="$dir/munged.log" \
    --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" || die "munged did not start"

  # No cgroups, no accounting, no cpufreq plugin: what runs in a container or VM as well.
  cat >"$dir/slurm.conf" <<EOF
ClusterName=hpcsenstest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
EOF
  cat "$(dirname "$self")/../slurm_plugins.conf" >>"$dir/slurm.conf"
  cat >>"$dir/slurm.conf" <<EOF
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"

  # The watchdog is started before the daemons, so whatever happens next it cleans up.
  local lifetime=${HPCSENS_SLURM_LIFETIME_S:-120}
  setsid bash -c 'echo $$ > "$2/watchdog.pid"; sleep "$1"; exec "$3" stop "$2"' \
    watchdog "$lifetime" "$dir" "$self" </dev/null >/dev/null 2>&1 &

  slurmctld -f "$SLURM_CONF" || die "slurmctld did not start"
  slurmd -f "$SLURM_CONF" || die "slurmd did not start"

  local state=""
  for _ in $(seq 1 200); do
    state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.1
  done
  [ "$state" = idle ] || die "node $node not idle after 20 s (state '$state')"
  echo "SLURM_CONF=$SLURM_CONF"
}

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
mode=${1:-}
dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|run DIR [CMD...]" >&2; exit 2; }
shift 2

case "$mode" in
  start)
    do_start || exit
    ;;
  stop)
    do_stop
    ;;
  run)
    trap do_stop EXIT
    trap 'exit 143' TERM INT HUP
    ( do_start >/dev/null ) || exit
    export SLURM_CONF="$(cd "$dir" && pwd)/slurm.conf"
    "$@"
    ;;
  *)
    echo "usage: $0 start|stop|run DIR [CMD...]" >&2
    exit 2
    ;;
esac
