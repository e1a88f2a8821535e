#!/usr/bin/env bash
# carry: .device/bench (scripts/gpu/prepare-bench.sh)
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread
timeout 45 ncu --clock-control none --metrics $M -k regex:softmax_rows -c 1 .device/bench/bin/bench_fuse --only=softmax_rows --rows=2080892 --cols=129 --reps=3 > $OUT/ncu-fuse-129.txt 2>&1
export TORCHINDUCTOR_CACHE_DIR=/tmp/ind TRITON_CACHE_DIR=/tmp/tri
timeout 140 ncu --clock-control none --metrics $M -k regex:triton -c 4 python3 bench/torch_bench.py --only softmax_rows --rows 2080892 --cols 129 --reps 3 > $OUT/ncu-torch-129.txt 2>&1
