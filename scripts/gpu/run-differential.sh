#!/usr/bin/env bash
# GPU against CPU on random pipelines (issue #7), GPU-machine half: runs
# every program that scripts/gpu/prepare-differential.sh compiled
# (DIFF_DIR/programs.txt: seedN/prog.{so,json}, inputs and the CPU
# backend's results in seedN/data.npz) with fuse-run-aot on the same
# inputs and compares the GPU results with the CPU's
# (scripts/gpu/differential.py compare):
#   * dtype, shape and a filter's kept count: exact; integers exactly;
#   * floats the generator marks exact (+ - * / sqrt min max select casts):
#     |gpu - cpu| <= 4 eps |cpu| + 4 eps scale;
#   * other floats (reassociated sums/products/scans, exp/log/tanh):
#     |gpu - cpu| <= rel |cpu| + abs max(scale, 1), rel 1e-5 / 1e-12 and
#     abs 2e-4 / 1e-9 (f32 / f64); scale bounds the magnitudes summed.
# Then every mismatched-size case (DIR/mismatched.txt) must be refused
# with a size message (differential.py run-mismatched).
# Programs the GPU code generator rejected (DIFF_DIR/rejected.txt) are
# counted on an info line, not as failures. One PASS/FAIL line per program
# (with the worst error as a fraction of its allowance); without a usable
# GPU the first launch's FUSE_ERROR_NO_DEVICE is reported once and the
# run stops.
# Usage: scripts/gpu/run-differential.sh [--self-test] [DIFF_DIR] [BUILD_DIR]
#   DIFF_DIR   default .device/differential
#   BUILD_DIR  default .device/build-codegen: fuse-run-aot is built in
#              BUILD_DIR/runtime exactly as scripts/gpu/run-fuse-run-tests.sh
#              builds it (a no-op when that suite ran first); $FUSE_RUN_AOT
#              names a prebuilt runner instead
#   --self-test  no GPU: checks the comparison on the CPU results (CPU vs
#              CPU passes, results within tolerance pass, perturbed ones
#              fail)
#   FUSE_DIFF_TIMEOUT  seconds per program (default 120)
#   FUSE_DIFF_JOBS     programs run at once (default: the cores, at most 8;
#                      each has its own CUDA context on the one GPU)
# Needs python3 with NumPy. The last line is "N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
helper="$root/scripts/gpu/differential.py"
self_test=0
if [ "${1:-}" = "--self-test" ]; then self_test=1; shift; fi
diff_dir="${1:-$root/.device/differential}"
build="${2:-$root/.device/build-codegen}"

passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ $failed -eq 0 ]; exit $?; }

python3 -c 'import numpy' 2>/dev/null || { fail "python3 with numpy is needed"; finish; }
if [ ! -f "$diff_dir/programs.txt" ]; then
  fail "$diff_dir/programs.txt missing (run scripts/gpu/prepare-differential.sh)"
  finish
fi
diff_dir="$(cd "$diff_dir" && pwd)"
[ -f "$diff_dir/summary.txt" ] && echo "prepared: $(cat "$diff_dir/summary.txt")"
if [ $self_test -eq 1 ]; then
  exec python3 "$helper" self-test "$diff_dir"
fi

# fuse-run-aot, built from runtime/ alone as run-fuse-run-tests.sh does.
if [ -n "${FUSE_RUN_AOT:-}" ]; then
  aot="$FUSE_RUN_AOT"
else
  command -v nvcc >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
  mkdir -p "$build"
  build="$(cd "$build" && pwd)"
  if ! cmake -S "$root/runtime" -B "$build/runtime" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DFUSE_RUNTIME_BUILD_TESTS=OFF \
      -DFUSE_RUNTIME_BUILD_RUN_AOT=ON > "$build/cmake-differential.log" 2>&1; then
    fail "build: cmake failed (see $build/cmake-differential.log)"; finish
  fi
  if ! cmake --build "$build/runtime" -j "$(nproc)" --target fuse-run-aot \
      > "$build/build-differential.log" 2>&1; then
    tail -20 "$build/build-differential.log"
    fail "build: fuse-run-aot failed to build (see $build/build-differential.log)"
    finish
  fi
  aot="$build/runtime/bin/fuse-run-aot"
fi
[ -x "$aot" ] || { fail "build: $aot not found"; finish; }
echo "runner: $aot"
work="${DIFF_WORK:-$build/differential}"
rm -rf "$work"
mkdir -p "$work"
nrej=$(grep -c . "$diff_dir/rejected.txt" 2>/dev/null || true)
echo "info: ${nrej:-0} generated programs rejected by the GPU code generator (not run; see $diff_dir/rejected.txt)"

# One program: unpack, run on the GPU, compare; its verdict goes to
# $w/verdict ("PASS ...", "FAIL ..." or "NODEVICE ...").
run_one() {
  local seed="$1" label="$2" d w flags rc msg argv
  d="$diff_dir/$seed"
  w="$work/$seed"
  mkdir -p "$w"
  if ! flags="$(python3 "$helper" unpack "$d" "$w/in" 2>&1)"; then
    echo "FAIL $seed ($label): cannot unpack inputs: $flags" > "$w/verdict"; return
  fi
  read -ra argv <<< "$flags"
  timeout "${FUSE_DIFF_TIMEOUT:-120}" "$aot" "$d/prog.json" "${argv[@]}" \
    --out "$w/gpu" > "$w/run.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    if grep -q "FUSE_ERROR_NO_DEVICE" "$w/run.log"; then
      echo "NODEVICE $(grep -m1 FUSE_ERROR_NO_DEVICE "$w/run.log")" > "$w/verdict"
    elif [ $rc -eq 124 ]; then
      echo "FAIL $seed ($label): fuse-run-aot timed out after ${FUSE_DIFF_TIMEOUT:-120} s (a hang?)" > "$w/verdict"
    else
      echo "FAIL $seed ($label): fuse-run-aot exited with $rc: $(tail -3 "$w/run.log" | tr '\n' ' ')" > "$w/verdict"
    fi
    return
  fi
  if msg="$(python3 "$helper" compare "$d" "$w/gpu" 2>&1)"; then
    echo "PASS $seed ($label): $msg" > "$w/verdict"
  else
    echo "FAIL $seed ($label): $msg (program $d/prog.mlir, GPU results $w/gpu)" > "$w/verdict"
  fi
}

# The first program alone (a machine without a usable GPU stops here),
# then the rest FUSE_DIFF_JOBS at a time (default: the cores, at most 8;
# each process has its own CUDA context on the one GPU).
jobs="${FUSE_DIFF_JOBS:-$(nproc)}"
[ "$jobs" -gt 8 ] && jobs=8
first=1
running=0
while read -r seed label; do
  [ -n "$seed" ] || continue
  if [ $first -eq 1 ]; then
    first=0
    run_one "$seed" "$label"
    if grep -q "^NODEVICE" "$work/$seed/verdict"; then
      fail "device: no usable GPU, nothing run: $(sed 's/^NODEVICE //' "$work/$seed/verdict")"
      finish
    fi
    continue
  fi
  run_one "$seed" "$label" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done < "$diff_dir/programs.txt"
wait
while read -r seed label; do
  [ -n "$seed" ] || continue
  v="$(cat "$work/$seed/verdict" 2>/dev/null || echo "FAIL $seed ($label): no verdict")"
  case "$v" in
    PASS\ *) pass "${v#PASS }" ;;
    NODEVICE\ *) fail "$seed ($label): no usable GPU: ${v#NODEVICE }" ;;
    *) fail "${v#FAIL }" ;;
  esac
done < "$diff_dir/programs.txt"

# The mismatched-size cases (DIR/mismatched.txt): each program run with
# one dynamic size that disagrees with another must be refused with a
# message naming the sizes, before any kernel runs (no result, no crash,
# no CUDA error).
if [ -s "$diff_dir/mismatched.txt" ]; then
  mm_log="$work/mismatched.log"
  python3 "$helper" run-mismatched "$diff_dir" --runner "$aot" \
    --work "$work/mismatched" > "$mm_log" 2>&1
  mm_rc=$?
  mm_failed=$failed
  while read -r l; do
    case "$l" in
      PASS\ *) pass "mismatched ${l#PASS }" ;;
      FAIL\ *) fail "mismatched ${l#FAIL }" ;;
    esac
  done < "$mm_log"
  if [ $mm_rc -ne 0 ] && [ $failed -eq $mm_failed ]; then
    fail "mismatched: run-mismatched exited with $mm_rc: $(tail -3 "$mm_log" | tr '\n' ' ')"
  fi
fi
finish
