#!/bin/sh
# Regenerate tests/data/tactics.tsv (see README.md here). Takes an hour or more on two
# busy cores; everything runs at nice 19. Usage: .ci/tactics/generate.sh [WORKDIR]
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:-/tmp/tammi-tactics}
. "$ROOT/.ci/tactics/build.sh"

# 1. Self-play games, at a fixed depth (no clock: a loaded machine cannot lose on time).
selfplay() { v=$1; n=$2; d=$3; seed=$4; shift 4
  nice -n 19 "$T" match --engine "$T hub" --engine "$T hub" --variant "$v" --games "$n" \
    --depth "$d" --seed "$seed" --max-plies 300 --quiet \
    --pdn "$WORK/sp-$v-d$d-s$seed.pdn" "$@" > "$WORK/sp-$v-d$d-s$seed.txt"
}
selfplay english 80 6 1
selfplay international 80 6 1
selfplay english 80 4 2 --openings random
selfplay international 80 4 2
selfplay russian 40 6 1
selfplay brazilian 40 6 1
selfplay turkish 40 5 1

# 2. Proved positions, per variant (self-play games, then the fixtures of tests/data/pdn).
# --max-found: enough positions for the quota of select.py, in less time. Canadian is left
# out: at depth 5 and more its proofs take too long on this machine (none in the file).
for vm in english:50 international:84 russian:1000 brazilian:16 turkish:1000; do
  v=${vm%:*}
  nice -n 19 "$G" --alternatives --max-found "${vm#*:}" "$WORK"/sp-$v-*.pdn \
    "$ROOT/tests/data/pdn/$v.pdn" > "$WORK/alt-$v.tsv"
done
nice -n 19 "$G" --alternatives --min-pieces 10 "$WORK"/sp-english-*.pdn \
  "$ROOT/tests/data/pdn/english.pdn" > "$WORK/mid-english.tsv"

# 3. The file, then its check.
W=$WORK
python3 "$ROOT/.ci/tactics/select.py" english="+$W/mid-english.tsv,$W/alt-english.tsv" \
  international="$W/alt-international.tsv" russian="$W/alt-russian.tsv" \
  brazilian="$W/alt-brazilian.tsv" turkish="$W/alt-turkish.tsv" \
  > "$ROOT/tests/data/tactics.tsv"
nice -n 19 "$T" bench --tactics "$ROOT/tests/data/tactics.tsv" --prove | tail -1
