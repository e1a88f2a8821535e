#!/usr/bin/env bash
export OUT="${OUT:-/tmp/out}"
FUSE_GPU_SUITES="codegen fuse-run diff python runtime" FUSE_GPU_DEADLINE=420 timeout 530 scripts/gpu/run-all.sh > "$OUT/run-all.txt" 2>&1
echo "rc=$?"
tail -30 "$OUT/run-all.txt"
