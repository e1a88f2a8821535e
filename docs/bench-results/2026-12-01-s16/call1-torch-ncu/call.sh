#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/out}; mkdir -p $OUT/raw
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/raw/gpu.txt 2>&1
# 1. opaque shift: softmax_rows old vs new at narrow widths
for s in "8134407 33" "3486104 77" "2080892 129" "1073741 250"; do set -- $s
  VARIANTS_LABEL=$1x$2 timeout 60 scripts/gpu/run-variants.sh 3 --reps=30 --rows=$1 --cols=$2 >> $OUT/raw/variants.txt 2>&1
done
python3 scripts/gpu/summarize-variants.py $OUT/raw/variants.txt > $OUT/variants-summary.txt
echo "variants done at $(( $(date +%s) - start )) s"
# 2. torch.compile's kernels at the losing widths: sources and PTX
export TORCHINDUCTOR_CACHE_DIR=$OUT/raw/inductor TRITON_CACHE_DIR=$OUT/raw/triton
for s in "softmax_rows 2080892 129" "softmax_rows 3486104 77" "softmax_rows 1073741 250" "logsumexp_rows 2080892 129" "logsumexp_rows 349525 768"; do set -- $s
  timeout 90 python3 bench/torch_bench.py --only $1 --rows $2 --cols $3 --reps 30 >> $OUT/raw/torch.txt 2>&1
done
echo "torch done at $(( $(date +%s) - start )) s"
# 3. ncu: fuse's narrow scalar kernel vs the Triton kernel at 129 columns
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg
for v in 0 1; do
  timeout 60 ncu --clock-control none --metrics $M -k regex:rows_narrow -c 1 .device/variants/softmax_rows-v$v/bench_fuse --only=softmax_rows --rows=2080892 --cols=129 --reps=3 > $OUT/raw/ncu-fuse-v$v.txt 2>&1
done
unset TORCHINDUCTOR_CACHE_DIR TRITON_CACHE_DIR
export TORCHINDUCTOR_CACHE_DIR=/tmp/ind2 TRITON_CACHE_DIR=/tmp/tri2
for s in "softmax_rows 2080892 129" "logsumexp_rows 349525 768"; do set -- $s
  timeout 150 ncu --clock-control none --metrics $M -k regex:triton -c 12 python3 bench/torch_bench.py --only $1 --rows $2 --cols $3 --reps 3 > $OUT/raw/ncu-torch-$1-$3.txt 2>&1
done
timeout 60 ncu --clock-control none --metrics $M -k regex:rows -c 1 .device/bench/bin/bench_fuse --only=logsumexp_rows --rows=349525 --cols=768 --reps=3 > $OUT/raw/ncu-fuse-lse768.txt 2>&1
echo "ncu done at $(( $(date +%s) - start )) s"
cd $OUT && tar czf raw.tgz raw && rm -rf raw
cat variants-summary.txt
