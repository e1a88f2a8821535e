#!/usr/bin/env bash
# carry: .device/artifacts .device/differential .device/pycache (scripts/gpu/prepare-all.sh)
FUSE_GPU_SUITES="codegen fuse-run diff python runtime" FUSE_GPU_DEADLINE=400 timeout 500 scripts/gpu/run-all.sh > "$OUT/run-all.txt" 2>&1
echo "rc=$?"; tail -8 "$OUT/run-all.txt"; scripts/gpu/pack-out.sh "$OUT"
