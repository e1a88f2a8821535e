#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/logs
start=$(date +%s)
export VARIANTS_DIR=.device/variants-rows
for s in "8134407 33" "3486104 77" "2080892 129" "1073741 250" "262400 1023" "131136 2047" "65552 4095" "65536 4096" "32772 8191" "32768 8192"; do set -- $s
  VARIANTS_LABEL=$1x$2 timeout 60 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$1 --cols=$2 >> $OUT/logs/variants.txt 2>&1
done
python3 scripts/gpu/summarize-variants.py $OUT/logs/variants.txt > $OUT/variants.txt
echo "variants at $(( $(date +%s) - start )) s"
OUT=$OUT/logs FUSE_GPU_SUITES="codegen diff" FUSE_GPU_DEADLINE=250 timeout 280 scripts/gpu/run-all.sh > $OUT/logs/run-all.log 2>&1
echo "suites rc=$? at $(( $(date +%s) - start )) s"; tail -4 $OUT/logs/run-all.log
cd $OUT && tar czf logs.tgz logs && rm -rf logs
cat variants.txt
