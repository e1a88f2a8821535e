#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}
for s in "2080892 129" "349525 768" "65536 4096"; do set -- $s
  VARIANTS_LABEL=$1x$2 timeout 40 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$1 --cols=$2 >> $OUT/variants.txt 2>&1
done
python3 scripts/gpu/summarize-variants.py $OUT/variants.txt
