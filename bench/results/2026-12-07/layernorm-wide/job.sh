#!/usr/bin/env bash
# Layer norm over wide rows: the rows checks (defaults and one-walk
# variance), the variants' times at 16384x16384 (staged) and 1024x262144
# (long), the benchmark's peers, and ncu of the default and one-walk
# kernels. Caches made here with the compiler of the commit that wrote
# this (old/: the compiler before it).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
S="$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$S"
t0=$(date +%s)
. scripts/gpu/runtime-lib.sh
fail() { echo "FAIL $1" >> "$S"; exit 1; }
mkdir -p /tmp/build-rt; find_or_build_runtime "$root" /tmp/build-rt > /tmp/rt.log 2>&1
echo "runtime at $(( $(date +%s) - t0 )) s" >> "$S"
for vo in "rows-d|" "rows-owv|one-walk-variance=1 long-row-stage-items=8"; do
  v=${vo%%|*}; o=${vo#*|}
  FUSE_GPU_TILE_OPTIONS="$o" FUSE_GPU_CHECKS=rows bash scripts/gpu/run-python-tests.sh .device/call2/$v /tmp/build-rt > $OUT/$v.txt 2>&1
  echo "== $v" >> "$S"; grep -E "^FAIL|passed, " $OUT/$v.txt | tail -8 >> "$S"
done
echo "checks at $(( $(date +%s) - t0 )) s" >> "$S"
run() { FUSE_RUNTIME_LIB="$rtlib" FUSE_CACHE_DIR=/tmp/c-$1 FUSE_REQUIRE_GPU=1 FUSE_GPU_NO_COMPILE=1 PYTHONPATH=python "${@:2}"; }
for vo in "old/d|" "d|" "owv|one-walk-variance=1" "owv8|one-walk-variance=1 long-row-stage-items=8" "owvns|one-walk-variance=1 staged-rows=0" "owv8ns|one-walk-variance=1 long-row-stage-items=8 staged-rows=0" "lrs8|long-row-stage-items=8" "lri4|long-row-items=4" "lri16|long-row-items=16" "nostage|staged-rows=0" "old/nostage|staged-rows=0" "t1024|block-threads=1024" "d|"; do
  v=${vo%%|*}; o=${vo#*|}; tag=${v//\//-}
  rm -rf /tmp/c-$tag; cp -r .device/call2/c-${v#old/} /tmp/c-$tag 2>/dev/null
  [ "${v#old/}" != "$v" ] && { rm -rf /tmp/c-$tag; cp -r .device/call2/old/c-${v#old/} /tmp/c-$tag; }
  FUSE_GPU_TILE_OPTIONS="$o" timeout 120 bash -c "$(declare -f run); rtlib=$rtlib; run $tag python3 .device/call2/lnbench.py $tag" >> "$S" 2>&1
done
echo "variants at $(( $(date +%s) - t0 )) s" >> "$S"
timeout 200 bash -c "$(declare -f run); rtlib=$rtlib; run d python3 bench/rows_bench.py 'layernorm_rows 16384x' 'layernorm_rows 1024x'" > $OUT/bench.txt 2>&1
tail -12 $OUT/bench.txt >> "$S"
echo "bench at $(( $(date +%s) - t0 )) s" >> "$S"
for vo in "d|" "owv8|one-walk-variance=1 long-row-stage-items=8"; do v=${vo%%|*}; o=${vo#*|}
 for shape in 16384x16384 1024x262144; do
  FUSE_GPU_TILE_OPTIONS="$o" timeout 120 bash -c "$(declare -f run); rtlib=$rtlib; run $v ncu --target-processes all -k regex:rows_ -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis \
    python3 .device/call2/lnbench.py ncu $shape" > $OUT/ncu-$v-$shape.txt 2>&1
  echo "== ncu $v $shape" >> "$S"
  grep -E "rows_|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Block Limit|Theoretical Occ|Dynamic Shared|Stall|Local" $OUT/ncu-$v-$shape.txt | head -24 >> "$S"
 done
done
echo "ncu at $(( $(date +%s) - t0 )) s" >> "$S"
cd $OUT && tar czf logs.tgz ncu-*.txt rows-*.txt && rm -f ncu-*.txt rows-*.txt
cat "$S"
