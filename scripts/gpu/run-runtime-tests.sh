#!/usr/bin/env bash
# The fuse runtime's GPU test suite. Needs only a CUDA toolkit (nvcc), cmake
# and ninja (no LLVM/MLIR): it configures and builds runtime/ on its own,
# with the test programs of test/Runtime (into BUILD_DIR/tests), then runs
#   1. the no-GPU test binary in --expect-device mode (argument checks),
#   2. the full suite: every op and dtype at sizes 0, 1, 31, 1000003, 2^28
#      (f32), determinism, modules, wrong-arch images, allocator, capture,
#      8 host threads, out of memory,
#   3. reductions over 2^31 + 17 f32 elements,
#   4. a faulting kernel (own process), with and without
#      FUSE_LAUNCH_BLOCKING=1,
#   5. compute-sanitizer memcheck on the small sizes with
#      FUSE_ALLOCATOR=direct (fails if compute-sanitizer is missing).
# Logs go to $OUT (when set) or to the build directory. The last line is
# "N passed, N failed" (counted over the test programs' own PASS/FAIL lines
# plus one per step that crashed or could not run).
#
# Usage: scripts/gpu/run-runtime-tests.sh [BUILD_DIR]
#   FUSE_CUDA_ARCH   SM to build for (default 90)
#   FUSE_WRONG_ARCH  SM of an image the GPU cannot run (default 100)
#   FUSE_RT_STEPS    steps to run (default: all of
#                    "nogpu full huge fault direct memcheck")
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build-gpu-runtime}"
ARCH="${FUSE_CUDA_ARCH:-90}"
WRONG="${FUSE_WRONG_ARCH:-100}"
LOGS="${OUT:-$BUILD/logs}"
STEPS=" ${FUSE_RT_STEPS:-nogpu full huge fault direct memcheck} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
mkdir -p "$LOGS"
export PATH="$PATH:/usr/local/cuda/bin"

passed=0
failed=0
summary="$LOGS/summary.txt"
: > "$summary"

note() { echo "$*" | tee -a "$summary"; }

# Runs a test program, adds its "N passed, N failed" line to the totals;
# a crash, a timeout or a missing summary line counts as one failure.
run_step() {
  local name="$1"; shift
  local log="$LOGS/$name.log"
  echo "== $name: $*" | tee -a "$summary"
  local start=$SECONDS
  "$@" > "$log" 2>&1
  local rc=$?
  local line
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)"
  if [[ -n "$line" ]]; then
    local p f
    p="${line%% passed*}"
    f="${line#*, }"; f="${f%% failed}"
    passed=$((passed + p))
    failed=$((failed + f))
    if [[ $rc -ne 0 && $f -eq 0 ]]; then
      failed=$((failed + 1))
      note "   exit status $rc with no failed test"
    fi
  else
    failed=$((failed + 1))
    note "   no summary line (exit status $rc): see $log"
    tail -20 "$log" | sed 's/^/   | /' | tee -a "$summary"
  fi
  grep '^FAIL' "$log" | head -40 | sed 's/^/   /' | tee -a "$summary"
  note "   $name: ${line:-crashed} ($((SECONDS - start)) s)"
}

step_ok() { # a build step: one pass or one failure
  local name="$1"; shift
  local log="$LOGS/$name.log"
  echo "== $name" | tee -a "$summary"
  local start=$SECONDS
  if "$@" > "$log" 2>&1; then
    passed=$((passed + 1))
    note "   ok ($((SECONDS - start)) s)"
    return 0
  fi
  failed=$((failed + 1))
  tail -30 "$log" | sed 's/^/   | /' | tee -a "$summary"
  note "   FAILED: see $log"
  return 1
}

nvidia-smi > "$LOGS/nvidia-smi.txt" 2>&1 || true
nvcc --version > "$LOGS/nvcc.txt" 2>&1 || true

if step_ok configure cmake -G Ninja -S "$ROOT/runtime" -B "$BUILD" \
      -DCMAKE_BUILD_TYPE=Release -DFUSE_RUNTIME_CUDA_ARCHITECTURES="$ARCH" \
      -DFUSE_RUNTIME_TEST_ARCH="$ARCH" -DFUSE_RUNTIME_TEST_WRONG_ARCH="$WRONG" &&
   step_ok build cmake --build "$BUILD" -j "$(nproc)"; then
  T="$BUILD/tests"
  export FUSE_TEST_WRONG_ARCH="$WRONG"
  want nogpu && run_step nogpu-expect-device \
    "$T/fuse_runtime_nogpu_test" --expect-device
  want full && run_step full timeout 3000 "$T/fuse_runtime_gpu_test" full "$T"
  want huge && run_step huge timeout 1200 "$T/fuse_runtime_gpu_test" huge "$T"
  if want fault; then
    run_step fault env FUSE_LAUNCH_BLOCKING=0 \
      "$T/fuse_runtime_gpu_test" fault "$T"
    run_step fault-blocking env FUSE_LAUNCH_BLOCKING=1 \
      "$T/fuse_runtime_gpu_test" fault "$T"
  fi
  want fault && run_step bad-allocator-env env FUSE_ALLOCATOR=bogus \
    "$T/fuse_runtime_gpu_test" badenv "$T"
  want direct && run_step direct-allocator env FUSE_ALLOCATOR=direct \
    "$T/fuse_runtime_gpu_test" small "$T"
  want memcheck || STEPS_SKIP_MEMCHECK=1
  SAN="$(command -v compute-sanitizer || true)"
  if [[ -z "$SAN" && -x /usr/local/cuda/bin/compute-sanitizer ]]; then
    SAN=/usr/local/cuda/bin/compute-sanitizer
  fi
  if [[ -n "${STEPS_SKIP_MEMCHECK:-}" ]]; then
    :
  elif [[ -z "$SAN" ]]; then
    failed=$((failed + 1))
    note "== memcheck: FAILED: compute-sanitizer not found"
  else
    # memcheck reports errors on stdout and exits non-zero with
    # --error-exitcode; the suite's own summary line is still counted.
    run_step memcheck timeout 1200 env FUSE_ALLOCATOR=direct \
      FUSE_TEST_UNDER_SANITIZER=1 \
      "$SAN" --tool memcheck \
      --error-exitcode 3 --leak-check full \
      "$T/fuse_runtime_gpu_test" small "$T"
    if grep -q "ERROR SUMMARY: [1-9]" "$LOGS/memcheck.log"; then
      failed=$((failed + 1))
      note "   memcheck reported errors: see $LOGS/memcheck.log"
    fi
  fi
fi
echo "$passed passed, $failed failed" | tee -a "$summary"
[[ $failed -eq 0 ]]
