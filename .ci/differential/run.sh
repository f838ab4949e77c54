#!/usr/bin/env bash
# Differential test of tammi's legal moves against pydraughts, dame-rs, kish and clatsop.
#
#   .ci/differential/run.sh [TAMMI_BINARY] [check.py options...]
#
# TAMMI_BINARY defaults to target/release/tammi (relative to the repository root).
# Creates the venv <repo>/.venv if missing and installs requirements.txt into it
# (idempotent; kish is built from source with cargo the first time).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.venv"

tammi="target/release/tammi"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then  # a first argument that is not an option
  [ -n "$1" ] && tammi="$1"
  shift
fi
# A relative path is taken from the caller's directory if it exists there, else from the repo root.
case "$tammi" in
  /*) ;;
  *) if [ -e "$tammi" ]; then tammi="$(cd "$(dirname "$tammi")" && pwd)/$(basename "$tammi")"; else tammi="$root/$tammi"; fi ;;
esac

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"

cd "$root"
exec "$venv/bin/python" "$here/check.py" --tammi "$tammi" "$@"
