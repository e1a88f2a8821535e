#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT
start=$(date +%s)
for s in "2080892 129" "349525 768" "8134407 33" "3486104 77" "1073741 250" "65536 4096" "262144 1024"; do set -- $s
  VARIANTS_LABEL=$1x$2 timeout 100 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$1 --cols=$2 >> $OUT/variants.txt 2>&1
  echo "$1x$2 at $(( $(date +%s) - start )) s"
done
python3 scripts/gpu/summarize-variants.py $OUT/variants.txt > $OUT/variants-summary.txt
cat $OUT/variants-summary.txt
