#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/raw
start=$(date +%s)
for c in 33 77 129 250 512 768 1024 2048 4096 8192 16384; do r=$(( (1<<28) / c ))
  VARIANTS_DIR=.device/variants-lse VARIANTS_LABEL=${r}x$c timeout 40 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$r --cols=$c >> $OUT/raw/variants-lse.txt 2>&1
done
echo "lse at $(( $(date +%s) - start )) s"
for c in 33 77 129 250; do r=$(( (1<<28) / c ))
  VARIANTS_DIR=.device/variants-sm VARIANTS_LABEL=${r}x$c timeout 60 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$r --cols=$c >> $OUT/raw/variants-sm.txt 2>&1
done
echo "sm at $(( $(date +%s) - start )) s"
python3 scripts/gpu/summarize-variants.py $OUT/raw/variants-lse.txt > $OUT/variants-lse.txt
python3 scripts/gpu/summarize-variants.py $OUT/raw/variants-sm.txt > $OUT/variants-sm.txt
cd $OUT && tar czf raw.tgz raw && rm -rf raw
cat variants-lse.txt variants-sm.txt
