#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/logs
start=$(date +%s)
OUT=$OUT/logs FUSE_GPU_SUITES="codegen diff" FUSE_GPU_DEADLINE=170 timeout 200 scripts/gpu/run-all.sh > $OUT/logs/run-all.log 2>&1
echo "suites rc=$? at $(( $(date +%s) - start )) s"; tail -4 $OUT/logs/run-all.log
grep -h "^FAIL" $OUT/logs/*.log | head
cd $OUT && tar czf logs.tgz logs && rm -rf logs
