#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/raw
start=$(date +%s)
for s in "2080892 129" "349525 768" "65536 4096"; do set -- $s
  VARIANTS_LABEL=$1x$2 timeout 60 scripts/gpu/run-variants.sh 2 --reps=30 --rows=$1 --cols=$2 >> $OUT/raw/variants.txt 2>&1
done
python3 scripts/gpu/summarize-variants.py $OUT/raw/variants.txt > $OUT/variants-summary.txt
echo "variants at $(( $(date +%s) - start )) s"
BENCH_ROUNDS=2 BENCH_WIDTHS="2080892x129 349525x768 1073741x250" timeout 480 scripts/gpu/run-bench.sh .device/bench $OUT/raw/bench > $OUT/raw/bench.log 2>&1
echo "bench rc=$? at $(( $(date +%s) - start )) s"
cp $OUT/raw/bench/report.md $OUT/report.md 2>/dev/null
cd $OUT && tar czf raw.tgz raw && rm -rf raw
cat variants-summary.txt; cat report.md
