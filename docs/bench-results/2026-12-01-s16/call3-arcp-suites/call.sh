#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/logs
start=$(date +%s)
for s in "2080892 129" "3486104 77" "8134407 33" "1073741 250" "349525 768" "65536 4096" "262144 1024"; do set -- $s
  VARIANTS_LABEL=$1x$2 timeout 40 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$1 --cols=$2 >> $OUT/logs/variants.txt 2>&1
done
python3 scripts/gpu/summarize-variants.py $OUT/logs/variants.txt > $OUT/variants-summary.txt
echo "variants at $(( $(date +%s) - start )) s"
OUT=$OUT/logs FUSE_GPU_SUITES="codegen fuse-run diff python" FUSE_GPU_DEADLINE=300 timeout 320 scripts/gpu/run-all.sh > $OUT/logs/run-all.log 2>&1
echo "suites rc=$? at $(( $(date +%s) - start )) s"; tail -8 $OUT/logs/run-all.log
cd $OUT && tar czf logs.tgz logs && rm -rf logs
cat variants-summary.txt
