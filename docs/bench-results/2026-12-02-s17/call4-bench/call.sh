#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/raw
start=$(date +%s)
BENCH_ROUNDS=2 BENCH_WIDTHS="2080892x129 349525x768" timeout 420 scripts/gpu/run-bench.sh .device/bench $OUT/raw/bench > $OUT/raw/bench.log 2>&1
echo "bench rc=$? at $(( $(date +%s) - start )) s"
cp $OUT/raw/bench/report.md $OUT/report.md 2>/dev/null
cd $OUT && tar czf raw.tgz raw && rm -rf raw
cat report.md
