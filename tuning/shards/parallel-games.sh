#!/usr/bin/env bash
# Self-play shards spread over hosts by GNU parallel, then merged into one file: seed S
# plays 'tammi tune games ... --seed S --format bin --out shard-S.bin'.
#
# usage:  tuning/shards/parallel-games.sh FIRST_SEED LAST_SEED OUT
#   env:  TAMMI    the binary (on every host: the same path)   (default: tammi)
#         VARIANT  the variant                                  (default: international)
#         GAMES    games per shard                              (default: 1000)
#         NODES    nodes per move                               (default: 1000)
#         EXTRA    more 'tune games' flags, e.g. "--random-plies 6"
#         HOSTS    an --sshloginfile (a line a host: "8/user@node1", ":" for this one);
#                  unset: local mode, JOBS shards at once here (default: nproc)
#         WORKDIR  the shards' directory (default: the current one); with HOSTS, a
#                  directory every host shares, or unset: each shard is copied back
#                  with --return and removed from its host (--cleanup)
# e.g.    HOSTS=hosts.txt GAMES=1000 tuning/shards/parallel-games.sh 1 1000 all.bin
#         (a million games; run again after a failure, it plays only the shards not
#         yet here; with a shared WORKDIR, cut ones go on from their .part files)
# .ci/run runs it in local mode on two tiny shards, so the recipe cannot rot.
set -euo pipefail
if [ $# -ne 3 ]; then
    sed -n '5,18p' "$0" >&2
    exit 2
fi
first=$1 last=$2 out=$(realpath -m "$3")
tammi=${TAMMI:-tammi}
opts=(--will-cite --halt now,fail=1 --line-buffer)
if [ -n "${HOSTS:-}" ]; then
    opts+=(--sshloginfile "$HOSTS")
    if [ -n "${WORKDIR:-}" ]; then
        opts+=(--workdir "$WORKDIR")
    else
        opts+=(--return 'shard-{}.bin' --cleanup)
    fi
else
    opts+=(--jobs "${JOBS:-$(nproc)}")
fi
cd "${WORKDIR:-.}"
for s in $(seq "$first" "$last"); do [ -e "shard-$s.bin" ] || echo "$s"; done | parallel "${opts[@]}" \
    "$tammi" tune games --variant "${VARIANT:-international}" --games "${GAMES:-1000}" \
    --nodes "${NODES:-1000}" --seed {} --format bin --out 'shard-{}.bin' ${EXTRA:-}
# In seed order: the merged file depends only on the seeds and flags.
shards=()
for s in $(seq "$first" "$last"); do shards+=("shard-$s.bin"); done
"$tammi" tune merge --out "$out" "${shards[@]}"
