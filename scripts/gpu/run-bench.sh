#!/usr/bin/env bash
# On the GPU machine: runs every implementation of every workload in one
# run (fuse, CUB/hand-written CUDA, torch eager and torch.compile), keeps
# the JSON lines, and prints the report table last. Every examples/NAME.mlir
# is a fuse workload: one that prepare-bench.sh could not compile (its
# failed.txt, or no aot/NAME.o) is a failure, printed as a FAIL line and
# under the report's table, and the script exits 1.
# Usage: scripts/gpu/run-bench.sh [PREPARED_DIR] [RESULTS_DIR]
#   PREPARED_DIR  default .device/bench (made by prepare-bench.sh)
#   RESULTS_DIR   default $OUT or PREPARED_DIR/results
# Env: BENCH_ARGS (e.g. "--reps=30"), BENCH_SKIP_TORCH=1, BENCH_ROUNDS
#   (default 3: fuse and the CUDA peers run in that many interleaved rounds,
#   fuse then peers each round, so that clock and temperature drift over the
#   run hits both alike; report.py takes each implementation's median round;
#   torch runs once, after the rounds: its compiles take most of its time).
# Beside the results: clocks.csv (power, SM clock and the clock-event
# reasons, sampled every 100 ms while the benchmark runs) and timeline.txt
# (when each process started), to tell a slower kernel from a lower clock.
# BENCH_ARGS="--reps=3000" BENCH_ROUNDS=1 measures the sustained regime
# (seconds of back-to-back runs instead of 30).
# BENCH_WIDTHS="ROWSxCOLS ..." (default none) also runs logsumexp_rows and
# softmax_rows at those shapes, fuse and torch (the hand-written kernels
# take 4096 columns only), one round, after the rest; their rows are named
# "WORKLOAD ROWSxCOLS" (e.g. BENCH_WIDTHS="262144x1024 16384x16384
# 5341x50257": the register path's narrow rows, long aligned and long
# unaligned rows; about a minute a shape with torch).
# COMPILER_DIR (default: the folder "compiler" beside PREPARED_DIR, made by
# scripts/gpu/prepare-compiler.sh): when it holds fuse-compile.xz,
# fuse-compile's times are measured here too, after the rest
# (run-compile-times.sh), and the report's compile table uses them: the
# machine torch.compile's first calls ran on. Without it, or when
# fuse-compile does not run here, the table uses the times measured where
# the benchmark was prepared (compile-times.txt).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:-$root/.device/bench}"
res="${2:-${OUT:-$dir/results}}"
mkdir -p "$res"
args=${BENCH_ARGS:---reps=30}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$res/gpu.txt" 2>&1
rc=0
# Workloads without a fuse object: prepare-bench.sh failed to compile them
# (failed.txt says where its log is). bench_fuse leaves them out, so they
# are named here and under the table, never just a missing row.
notbuilt=()
for f in "$root"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  [ -e "$dir/aot/$name.o" ] && continue
  why="$(grep -m1 "^$name " "$dir/failed.txt" 2>/dev/null)"
  notbuilt+=("${why:-$name (no $name.o in $dir/aot)}")
  echo "FAIL fuse ${notbuilt[-1]}: not compiled by prepare-bench.sh"
  rc=1
done
# The clock sampler: newer drivers name the field clocks_event_reasons,
# older ones clocks_throttle_reasons; without either, power and clock.
sampler=""
for q in timestamp,power.draw,clocks.sm,clocks_event_reasons.active \
         timestamp,power.draw,clocks.sm,clocks_throttle_reasons.active \
         timestamp,power.draw,clocks.sm; do
  if nvidia-smi --query-gpu=$q --format=csv,noheader > /dev/null 2>&1; then
    nvidia-smi --query-gpu=$q --format=csv -lms 100 > "$res/clocks.csv" 2>&1 &
    sampler=$!
    break
  fi
done
mark() { echo "$(date +%s.%N) $*" >> "$res/timeline.txt"; }
: > "$res/timeline.txt"
rounds=${BENCH_ROUNDS:-3}
: > "$res/fuse.jsonl"; : > "$res/fuse.err"; : > "$res/peers.jsonl"; : > "$res/peers.err"
for round in $(seq "$rounds"); do
  # fuse: one process per workload, so that a faulting kernel (which
  # poisons its CUDA context) costs only its own row.
  for w in copy sumsq dot chain scan select softmax_rows variance logsumexp_rows sumsq_small; do
    mark "round $round fuse $w"
    "$dir/bin/bench_fuse" $args --only=$w >> "$res/fuse.jsonl" 2>> "$res/fuse.err" || rc=1
  done
  mark "round $round peers"
  "$dir/bin/peers" $args >> "$res/peers.jsonl" 2>> "$res/peers.err" || rc=1
done
if [ "${BENCH_SKIP_TORCH:-0}" != 1 ]; then
  mark "torch"
  python3 "$dir/torch_bench.py" $args > "$res/torch.jsonl" 2> "$res/torch.err" || rc=1
fi
# Row widths: each shape's JSON lines get "WORKLOAD ROWSxCOLS" ($1).
rename() { sed -E "s/\"workload\": ?\"([a-z_]+)\"/\"workload\": \"\1 $1\"/"; }
widths=${BENCH_WIDTHS:-}
[ -n "$widths" ] && : > "$res/widths.jsonl" && : > "$res/widths.err"
for shape in $widths; do
  if ! [[ $shape =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]]; then
    echo "run-bench: BENCH_WIDTHS entry '$shape' is not ROWSxCOLS" >> "$res/widths.err"
    rc=1
    continue
  fi
  rows=${shape%x*}; cols=${shape#*x}
  mark "widths $shape fuse"
  "$dir/bin/bench_fuse" $args --rows="$rows" --cols="$cols" --only=logsumexp_rows \
    --only=softmax_rows 2>> "$res/widths.err" | rename "$shape" >> "$res/widths.jsonl" || rc=1
  if [ "${BENCH_SKIP_TORCH:-0}" != 1 ]; then
    mark "widths $shape torch"
    python3 "$dir/torch_bench.py" $args --rows="$rows" --cols="$cols" --only=logsumexp_rows \
      --only=softmax_rows 2>> "$res/widths.err" | rename "$shape" >> "$res/widths.jsonl" || rc=1
  fi
done
[ -n "$sampler" ] && kill "$sampler" 2>/dev/null
sampler=""
cp "$dir/compile-times.txt" "$res/" 2>/dev/null
times="$res/compile-times.txt"
compiler="${COMPILER_DIR:-$(dirname "$dir")/compiler}"
if [ -f "$compiler/fuse-compile.xz" ]; then
  mark "compile times"
  if bash "$root/scripts/gpu/run-compile-times.sh" "$compiler" "$res" \
       > "$res/compile-times.log" 2>&1; then
    times="$res/compile-times-gpu-host.txt"
  else
    echo "run-bench: $(grep -m1 run-compile-times "$res/compile-times.log" || tail -1 "$res/compile-times.log"); compile times from where the benchmark was prepared"
  fi
fi
mark "end"
cat "$res"/*.err | grep -v -i warn | tail -20
python3 "$dir/report.py" "$res"/*.jsonl --md "$res/report.md" \
  --compile-times "$times" --png "$res/chart.png"
if [ ${#notbuilt[@]} -gt 0 ]; then
  { echo
    echo "FAILED: not compiled by prepare-bench.sh, so fuse has no row for:"
    for w in "${notbuilt[@]}"; do echo "- $w"; done
  } | tee -a "$res/report.md"
fi
exit $rc
