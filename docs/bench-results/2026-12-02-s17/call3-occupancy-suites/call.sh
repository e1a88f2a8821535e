#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/logs
start=$(date +%s)
for c in 33 129 250 512 768 1024 2048 4096 8192; do r=$(( (1<<28) / c ))
  VARIANTS_DIR=.device/variants-lse VARIANTS_LABEL=${r}x$c timeout 30 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$r --cols=$c >> $OUT/logs/variants-lse.txt 2>&1
done
python3 scripts/gpu/summarize-variants.py $OUT/logs/variants-lse.txt > $OUT/variants-lse.txt
echo "variants at $(( $(date +%s) - start )) s"
OUT=$OUT/logs FUSE_GPU_SUITES="codegen fuse-run diff python" FUSE_GPU_DEADLINE=300 timeout 330 scripts/gpu/run-all.sh > $OUT/logs/run-all.log 2>&1
echo "suites rc=$? at $(( $(date +%s) - start )) s"; tail -8 $OUT/logs/run-all.log
cd $OUT && tar czf logs.tgz logs && rm -rf logs
cat variants-lse.txt
