#!/usr/bin/env bash
# Checks scripts/slurm-solve.sh on a real Slurm: starts a one-node cluster
# on this machine (as root; Debian's slurm-wlm and munge, installed if
# missing), submits a small solve with the recipe, waits for its job
# arrays, and compares the tables byte for byte with one `morris solve`
# of the same sectors. Exit 0 only if every table is the same.
#
#   scripts/slurm-check.sh [VARIANT [MAX_STONES [PHASE]]]   (default: six 12 all)
#
# MORRIS may name a built binary to use; RULES, rule options such as
# `--fly-at 3`, go to the recipe and to the single solve alike. It leaves
# the cluster running (slurmctld, slurmd and munged, started here; kill
# them when done) and its files in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
variant=${1:-six}
max_stones=${2:-12}
phase=${3:-all}

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge
fi
# MORRIS: a built binary to use instead of building one here.
morris=${MORRIS:-}
if [[ -z $morris ]]; then
    cargo build --release --locked -q
    morris=$PWD/target/release/morris
fi
work=$(mktemp -d /var/tmp/slurm-check.XXXXXX)
echo "working in $work"

# One node, this host, two CPUs; no accounting, no cgroups.
host=$(hostname -s)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge
chown slurm: /var/spool/slurmctld /var/log/slurm
cat >/etc/slurm/slurm.conf <<EOF
ClusterName=morris-check
SlurmctldHost=$host
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

# munge: a key of its own if there is none, and the daemon as its user.
if [[ ! -s /etc/munge/munge.key ]]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown -R munge: /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- munged
pgrep -x slurmctld >/dev/null || (slurmctld -D >"$work/slurmctld.out" 2>&1 &)
pgrep -x slurmd >/dev/null || (slurmd -D >"$work/slurmd.out" 2>&1 &)
for _ in $(seq 30); do
    sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
    sleep 1
done
sinfo

# The recipe, then a wait until the queue is empty; a task that failed
# leaves the waves after it pending for good, which ends the check.
MORRIS=$morris THREADS=1 scripts/slurm-solve.sh "$work/cluster" "$variant" "$max_stones" "$phase" | tee "$work/submit.txt"
while [[ -n $(squeue -h) ]]; do
    if squeue -h -o %r | grep -q DependencyNeverSatisfied; then
        echo "FAIL: a task failed; its output is in $work/cluster/slurm/"
        grep -L solved "$work"/cluster/slurm/*.out | head -3 | xargs -r tail -n 3
        exit 1
    fi
    sleep 2
done

# One solve of the same sectors, and the comparison.
# shellcheck disable=SC2086 # RULES is a list of options
"$morris" --variant "$variant" ${RULES:-} --db "$work/single" solve --phase "$phase" --max-stones "$max_stones" --threads 2 >/dev/null
cluster_tables=$(cd "$work/cluster" && ls ./*.mtb | sort)
single_tables=$(cd "$work/single" && ls ./*.mtb | sort)
if [[ $cluster_tables != "$single_tables" ]]; then
    echo "FAIL: the cluster's tables are not the single solve's:"
    diff <(echo "$cluster_tables") <(echo "$single_tables") | head
    exit 1
fi
count=0
for t in $single_tables; do
    cmp -s "$work/single/$t" "$work/cluster/$t" || { echo "FAIL: $t differs"; exit 1; }
    count=$((count + 1))
done
jobs=$(cat "$work"/cluster/slurm/wave-*.txt | wc -l)
echo "ok: $jobs jobs in $(wc -l <"$work/submit.txt") job arrays on Slurm made $count tables, byte for byte those of one solve"
