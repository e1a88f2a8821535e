#!/usr/bin/env bash
# The random-pipeline performance sweep (issue 33), GPU-machine half: times
# every program that scripts/gpu/prepare-sweep.sh prepared, fuse against
# torch eager and torch.compile of the same program, each checked first
# (bench/random_sweep.py; bench/README.md, "Random-pipeline sweep"):
#   1. the runtime (libfuse_runtime.so), built from runtime/ as
#      run-python-tests.sh does (reused from .device/build-codegen);
#   2. warm: torch.compile of every program in SWEEP_WARM_JOBS processes a
#      GPU, filling the Inductor and Triton caches under the state folder
#      (nothing is timed meanwhile), for at most half the budget;
#   3. run: one process a GPU (every Nth program), each program's inputs
#      drawn again from its seed, fuse called through its library, results
#      checked, then timed (CUDA events, median of SWEEP_REPS);
#   4. report: one line a program, the distribution of torch.compile/fuse,
#      the 5 lowest, the targets, "N passed, N failed".
# One call stops starting programs after SWEEP_BUDGET_S seconds, and stops
# the phase in flight at its deadline (half the budget for the warm phase,
# all of it for the timing: a 2^26-element program's inputs and compile
# can take minutes, so waiting for the one in flight could outrun the
# command's limit and lose the report); the state folder keeps what was
# done, so the next call goes on (the machine keeps ignored folders
# between calls while it is held). With $OUT set, the report, the JSON
# lines and the phases' logs are copied there.
# Usage: scripts/gpu/run-sweep.sh [SWEEP_DIR] [BUILD_DIR]
#   SWEEP_DIR  default .device/sweep
#   BUILD_DIR  default .device/build-sweep (the runtime, if no
#              .device/build-codegen/runtime has it)
# Env: SWEEP_BUDGET_S (480: a call ends well within a 600 s command),
#   SWEEP_REPS (25), SWEEP_WARM_JOBS (4 a GPU; 0
#   skips the warm phase), SWEEP_STATE (.device/sweep-run), SWEEP_FRESH=1
#   (forget earlier results), SWEEP_ONLY (S,S,...: these seeds only, timed
#   again if done; the next call without it goes on with the others),
#   SWEEP_CAUSES (JSON {seed: cause} that the
#   report prints under the lowest programs).
# Exit status: 0 done and every program passed, 1 a failure, 2 not done
# yet (run again).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${1:-$root/.device/sweep}"
build="${2:-$root/.device/build-sweep}"
state="${SWEEP_STATE:-$root/.device/sweep-run}"
budget="${SWEEP_BUDGET_S:-480}"
start=$(date +%s)
fail() { echo "FAIL $1"; echo "0 passed, 1 failed"; exit 1; }
# Seconds from now to `start + $1` (at least 1).
until_s() { local t=$((start + $1 - $(date +%s))); echo $((t > 1 ? t : 1)); }

[ -f "$dir/summary.json" ] || fail "$dir/summary.json missing (run scripts/gpu/prepare-sweep.sh)"
python3 -c 'import torch, numpy, ml_dtypes' 2> /dev/null ||
  fail "python3 with torch, numpy and ml_dtypes is needed"
[ "${SWEEP_FRESH:-0}" = 1 ] && rm -rf "$state"
mkdir -p "$state" "$build"
state="$(cd "$state" && pwd)"

. "$root/scripts/gpu/runtime-lib.sh"
find_or_build_runtime "$root" "$build"
echo "runtime: $rtlib ($(( $(date +%s) - start )) s)"

ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
[ "$ngpu" -ge 1 ] || fail "no GPU (nvidia-smi -L lists none)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$state/gpu.txt" 2>&1
# torch.compile's caches, shared by the warm and the timed processes
export TORCHINDUCTOR_CACHE_DIR="$state/inductor" TRITON_CACHE_DIR="$state/triton"
sweep=(python3 "$root/bench/random_sweep.py")
jobs="${SWEEP_WARM_JOBS:-4}"
if [ "$jobs" -gt 0 ]; then
  # timeout signals its whole process group: the pool's workers too.
  timeout -k 10 "$(until_s $((budget / 2)))" \
    "${sweep[@]}" warm "$dir" --state "$state" --jobs $((jobs * ngpu)) \
    --gpus "$ngpu" --deadline $((start + budget / 2)) \
    ${SWEEP_ONLY:+--only "$SWEEP_ONLY"} > "$state/warm.log" 2>&1 ||
    echo "warm: stopped at its deadline" >> "$state/warm.log"
  echo "$(tail -1 "$state/warm.log") ($(( $(date +%s) - start )) s)"
  # Inductor picks among a kernel's configs by timing them on its first
  # call and caches the pick; those timings shared the GPU with the other
  # warm processes, so they go: the timed run picks again on a quiet GPU
  # (its first call comes before the timing).
  find "$state/inductor" -name '*.best_config' -delete 2> /dev/null
fi

# One timing process a GPU; a device fault ends a process (exit 75), and
# the next one goes on after the program that faulted.
shard() {
  local rc
  while :; do
    CUDA_VISIBLE_DEVICES=$1 timeout -k 10 "$(until_s "$budget")" \
      "${sweep[@]}" run "$dir" --runtime "$rtlib" \
      --state "$state" --shard "$1/$ngpu" --reps "${SWEEP_REPS:-25}" \
      --deadline $((start + budget)) ${SWEEP_ONLY:+--only "$SWEEP_ONLY"} \
      >> "$state/run-$1.log" 2>&1
    rc=$?
    # Stopped at the deadline: the program in flight is timed next call.
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && return 2
    [ $rc -eq 75 ] && [ "$(date +%s)" -lt $((start + budget)) ] && continue
    return $rc
  done
}
pids=()
for k in $(seq 0 $((ngpu - 1))); do
  shard "$k" &
  pids+=($!)
done
unfinished=0
for p in "${pids[@]}"; do
  wait "$p"
  r=$?
  [ $r -ne 0 ] && unfinished=1
done
"${sweep[@]}" report "$state" --dir "$dir" ${SWEEP_CAUSES:+--causes "$SWEEP_CAUSES"} \
  > "$state/report.txt" 2>&1
rc=$?
cat "$state/report.txt"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$state"/report.txt "$state"/results-*.jsonl "$state"/gpu.txt \
    "$state"/warm.log "$state"/run-*.log "$OUT"/ 2> /dev/null
fi
echo "sweep call: $(( $(date +%s) - start )) s"
if grep -q '^partial: ' "$state/report.txt"; then
  echo "not done: run scripts/gpu/run-sweep.sh again to go on"
  exit 2
fi
[ $unfinished -eq 0 ] || echo "note: a timing process exited non-zero (see $state/run-*.log)"
exit $rc
