#!/usr/bin/env bash
# On the GPU machine, in one call: the generated-code tests, the runtime's
# suite, fuse-run-aot on AOT shared libraries, random pipelines GPU vs CPU
# (diff), the Python package on CUDA arrays (prebuilt cache), the
# documentation's gpu code blocks (docs) and the benchmark, from the
# folders scripts/gpu/prepare-all.sh made.
# Logs and JSON lines go to $OUT (or .device/results); the last lines are a
# summary: each suite's "N passed, N failed" and the benchmark table.
# Env: FUSE_RT_STEPS (runtime suite steps, see run-runtime-tests.sh),
#      BENCH_ARGS (default --reps=30), BENCH_SKIP_TORCH=1,
#      FUSE_GPU_SUITES (default "codegen bench fuse-run diff python runtime docs":
#      which parts run, in that order), FUSE_GPU_DEADLINE (seconds: suites
#      not begun by then are skipped). Stopped by SIGTERM (e.g. `timeout`),
#      it stops the running suite and still prints the summary (exit 124).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$root/.device/results}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
suites="${FUSE_GPU_SUITES:-codegen bench fuse-run diff python runtime docs}"
rc=0
# The summary of what ran; also printed when a time limit stops the run
# (SIGTERM from `timeout`, or FUSE_GPU_DEADLINE below).
summary() {
  echo "== $(cat "$out/gpu.txt")"
  [ -f "$out/codegen.log" ] && echo "codegen tests: $(tail -1 "$out/codegen.log")"
  [ -f "$out/runtime.log" ] && echo "runtime tests: $(tail -1 "$out/runtime.log")"
  [ -f "$out/fuse-run.log" ] && echo "fuse-run-aot tests: $(tail -1 "$out/fuse-run.log")"
  [ -f "$out/diff.log" ] && echo "random pipelines GPU vs CPU: $(tail -1 "$out/diff.log")"
  [ -f "$out/python.log" ] && echo "python GPU tests: $(tail -1 "$out/python.log")"
  [ -f "$out/docs.log" ] && echo "documentation gpu blocks: $(tail -1 "$out/docs.log")"
  if [ -f "$out/bench.log" ]; then
    echo "benchmark:"
    cat "$out/bench/report.md" 2>/dev/null || tail -5 "$out/bench.log"
  fi
}
# Each suite runs in the background and is waited for, so that SIGTERM
# interrupts the wait at once: the running suite is stopped (its log ends
# where it stopped) and the summary still comes out.
child=""
on_term() {
  [ -n "$child" ] && kill -TERM -- "-$child" 2>/dev/null
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
  echo "run-all: stopped by a time limit during suite '$current'"
  summary
  exit 124
}
trap on_term TERM INT
start=$(date +%s)
# In the order listed: on a time-limited machine the first ones matter most.
# FUSE_GPU_DEADLINE (seconds from the start): suites not begun by then are
# skipped, reported on a line each.
set -m
for suite in $suites; do
  current="$suite"
  if [ -n "${FUSE_GPU_DEADLINE:-}" ] &&
     [ $(( $(date +%s) - start )) -ge "$FUSE_GPU_DEADLINE" ]; then
    echo "run-all: suite '$suite' skipped (FUSE_GPU_DEADLINE=${FUSE_GPU_DEADLINE} s reached)"
    rc=1
    continue
  fi
  case "$suite" in
    codegen) "$root/scripts/gpu/run-codegen-tests.sh" "$root/.device/artifacts" \
               "$root/.device/build-codegen" > "$out/codegen.log" 2>&1 & ;;
    runtime) OUT="$out/runtime" "$root/scripts/gpu/run-runtime-tests.sh" \
               "$root/.device/build-runtime" > "$out/runtime.log" 2>&1 & ;;
    fuse-run) "$root/scripts/gpu/run-fuse-run-tests.sh" "$root/.device/artifacts" \
               "$root/.device/build-codegen" > "$out/fuse-run.log" 2>&1 & ;;
    diff) "$root/scripts/gpu/run-differential.sh" "$root/.device/differential" \
               "$root/.device/build-codegen" > "$out/diff.log" 2>&1 & ;;
    python) "$root/scripts/gpu/run-python-tests.sh" "$root/.device/pycache" \
               "$root/.device/build-python" > "$out/python.log" 2>&1 & ;;
    bench) "$root/scripts/gpu/run-bench.sh" "$root/.device/bench" "$out/bench" \
               > "$out/bench.log" 2>&1 & ;;
    # The same runtime build as fuse-run (only checked after that suite).
    docs) "$root/scripts/gpu/run-doc-tests.sh" "$root/.device/docs" \
               "$root/.device/build-codegen" > "$out/docs.log" 2>&1 & ;;
    *) echo "run-all: unknown suite '$suite' (codegen bench fuse-run diff python runtime docs)"; rc=1; continue ;;
  esac
  child=$!
  wait "$child" || rc=1
  child=""
done
summary
exit $rc
