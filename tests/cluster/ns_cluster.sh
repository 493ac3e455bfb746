#!/bin/bash
# A small real cluster on this one machine, for the multi-host tests: N hosts (node0..), each in
# its own network namespace (a veth into a private bridge that lives in a namespace of its own,
# addresses 10.77.0.0/24 that exist only there), its own UTS namespace (host name) and mount
# namespace (own /etc/hosts, own node-local directory DIR/local). The file system is otherwise
# shared, like a cluster's shared file system. Each host runs sshd (root, key only, listening only
# on its private address) and slurmd; node0 also runs slurmctld and munged. Open MPI's
# `mpirun --host`, MPICH's Hydra (ssh launcher) and `srun -N 2` thus start ranks on different hosts
# over TCP. node0 also runs MariaDB and slurmdbd (accounting, so `sacct` answers), and every host
# has Slurm's acct_gather_energy/pm_counters plugin reading a node-local fake of HPE Cray's
# /sys/cray/pm_counters (energy in J, power in W; a tmpfs /sys rebuilt from the real one's entries
# in the host's mount namespace): tests write the node's joules there and read Slurm's
# ConsumedEnergy back through sacct. The files hold 0 until a test writes them (0: the plugin
# records no energy).
#
#   ns_cluster.sh start DIR [NHOSTS]  bring it up (tears down a previous one in DIR first)
#   ns_cluster.sh stop DIR            stop everything and remove DIR (idempotent)
#   ns_cluster.sh exec DIR HOST CMD.. run CMD on HOST (as if logged in there) with DIR/env set
#
# Every namespace is named hsc-<id>-*, <id> unique per start and kept in DIR/id: teardown kills
# exactly the processes inside those namespaces and deletes them. `start` also leaves a watchdog
# that tears down after HPCSENS_CLUSTER_LIFETIME_S (1800) s, so a killed test leaves nothing behind.
# Exit 77 when a needed tool is missing (tests report it as a failure, not a skip, on a machine
# set up by setup.sh); any other failure exits 1 with the daemons' log tails.
set -u
PATH=$PATH:/usr/sbin:/sbin
subnet=10.77.0

die() {
  echo "ns_cluster: $*" >&2
  for f in "$dir"/log/*.log; do
    [ -f "$f" ] && { echo "--- tail of $f" >&2; tail -n 12 "$f" >&2; }
  done
  do_stop
  exit 1
}

hosts_of() { local n; n=$(cat "$dir/nhosts" 2>/dev/null || echo 0); for ((i = 0; i < n; i++)); do echo "node$i"; done; }

# Kills every process in namespace $1 (TERM, then KILL), then deletes it.
kill_netns() {
  local ns=$1 pids
  ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$ns" || return 0
  pids=$(ip netns pids "$ns" 2>/dev/null)
  [ -n "$pids" ] && kill -TERM $pids 2>/dev/null
  for _ in $(seq 1 40); do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -z "$pids" ] && break
    sleep 0.05
  done
  [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  ip netns del "$ns" 2>/dev/null
}

do_stop() {
  [ -d "$dir" ] || return 0
  local id ns
  id=$(cat "$dir/id" 2>/dev/null)
  if [ -n "$id" ]; then
    # munged runs in node0's namespace too, so this ends every daemon and every rank.
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^hsc-$id-"); do kill_netns "$ns"; done
  fi
  if [ -s "$dir/watchdog.pid" ] && [ "$(cat "$dir/watchdog.pid")" != "${BASHPID:-}" ]; then
    kill -TERM -- "-$(cat "$dir/watchdog.pid")" 2>/dev/null
  fi
  rm -rf "$dir"
}

check_tools() {
  local missing=""
  for t in ip unshare nsenter sshd ssh ssh-keygen slurmctld slurmd munged mungekey srun sinfo slurmdbd sacct \
    sacctmgr mariadbd mariadb-install-db; do
    command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
  done
  [ -z "$missing" ] || { echo "ns_cluster: missing:$missing (./setup.sh installs them)" >&2; exit 77; }
}

write_configs() {
  local n=$1 i
  {
    echo "127.0.0.1 localhost"
    for ((i = 0; i < n; i++)); do echo "$subnet.$((i + 1)) node$i"; done
  } >"$dir/hosts"
  ssh-keygen -q -t ed25519 -N "" -f "$dir/ssh/host_key" || die "ssh-keygen failed"
  ssh-keygen -q -t ed25519 -N "" -f "$dir/ssh/id_ed25519" || die "ssh-keygen failed"
  cp "$dir/ssh/id_ed25519.pub" "$dir/ssh/authorized_keys"
  # StrictModes off: the key lives in DIR (mode 700, ours), not under a home directory.
  cat >"$dir/ssh/sshd_config" <<EOF
Port 22
HostKey $dir/ssh/host_key
AuthorizedKeysFile $dir/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
AcceptEnv no
EOF
  cat >"$dir/ssh/ssh_config" <<EOF
Host node*
  IdentityFile $dir/ssh/id_ed25519
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
EOF
  printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$dir/ssh/ssh_config" >"$dir/bin/ssh"
  chmod 755 "$dir/bin/ssh"
  local cpus nodes
  cpus=$(nproc)
  nodes=$(hosts_of | paste -sd, -)
  cat >"$dir/slurm.conf" <<EOF
ClusterName=hpcsensns
SlurmctldHost=node0($subnet.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/local/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
EOF
  # The shared plugin settings, with accounting and energy gathering on (see the top).
  grep -v -e '^JobAcctGatherType=' -e '^AccountingStorageType=' "$(dirname "$self")/../slurm_plugins.conf" \
    >>"$dir/slurm.conf"
  cat >>"$dir/slurm.conf" <<EOF
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$subnet.1
AccountingStoragePass=$dir/munge.sock
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1,energy=1
AcctGatherEnergyType=acct_gather_energy/pm_counters
EOF
  # slurmdbd reads the slurmdbd.conf beside $SLURM_CONF; only its user may read it.
  cat >"$dir/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
DbdAddr=$subnet.1
DbdHost=node0
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=hpcsens_acct
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
EOF
  chmod 600 "$dir/slurmdbd.conf"
  mariadb-install-db --user=root --datadir="$dir/mysql" --auth-root-authentication-method=socket \
    --skip-test-db >"$dir/log/mariadb-install.log" 2>&1 || die "mariadb-install-db failed"
  for ((i = 0; i < n; i++)); do
    echo "NodeName=node$i NodeAddr=$subnet.$((i + 1)) CPUs=$cpus State=UNKNOWN" >>"$dir/slurm.conf"
  done
  echo "PartitionName=debug Nodes=$nodes Default=YES MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
  # A second partition on the same nodes, for tests that name one (slurm-array's sbatch.partition).
  echo "PartitionName=batch Nodes=$nodes Default=NO MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
  # PMIx's per-step directories go to node-local storage: in the shared /tmp the nodes collide.
  echo "PMIxCliTmpDirBase=$dir/local/pmix" >"$dir/mpi.conf"
  # What a user of this cluster has in the environment: launchers reach the other hosts with our
  # ssh, and MPI traffic stays on the private subnet.
  cat >"$dir/env" <<EOF
SLURM_CONF=$dir/slurm.conf
OMPI_MCA_plm_rsh_agent=$dir/bin/ssh
OMPI_MCA_btl_tcp_if_include=$subnet.0/24
OMPI_MCA_oob_tcp_if_include=$subnet.0/24
OMPI_MCA_pml=ob1
OMPI_MCA_btl=tcp,self,vader
OMPI_MCA_rmaps_base_oversubscribe=1
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
HYDRA_LAUNCHER=ssh
HYDRA_LAUNCHER_EXEC=$dir/bin/ssh
HYDRA_IFACE=eth0
UCX_NET_DEVICES=eth0
UCX_TLS=tcp,self,sm
HPCSENS_CLUSTER_DIR=$dir
EOF
}

# The network: a bridge in namespace hsc-<id>-sw, one veth pair per host.
make_network() {
  local n=$1 i ns sw="hsc-$id-sw"
  ip netns add "$sw" || die "ip netns add failed"
  ip -n "$sw" link add br0 type bridge || die "no bridge support"
  ip -n "$sw" link set br0 up
  for ((i = 0; i < n; i++)); do
    ns="hsc-$id-node$i"
    ip netns add "$ns" || die "ip netns add $ns failed"
    ip -n "$sw" link add "v$i" type veth peer name eth0 netns "$ns" || die "veth failed"
    ip -n "$sw" link set "v$i" master br0
    ip -n "$sw" link set "v$i" up
    ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
  done
}

# Runs inside a new host's UTS and mount namespaces (see do_start): names the host, gives it its
# own /etc/hosts and node-local directory, starts its daemons, then holds the namespaces.
# A /sys of this host's own: a tmpfs holding the real /sys's entries (bound back) and the fake
# /sys/cray/pm_counters that Slurm's pm_counters plugin reads.
fake_pm_counters() {
  mkdir -p "$dir/local/realsys"
  mount --rbind /sys "$dir/local/realsys" || exit 1
  mount -t tmpfs -o mode=755 tmpfs /sys || exit 1
  local e b
  for e in "$dir/local/realsys"/*; do
    b=$(basename "$e")
    mkdir "/sys/$b" && mount --rbind "$e" "/sys/$b"
  done
  mkdir -p /sys/cray/pm_counters
  echo 0 >/sys/cray/pm_counters/energy
  echo 0 >/sys/cray/pm_counters/power
}

# MariaDB (socket /run/mysqld/mysqld.sock, node0's own) and slurmdbd; waits until both answer.
start_accounting() {
  mkdir -p "$dir/local/mysqld" /run/mysqld
  mount --bind "$dir/local/mysqld" /run/mysqld || exit 1
  mariadbd --user=root --datadir="$dir/mysql" --skip-networking --socket=/run/mysqld/mysqld.sock \
    --pid-file="$dir/run/mariadb.pid" --log-error="$dir/log/mariadb.log" </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 300); do [ -S /run/mysqld/mysqld.sock ] && break; sleep 0.1; done
  [ -S /run/mysqld/mysqld.sock ] || { echo "mariadbd did not start" >&2; exit 1; }
  SLURM_CONF="$dir/slurm.conf" slurmdbd || exit 1
  for _ in $(seq 1 300); do
    SLURM_CONF="$dir/slurm.conf" sacctmgr -n -i list cluster >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "slurmdbd did not answer" >&2
  exit 1
}

host_init() {
  local h=$1 i=${1#node}
  hostname "$h"
  mount --bind "$dir/hosts" /etc/hosts
  mount --bind "$dir/hosts.d/$h" "$dir/local"
  mkdir -p "$dir/local/spool" "$dir/local/pmix" /run/sshd
  fake_pm_counters
  /usr/sbin/sshd -f "$dir/ssh/sshd_config" -o "ListenAddress=$subnet.$((i + 1))" \
    -o "PidFile=$dir/run/sshd-$h.pid" -E "$dir/log/sshd-$h.log" || exit 1
  if [ "$h" = node0 ]; then
    munged --socket="$dir/munge.sock" --key-file="$dir/munge.key" --log-file="$dir/log/munged.log" \
      --pid-file="$dir/run/munged.pid" --seed-file="$dir/run/munged.seed" || exit 1
    start_accounting
    SLURM_CONF="$dir/slurm.conf" sacctmgr -i add cluster hpcsensns >/dev/null 2>&1
    slurmctld -f "$dir/slurm.conf" || exit 1
  fi
  slurmd -f "$dir/slurm.conf" || exit 1
  echo $$ >"$dir/run/$h.init"
  exec sleep infinity
}

do_start() {
  local n=${1:-2} i h
  check_tools
  do_stop
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  chmod 755 "$dir"  # munged wants its socket's directory searchable by everyone
  mkdir -p "$dir"/{ssh,bin,run,log,state,local}
  chmod 700 "$dir/ssh"
  id=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
  echo "$id" >"$dir/id"
  echo "$n" >"$dir/nhosts"
  for h in $(hosts_of); do mkdir -p "$dir/hosts.d/$h"; done
  local lifetime=${HPCSENS_CLUSTER_LIFETIME_S:-1800}
  setsid bash -c 'echo $$ > "$2/watchdog.pid"; sleep "$1"; exec "$3" stop "$2"' \
    watchdog "$lifetime" "$dir" "$self" </dev/null >/dev/null 2>&1 &
  mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1 || die "mungekey failed"
  chmod 600 "$dir/munge.key"
  write_configs "$n"
  make_network "$n"
  for h in $(hosts_of); do
    # nsenter, not `ip netns exec`: that one remounts /sys without the cgroup tree slurmd needs.
    setsid nsenter --net="/run/netns/hsc-$id-$h" unshare --uts --mount --propagation private --fork \
      /bin/bash "$self" host-init "$dir" "$h" </dev/null >"$dir/log/init-$h.log" 2>&1 &
  done
  wait_ready "$n"
}

wait_ready() {
  local n=$1 idle="" h
  for _ in $(seq 1 300); do
    local ok=1
    for h in $(hosts_of); do [ -s "$dir/run/$h.init" ] || ok=0; done
    if [ $ok = 1 ]; then
      # One line per node and partition: count the nodes, not the lines.
      idle=$(in_host node0 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | grep -c .)
      [ "$idle" = "$n" ] && break
    fi
    sleep 0.1
  done
  [ "$idle" = "$n" ] || die "$n hosts not up and idle after 30 s ($idle idle)"
  for h in $(hosts_of); do
    in_host node0 "$dir/bin/ssh" "$h" true || die "ssh node0 -> $h failed"
  done
  echo "HPCSENS_CLUSTER_DIR=$dir"
}

# Runs a command on host $1 with the cluster's environment, in that host's namespaces.
in_host() {
  local h=$1 pid
  shift
  pid=$(cat "$dir/run/$h.init" 2>/dev/null) || { echo "ns_cluster: no host $h in $dir" >&2; return 2; }
  set -a
  . "$dir/env"
  set +a
  exec_or_run nsenter -t "$pid" -n -u -m --wd="$PWD" -- "$@"
}
exec_or_run() { if [ "${exec_mode:-0}" = 1 ]; then exec "$@"; else "$@"; fi; }

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
mode=${1:-}
dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|exec DIR ..." >&2; exit 2; }
shift 2
case "$mode" in
  start) do_start "$@" ;;
  stop) do_stop ;;
  host-init) host_init "$@" ;;
  exec)
    [ $# -ge 2 ] || { echo "usage: $0 exec DIR HOST CMD..." >&2; exit 2; }
    dir=$(cd "$dir" && pwd)
    exec_mode=1 in_host "$@"
    ;;
  *) echo "usage: $0 start|stop|exec DIR ..." >&2; exit 2 ;;
esac
