#!/usr/bin/env bash
# On the GPU machine: runs every variant that scripts/gpu/prepare-variants.sh
# built (each bench_fuse --only=its pipeline), interleaved over ROUNDS rounds
# so that clock drift hits every variant alike; prints one line per run:
# variant, options, ptxas resources, the JSON line (each line starts with
# VARIANTS_LABEL when set, e.g. the shape). scripts/gpu/summarize-variants.py
# turns the lines into one per variant with the GiB/s of each round.
# Usage: scripts/gpu/run-variants.sh [ROUNDS] [BENCH ARGS]...
#   e.g. VARIANTS_LABEL=3486104x77 run-variants.sh 2 --rows=3486104 --cols=77
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${VARIANTS_DIR:-$root/.device/variants}"
rounds="${1:-2}"; shift || true
args=("$@"); [ ${#args[@]} -eq 0 ] && args=(--reps=30)
for r in $(seq 1 "$rounds"); do
  for d in "$dir"/*-v*/; do
    v="$(basename "$d")"; name="${v%-v*}"
    line="$("$d/bench_fuse" "${args[@]}" --only="$name" 2>/dev/null | grep "^{" | tail -1)"
    echo "${VARIANTS_LABEL:+$VARIANTS_LABEL }$v [$(cat "$d/options.txt")] $(cat "$d/ptxas.txt") $line"
  done
done
