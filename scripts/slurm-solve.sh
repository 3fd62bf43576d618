#!/usr/bin/env bash
# Submits a solve to Slurm as one job array per wave of `morris plan`:
# the jobs of a wave are independent of each other, and each array starts
# once every task of the one before has succeeded (afterok). All tasks
# share one database directory, which every node must see at the same
# path (NFS, Lustre mounted with -o flock, BeeGFS, ...).
#
#   scripts/slurm-solve.sh DB_DIR [VARIANT [MAX_STONES [PHASE]]]
#
# PHASE is `all` (default) or `moving`. The environment may set MORRIS
# (the binary as the nodes see it; default: `morris` on their PATH),
# THREADS (per task, default 2), RULES (rule options after the variant,
# such as `--fly-at 3`) and SBATCH_OPTIONS (added to every sbatch:
# partition, time, memory - `morris plan` gives each job's memory).
#
# The job lists of the waves go to DB_DIR/slurm/wave-N.txt, one job id a
# line; task i of wave N runs the job on line i+1. A failed task stops
# the waves after it (afterok); fix the cause and run this script again:
# jobs whose tables exist end at once with "already solved".
set -euo pipefail

db=${1:?usage: $0 DB_DIR [VARIANT [MAX_STONES [PHASE]]]}
variant=${2:-nine}
max_stones=${3:-}
phase=${4:-all}
morris=${MORRIS:-morris}
threads=${THREADS:-2}

mkdir -p "$db/slurm"
db=$(cd "$db" && pwd)
# shellcheck disable=SC2206 # RULES is a list of options
rules=(--variant "$variant" ${RULES:-} --db "$db")
plan_options=(--phase "$phase")
[[ -n $max_stones ]] && plan_options+=(--max-stones "$max_stones")

# The text form of the plan: the job id in the first column, its wave in
# the second; header and footer lines have no number there.
plan=$("$morris" "${rules[@]}" plan "${plan_options[@]}")
last=$(awk '$2 ~ /^[0-9]+$/ { print $2 }' <<<"$plan" | sort -n | tail -1)

previous=
for wave in $(seq 0 "$last"); do
    list=$db/slurm/wave-$wave.txt
    awk -v w="$wave" '$2 ~ /^[0-9]+$/ && $2 == w { print $1 }' <<<"$plan" >"$list"
    count=$(wc -l <"$list")
    after=()
    [[ -n $previous ]] && after=(--dependency="afterok:$previous")
    # shellcheck disable=SC2086 # SBATCH_OPTIONS is a list of options
    previous=$(sbatch --parsable "${after[@]}" ${SBATCH_OPTIONS:-} \
        --job-name="morris-$variant-w$wave" --array="0-$((count - 1))" --cpus-per-task="$threads" \
        --output="$db/slurm/%x-%a.out" \
        --wrap="job=\$(sed -n \"\$((SLURM_ARRAY_TASK_ID + 1))p\" '$list'); exec '$morris' ${rules[*]@Q} solve --job \"\$job\" --threads $threads")
    previous=${previous%%;*}
    echo "wave $wave: $count jobs, array $previous"
done
