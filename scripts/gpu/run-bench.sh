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
# Then the workloads beyond the nine (bench/extra_suite.py: argmax, argmin,
# (min, max), the affine reduce and scan, cumsum, half-precision sumsq,
# chain and row softmax, layer norm, rank-3 softmax, the copy of each
# element type), every implementation in one process: fuse from the
# prepared Python cache, torch eager, torch.compile, CUB through
# cuda.compute; its JSON lines (extra.jsonl) go into the same report, in a
# table of their own. It needs:
#   - PYCACHE_DIR (copied: the package may write to it), default
#     .device/pycache-extra, the suite's 17 pipelines alone (about 2 MB),
#     made where fuse is built by `FUSE_CACHE_DIR=.device/pycache-extra
#     FUSE_GPU_COMPILE_ONLY=1 FUSE_BIN_DIR=build/bin python3
#     bench/extra_suite.py --prepare`; else .device/pycache
#     (scripts/gpu/prepare-python.sh's, all the GPU checks' pipelines);
#   - the runtime library, FUSE_RUNTIME_LIB, default PREPARED_DIR/bin's (a
#     folder without one is not prepare-bench.sh's: the extra suite is
#     left out, one line says so);
#   - for the CUB peer, PEER_WHEELS (default .device/wheels,
#     scripts/gpu/prepare-peers.sh's), installed with --no-deps into a
#     temporary folder first on PYTHONPATH; without them that peer is
#     skipped, with the reason, not failed.
# A missing cache, or the suite exiting non-zero (a failed check, fuse
# raising, a crash), is a FAIL line, listed under the report, and exit 1.
# BENCH_EXTRA=0 leaves it out, BENCH_EXTRA=only runs it alone (no main
# suite: e.g. a second call where one call's time is limited; the report
# then holds its rows and those of any other JSON lines in RESULTS_DIR);
# BENCH_EXTRA_ARGS adds options (e.g. "--only=argmax_f32").
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
# BENCH_EXTRA=only: the workloads beyond the nine alone (no main suite).
main=1
[ "${BENCH_EXTRA:-1}" = only ] && main=0
for f in "$root"/examples/*.mlir; do
  [ $main = 1 ] || break
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
if [ $main = 1 ]; then
  : > "$res/fuse.jsonl"; : > "$res/fuse.err"; : > "$res/peers.jsonl"; : > "$res/peers.err"
else
  rounds=0
fi
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
if [ "${BENCH_SKIP_TORCH:-0}" != 1 ] && [ $main = 1 ]; then
  mark "torch"
  python3 "$dir/torch_bench.py" $args > "$res/torch.jsonl" 2> "$res/torch.err" || rc=1
fi
# Row widths: each shape's JSON lines get "WORKLOAD ROWSxCOLS" ($1).
rename() { sed -E "s/\"workload\": ?\"([a-z_]+)\"/\"workload\": \"\1 $1\"/"; }
widths=${BENCH_WIDTHS:-}
[ $main = 1 ] || widths=""
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
# The workloads beyond the nine: one process, after the rest, its failures
# named here and under the table (never a row that just goes missing).
extrafail=()
extra_fail() {
  extrafail+=("$1")
  echo "FAIL extra_suite: $1"
  rc=1
}
rtlib="${FUSE_RUNTIME_LIB:-$dir/bin/libfuse_runtime.so}"
if [ "${BENCH_EXTRA:-1}" = 0 ]; then
  echo "extra_suite: left out (BENCH_EXTRA=0)"
elif [ ! -f "$rtlib" ]; then
  # Not a folder prepare-bench.sh made (it always holds the runtime, which
  # bench_fuse itself loads): stand-ins, as in test/Tools/run-bench.test.
  echo "extra_suite: left out (no runtime library at $rtlib; set FUSE_RUNTIME_LIB)"
else
  cache="${PYCACHE_DIR:-$root/.device/pycache-extra}"
  [ -n "${PYCACHE_DIR:-}" ] || [ -d "$cache/v1" ] || cache="$root/.device/pycache"
  wheels="${PEER_WHEELS:-$root/.device/wheels}"
  : > "$res/extra.jsonl"; : > "$res/extra.log"; : > "$res/extra.err"
  if [ ! -d "$cache/v1" ]; then
    extra_fail "no prepared Python cache at $cache (bench/extra_suite.py --prepare, or scripts/gpu/prepare-python.sh)"
  else
    work="$(mktemp -d)"
    cp -r "$cache" "$work/cache"
    peers=""
    if ls "$wheels"/*.whl > /dev/null 2>&1; then
      if python3 -m pip install --quiet --no-deps --target "$work/peers" \
           "$wheels"/*.whl >> "$res/extra.log" 2>&1; then
        peers="$work/peers"
      else
        echo "run-bench: the peers' wheels did not install (see extra.log); cuda.compute is skipped"
      fi
    fi
    skip=""
    [ "${BENCH_SKIP_TORCH:-0}" = 1 ] && skip="--skip-torch"
    mark "extra"
    PYTHONPATH="${peers:+$peers:}$root/python${PYTHONPATH:+:$PYTHONPATH}" \
      FUSE_RUNTIME_LIB="$rtlib" FUSE_CACHE_DIR="$work/cache" FUSE_GPU_NO_COMPILE=1 \
      python3 "$root/bench/extra_suite.py" --out "$res/extra.jsonl" $args $skip \
      ${BENCH_EXTRA_ARGS:-} >> "$res/extra.log" 2>> "$res/extra.err"
    erc=$?
    rm -rf "$work"
    if [ $erc -ne 0 ]; then
      why="$(grep -m1 -E '^(FAIL|MISMATCH)' "$res/extra.log")"
      [ -n "$why" ] || why="$(tail -1 "$res/extra.err")"
      extra_fail "exit $erc${why:+: $why} (see extra.log, extra.err)"
    elif ! grep -q '"workload"' "$res/extra.jsonl"; then
      extra_fail "no results in extra.jsonl (see extra.log)"
    fi
  fi
fi
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
# The report of this checkout (the prepared folder's copy may predate the
# workloads beyond the nine).
report="$root/bench/report.py"
[ -f "$report" ] || report="$dir/report.py"
python3 "$report" "$res"/*.jsonl --md "$res/report.md" \
  --compile-times "$times" --png "$res/chart.png"
if [ ${#notbuilt[@]} -gt 0 ]; then
  { echo
    echo "FAILED: not compiled by prepare-bench.sh, so fuse has no row for:"
    for w in "${notbuilt[@]}"; do echo "- $w"; done
  } | tee -a "$res/report.md"
fi
if [ ${#extrafail[@]} -gt 0 ]; then
  { echo
    echo "FAILED: bench/extra_suite.py (the workloads beyond the nine):"
    for w in "${extrafail[@]}"; do echo "- $w"; done
  } | tee -a "$res/report.md"
fi
exit $rc
