#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/logs
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/logs/gpu.txt 2>&1
# ncu: logsumexp_rows 65536 x 4096, fuse against the hand kernel
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis"
timeout 90 ncu --clock-control none $S -k regex:logsumexp -c 1 .device/bench/bin/bench_fuse --only=logsumexp_rows --reps=3 > $OUT/logs/ncu-fuse-lse.txt 2>&1
timeout 90 ncu --clock-control none $S -k regex:logsumexpRows -c 1 .device/bench/bin/peers --only=logsumexp_rows --reps=3 > $OUT/logs/ncu-hand-lse.txt 2>&1
cuobjdump -sass .device/bench/aot/logsumexp_rows.cubin > $OUT/logs/lse-fuse.sass 2>&1
cuobjdump -sass .device/bench/bin/peers > $OUT/logs/peers.sass 2>&1
echo "ncu at $(( $(date +%s) - start )) s"
OUT=$OUT/logs FUSE_GPU_SUITES="codegen fuse-run diff python" FUSE_GPU_DEADLINE=300 timeout 330 scripts/gpu/run-all.sh > $OUT/logs/run-all.log 2>&1
echo "suites rc=$? at $(( $(date +%s) - start )) s"; tail -8 $OUT/logs/run-all.log
grep -h "Duration\|Registers Per\|Achieved Occupancy\|Issue Slots Busy\|Executed Instructions  \|Block Limit Reg\|Waves Per SM\|DRAM Throughput\|Grid Size\|Block Size" $OUT/logs/ncu-*-lse.txt
cd $OUT && tar czf logs.tgz logs && rm -rf logs
