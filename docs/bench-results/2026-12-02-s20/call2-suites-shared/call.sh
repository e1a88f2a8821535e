#!/usr/bin/env bash
export OUT="${OUT:-/tmp/out}"
FUSE_GPU_SUITES="codegen fuse-run diff python" FUSE_GPU_DEADLINE=400 timeout 540 scripts/gpu/run-all.sh > "$OUT/run-all.txt" 2>&1
echo "rc=$?"
tail -12 "$OUT/run-all.txt"
grep -h "FAIL" "$OUT"/*.log | head -20
