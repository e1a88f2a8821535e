#!/usr/bin/env bash
# On the GPU machine: builds fuse-run-aot with the runtime's CMake (CUDA
# only, no LLVM/MLIR) and runs the shared libraries + manifests of a folder
# made by scripts/gpu/prepare-artifacts.sh (shared/NAME.{so,json}) on
# sumsq, scan, select and softmax_rows:
#   1. the CPU backend's cases (fuse-run/CASE: the input as .npy and
#      fuse-run's result): the GPU result against a NumPy float64 reference
#      of the input and against the CPU result,
#   2. random inputs made by fuse-run-aot itself (rand:SHAPE, --save-inputs)
#      at larger and edge sizes, against NumPy float64 references,
#   4. extra programs (test/Integration/GPU/extra/*.mlir, run before 3) on
#      the CPU backend's inputs, against its results (exact or close),
#   3. with a device present: argument errors still exit 1 with a message
#      before any launch, a bad library is reported, and --repeat prints
#      its timing line,
#   5. CUDA graphs (--graph): every example and extra program, each form
#      (NAME and the workspace form NAME_ws) captured into a graph and
#      replayed into zeroed results, gives the eager call's bits and
#      counts (at several sizes: small and large reductions, every row
#      path, scans, filters); NAME with a filter, whose count is read on
#      the host, and programs with no workspace form are refused with a
#      message; replay timings are printed.
#   6. compute-sanitizer memcheck and racecheck on graph capture and
#      replay (fuse-run-aot --graph) of five programs.
# Tolerances as in test/Integration/GPU/codegen_tests.cpp: sums 1e-4
# relative, scan 1e-4 relative to max(1, |ref|), softmax 1e-5 relative;
# select exact.
# Usage: scripts/gpu/run-fuse-run-tests.sh [ARTIFACT_DIR] [BUILD_DIR]
#   ARTIFACT_DIR  default .device/artifacts
#   BUILD_DIR     default .device/build-fuse-run; the runtime is built in
#                 BUILD_DIR/runtime with run-codegen-tests.sh's options, so
#                 run-all.sh passes .device/build-codegen and only links
# Needs python3 with NumPy. The last line is "N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
art="$(cd "${1:-$root/.device/artifacts}" && pwd)"
build="${2:-$root/.device/build-fuse-run}"
mkdir -p "$build"
build="$(cd "$build" && pwd)"
work="$build/work"
rm -rf "$work"
mkdir -p "$work"
command -v nvcc >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"

passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ $failed -eq 0 ]; exit $?; }

# The runtime and fuse-run-aot, from runtime/ alone.
if ! cmake -S "$root/runtime" -B "$build/runtime" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DFUSE_RUNTIME_BUILD_TESTS=OFF \
    -DFUSE_RUNTIME_BUILD_RUN_AOT=ON > "$build/cmake.log" 2>&1; then
  fail "build: cmake failed (see $build/cmake.log)"; finish
fi
if ! cmake --build "$build/runtime" -j "$(nproc)" --target fuse-run-aot \
    > "$build/build.log" 2>&1; then
  tail -20 "$build/build.log"
  fail "build: fuse-run-aot failed to build (see $build/build.log)"; finish
fi
aot="$build/runtime/bin/fuse-run-aot"
[ -x "$aot" ] || { fail "build: $aot not found"; finish; }
pass "build fuse-run-aot"
python3 -c 'import numpy' 2>/dev/null || { fail "python3 with numpy is needed"; finish; }
# What prepare-artifacts.sh could not compile (shared libraries, fuse-run
# cases, extra programs) fails here rather than dropping out unseen.
if [ -s "$art/failed.txt" ]; then
  while read -r l; do fail "prepare-artifacts: $l did not compile"; done < "$art/failed.txt"
fi

# check.py KIND DIR [CPU_RESULT]: DIR holds arg0.npy and result0.npy.
cat > "$work/check.py" <<'PY'
import sys
import numpy as np

kind, d = sys.argv[1], sys.argv[2]
cpu = sys.argv[3] if len(sys.argv) > 3 else None
x = np.load(d + "/arg0.npy")
y = np.load(d + "/result0.npy")
x64 = x.astype(np.float64)

def fail(msg):
    print(msg)
    sys.exit(1)

def close(got, ref, rel, floor):
    got = got.astype(np.float64)
    if got.shape != ref.shape:
        fail("shape %s, expected %s" % (got.shape, ref.shape))
    err = np.abs(got - ref) / np.maximum(np.abs(ref), floor)
    bad = np.flatnonzero(~(err <= rel))
    if bad.size:
        i = bad[0]
        fail("%d of %d elements off (first at %d: %r, expected %r)"
             % (bad.size, ref.size, i, got.flat[i], ref.flat[i]))

if y.dtype != x.dtype:
    fail("result dtype %s, expected %s" % (y.dtype, x.dtype))
if kind == "sumsq":
    ref = np.array((x64 * x64).sum())
    close(y, ref, 1e-4, 1e-30)
    tol = (1e-4, 1e-30)
elif kind == "scan":
    ref = np.cumsum(x64 * x64)
    close(y, ref, 1e-4, 1.0)
    tol = (1e-4, 1.0)
elif kind == "select":
    ref = x[x > 0]
    if y.shape != ref.shape:
        fail("kept %d elements, expected %d" % (y.size, ref.size))
    if not np.array_equal(y, ref):
        fail("kept elements differ from x[x > 0] at %d"
             % np.flatnonzero(y != ref)[0])
    tol = None
elif kind == "softmax":
    m = x64.max(axis=1, keepdims=True)
    e = np.exp(x64 - m)
    ref = e / e.sum(axis=1, keepdims=True)
    close(y, ref, 1e-5, 1e-30)
    tol = (1e-5, 1e-30)
else:
    fail("unknown kind " + kind)
if cpu:
    c = np.load(cpu)
    if tol is None:
        if not np.array_equal(y, c):
            fail("differs from the CPU backend's result")
    else:
        close(y, c.astype(np.float64), 2 * tol[0], tol[1])
print("ok")
PY

# run_case LABEL KIND PIPELINE CPU_RESULT SPEC...: runs fuse-run-aot, saving
# its inputs and results, and checks them.
run_case() {
  local label="$1" kind="$2" pipe="$3" cpu="$4"; shift 4
  local lib="$art/shared/$pipe.json"
  if [ ! -f "$lib" ]; then fail "$label: $lib missing (prepare-artifacts.sh)"; return; fi
  local out="$work/$label" args=()
  for s in "$@"; do args+=(--arg "$s"); done
  "$aot" "$lib" "${args[@]}" --seed 3 --out "$out" --save-inputs \
    > "$out.log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "$label: fuse-run-aot exited with $rc: $(tail -3 "$out.log")"; return
  fi
  local msg
  if msg="$(python3 "$work/check.py" "$kind" "$out" $cpu 2>&1)"; then
    pass "$label"
  else
    fail "$label: $msg"
  fi
}

# 1. The CPU backend's cases.
for dir in "$art"/fuse-run/*/; do
  [ -f "$dir/pipeline" ] || continue
  case_="$(basename "$dir")"
  pipe="$(cat "$dir/pipeline")"
  kind="$pipe"
  [ "$pipe" = softmax_rows ] && kind=softmax
  run_case "cpu-$case_" "$kind" "$pipe" "$dir/result0.npy" "$dir/arg0.npy"
done

# 2. Random inputs made by fuse-run-aot (the same generator as fuse-run).
for n in 0 1 31 1000003 16777216; do
  run_case "sumsq-$n" sumsq sumsq "" "rand:$n"
  run_case "scan-$n" scan scan "" "rand:$n"
  run_case "select-$n" select select "" "rand:$n"
  # the tilings the defaults do not use (prepare-artifacts.sh: NAME_SUFFIX)
  run_case "scan-256-staged-$n" scan scan_alt "" "rand:$n"
  run_case "select-regs-$n" select select_alt "" "rand:$n"
  run_case "select-big-$n" select select_big "" "rand:$n"
  run_case "select-direct-$n" select select_direct "" "rand:$n"
done
for shape in 1x1 3x5 1000x1024 4096x1000 64x65536; do
  run_case "softmax-$shape" softmax softmax_rows "" "rand:$shape"
done

# 4. Extra programs (test/Integration/GPU/extra/*.mlir) on the CPU
# backend's inputs, against its results: "exact" bit for bit (NaN == NaN),
# "close" floats within 1e-5 |cpu| + 1e-5 max(1, max |cpu|) (reassociated
# sums), integers exactly; shapes (so filter counts) and dtypes always
# exactly.
cat > "$work/compare.py" <<'PY'
import glob, os, sys
import numpy as np
rule, got_dir, cpu_dir = sys.argv[1:4]
cpu = sorted(glob.glob(cpu_dir + "/result*.npy"))
if not cpu:
    print("no CPU results"); sys.exit(1)
for c in cpu:
    name = os.path.basename(c)
    g = os.path.join(got_dir, name)
    if not os.path.exists(g):
        print("%s missing" % name); sys.exit(1)
    a, b = np.load(g), np.load(c)
    if a.dtype != b.dtype or a.shape != b.shape:
        print("%s: %s %s, CPU %s %s" % (name, a.dtype, a.shape, b.dtype, b.shape))
        sys.exit(1)
    if rule == "exact" or a.dtype.kind in "iub":
        same = np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        if same and a.dtype.kind == "f":
            z = b == 0
            same = np.array_equal(np.signbit(a[z]), np.signbit(b[z]))
        if not same:
            k = np.flatnonzero(~((a == b) | (np.isnan(a) & np.isnan(b))
                                 if a.dtype.kind == "f" else a != b))
            print("%s: %d elements differ" % (name, max(k.size, 1))); sys.exit(1)
        continue
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    scale = max(1.0, float(np.nanmax(np.abs(b64))) if b64.size else 1.0)
    with np.errstate(all="ignore"):
        ok = (np.abs(a64 - b64) <= 1e-5 * np.abs(b64) + 1e-5 * scale) | \
             (np.isnan(a64) & np.isnan(b64)) | (a64 == b64)
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        print("%s: %d of %d off (first at %d: %r, CPU %r)"
              % (name, (~ok).sum(), ok.size, k, a.flat[k], b.flat[k]))
        sys.exit(1)
print("ok")
PY
# Every program of the tree runs: one without its extra/NAME.json fails
# (listed above when failed.txt names it), it is never skipped.
for f in "$root"/test/Integration/GPU/extra/*.mlir; do
  name="$(basename "$f" .mlir)"
  json="$art/extra/$name.json"
  if [ ! -f "$json" ]; then
    grep -q "^extra $name " "$art/failed.txt" 2>/dev/null ||
      fail "extra $name: no extra/$name.json in $art (run scripts/gpu/prepare-artifacts.sh)"
    continue
  fi
  cpu="$art/extra/$name.cpu"
  args=()
  for a in $(ls "$cpu"/arg*.npy | sort -V); do args+=(--arg "$a"); done
  out="$work/extra-$name"
  if ! "$aot" "$json" "${args[@]}" --out "$out" > "$out.log" 2>&1; then
    fail "extra $name: fuse-run-aot failed: $(tail -2 "$out.log")"; continue
  fi
  if msg="$(python3 "$work/compare.py" "$(cat "$art/extra/$name.rule")" "$out" "$cpu" 2>&1)"; then
    pass "extra $name ($(cat "$art/extra/$name.rule"))"
  else
    fail "extra $name: $msg"
  fi
done

# 3. Errors and timing with a device present.
expect_error() { # LABEL PATTERN COMMAND...
  local label="$1" pattern="$2"; shift 2
  local text rc
  text="$("$@" 2>&1)"; rc=$?
  if [ $rc -eq 1 ] && grep -q -- "$pattern" <<< "$text"; then
    pass "$label"
  else
    fail "$label: exit status $rc, output: $text"
  fi
}
expect_error "error: argument count" "'select' takes 1 argument(s), got 2 --arg" \
  "$aot" "$art/shared/select.json" --arg rand:3 --arg rand:3
expect_error "error: rank" "expected tensor<?x?xf32>, got float32 array of shape (12,)" \
  "$aot" "$art/shared/softmax_rows.json" --arg rand:12
python3 -c "import numpy as np; np.save('$work/f64.npy', np.zeros(5))"
expect_error "error: dtype" "expected tensor<?xf32>, got float64 array of shape (5,)" \
  "$aot" "$art/shared/sumsq.json" --arg "$work/f64.npy"
expect_error "error: entry" "no entry named 'nope'" \
  "$aot" "$art/shared/scan.json" --entry nope --arg rand:3
expect_error "error: wrong library" "has no symbol 'fx_select__fuse_packed'" \
  "$aot" "$art/shared/select.json" --lib "$art/shared/scan.so" --arg rand:3
# Sizes that break an equality of the pipeline (dot zips its arguments):
# the C ABI rejects them before any launch (10^8 against 1 once ended in
# cudaErrorIllegalAddress).
expect_error "error: size mismatch" "FUSE_ERROR_INVALID_ARGUMENT: fx_dot: size mismatch: in1 dimension 0 is 10 but in0 dimension 0 is 1000" \
  "$aot" "$art/shared/dot.json" --arg rand:1000 --arg rand:10
expect_error "error: size mismatch, large" "FUSE_ERROR_INVALID_ARGUMENT: fx_dot: size mismatch: in1 dimension 0 is 1 but in0 dimension 0 is 100000000" \
  "$aot" "$art/shared/dot.json" --arg rand:100000000 --arg rand:1
# Rank-3 rows computed over collapsed rows: the leading dimensions of two
# arguments are still checked one by one (fuse.size_checks), not only
# their products (2 * 3 = 3 * 2).
expect_error "error: size mismatch of collapsed rows" "FUSE_ERROR_INVALID_ARGUMENT: fx_rows3_two_args: size mismatch: in1 dimension 0 is 3 but in0 dimension 0 is 2" \
  "$aot" "$art/extra/rows3_two_args.json" --arg rand:2x3x64 --arg rand:3x2x64
# A prefix zipped with an argument: their sizes are compared once the entry
# reads the count (a count past the end is clamped to the source first).
expect_error "error: size mismatch with a prefix" "FUSE_ERROR_INVALID_ARGUMENT: fx_prefix_clamped: size mismatch: in2 dimension 0 is 999 but the prefix takes 1000 elements" \
  "$aot" "$art/extra/prefix_clamped.json" --arg rand:1000 --arg scalar:5000 --arg rand:999
# Two filters' kept values combined: the host reads both counts and
# compares them before the step that combines them.
expect_error "error: size mismatch of two filters' counts" "FUSE_ERROR_INVALID_ARGUMENT: fx_kept_pair: size mismatch: the filter at .* keeps \(5 elements but the filter at .* keeps 7\|7 elements but the filter at .* keeps 5\)" \
  "$aot" "$art/extra/kept_pair.json" --arg rand:5 --arg rand:7
expect_error "error: size mismatch of two filters' counts, one empty" "FUSE_ERROR_INVALID_ARGUMENT: fx_kept_pair: size mismatch: the filter at .* keeps \(1000003 elements but the filter at .* keeps 0\|0 elements but the filter at .* keeps 1000003\)" \
  "$aot" "$art/extra/kept_pair.json" --arg rand:1000003 --arg rand:0
expect_error "error: hidden device" "FUSE_ERROR_NO_DEVICE" \
  env CUDA_VISIBLE_DEVICES= "$aot" "$art/shared/sumsq.json" --arg rand:3
if text="$("$aot" "$art/shared/sumsq.json" --arg rand:1000003 --repeat 20 --print 2>&1)" &&
    grep -q '^time: median [0-9.]* ms, min [0-9.]* ms over 20 runs$' <<< "$text" &&
    grep -q '^result #0: float32 array of shape ()$' <<< "$text"; then
  pass "--repeat and --print"
  grep '^time:' <<< "$text"
else
  fail "--repeat and --print: $text"
fi

# 5. CUDA graphs: capture, replay, same bits. fuse-run-aot --graph captures
# each form of the entry: NAME (temporaries from stream-ordered
# allocations) and NAME_ws (a workspace, counts on the device).
# graph_case LABEL FORMS PIPELINE.json ARG...: FORMS is how many forms must
# replay bit for bit (2: both; 1: only NAME_ws, NAME reads a filter's count
# on the host and must be refused).
graph_case() {
  local label="$1" forms="$2" json="$3"; shift 3
  local args=() text ok refused
  for a in "$@"; do args+=(--arg "$a"); done
  text="$("$aot" "$json" "${args[@]}" --seed 5 --graph 2>&1)"
  local rc=$?
  ok="$(grep -c '^graph: [A-Za-z0-9_]*: [0-9]* nodes; the replay matches the eager call bit for bit$' <<< "$text")"
  refused="$(grep -c '^graph: [A-Za-z0-9_]* cannot be captured: FUSE_ERROR_NOT_PERMITTED: fuse_memcpy_dtoh: not permitted while the stream is being captured' <<< "$text")"
  if [ $rc -eq 0 ] && [ "$ok" = "$forms" ] && [ $((ok + refused)) = 2 ]; then
    pass "graph $label ($ok form(s))"
  else
    fail "graph $label: exit status $rc, $ok form(s) replayed, $refused refused, want $forms: $(tail -3 <<< "$text")"
  fi
}
for n in 0 1 4096 1000003 16777216; do
  for p in sumsq sumsq_small scan dot variance chain copy; do
    [ -f "$art/shared/$p.json" ] || { fail "graph $p: shared/$p.json missing"; continue; }
    if [ "$p" = dot ]; then graph_case "$p-$n" 2 "$art/shared/$p.json" "rand:$n" "rand:$n"
    else graph_case "$p-$n" 2 "$art/shared/$p.json" "rand:$n"; fi
  done
  graph_case "scan-256-staged-$n" 2 "$art/shared/scan_alt.json" "rand:$n"
  # With no element there is no count to read: both forms capture.
  for p in select select_alt select_big select_direct; do
    graph_case "$p-$n" "$([ "$n" = 0 ] && echo 2 || echo 1)" "$art/shared/$p.json" "rand:$n"
  done
done
for shape in 1x1 3x5 1000x1024 4096x1000 64x65536 8x1000000; do
  graph_case "softmax-$shape" 2 "$art/shared/softmax_rows.json" "rand:$shape"
  graph_case "logsumexp-$shape" 2 "$art/shared/logsumexp_rows.json" "rand:$shape"
done
# Extra programs: with a filter or a prefix (a count on the device),
# NAME_ws where the manifest names it, and
# NAME too unless a result has a filter's count (read on the host; steps
# after a filter read it on the device); without NAME_ws (a size the host
# needs is a filter's count), refused.
for f in "$root"/test/Integration/GPU/extra/*.mlir; do
  name="$(basename "$f" .mlir)"
  json="$art/extra/$name.json"
  [ -f "$json" ] || continue # reported in section 4
  args=()
  for a in $(ls "$art/extra/$name.cpu"/arg*.npy | sort -V); do args+=("$a"); done
  if ! grep -qE 'fuse\.(filter|prefix)' "$f"; then
    graph_case "extra $name" 2 "$json" "${args[@]}"
  elif grep -q '"workspace_packed": "' "$json"; then
    graph_case "extra $name" "$(grep -q '"filter":true' "$json" && echo 1 || echo 2)" "$json" "${args[@]}"
  else
    expect_error "graph extra $name (no form can be captured) is refused" \
      "cannot be captured into a CUDA graph in any form" \
      "$aot" "$json" "${args[@]/#/--arg=}" --graph
  fi
done
# Timings: 2000 calls back to back, eager and replayed, per form.
for spec in "sumsq_small rand:4096" "sumsq rand:4096" "sumsq rand:16777216" "softmax_rows rand:4x1024" "select rand:4096"; do
  set -- $spec
  if text="$("$aot" "$art/shared/$1.json" --arg "$2" --graph --repeat 2000 2>&1)" &&
      lines="$(grep '^back to back over 2000 calls ([A-Za-z0-9_]*): eager [0-9.]* us a call, graph replay [0-9.]* us a call$' <<< "$text")"; then
    pass "graph timing $1 $2"
    while read -r l; do echo "graph timing $1 $2: $l"; done <<< "$lines"
  else
    fail "graph timing $1 $2: $(tail -2 <<< "$text")"
  fi
done

# 6. compute-sanitizer on capture and replay: fuse-run-aot --graph (each
# form captured, replayed, compared bit for bit) under memcheck and
# racecheck, for a reduction, a scan, a filter, steps after a filter and a
# row group; the tool must report no error and no hazard.
san="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)"
if [ -z "$san" ]; then
  fail "compute-sanitizer on graph replays: compute-sanitizer not found"
else
  for spec in "shared/sumsq.json rand:1000003" "shared/scan.json rand:1000003" \
      "shared/select.json rand:1000003" "extra/filter_reduce.json rand:1000003" \
      "shared/softmax_rows.json rand:64x1024"; do
    set -- $spec
    [ -f "$art/$1" ] || { fail "sanitizer $1: missing"; continue; }
    for tool in memcheck racecheck; do
      text="$(timeout 300 "$san" --tool "$tool" --error-exitcode 3 "$aot" "$art/$1" --arg "$2" --seed 5 --graph 2>&1)"
      rc=$?
      summary="$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' <<< "$text" | tail -1)"
      replays="$(grep -c 'the replay matches the eager call bit for bit$' <<< "$text")"
      if [ $rc -eq 0 ] && [ "$replays" -ge 1 ] && [[ "$summary" =~ \ 0\ (errors|hazards) ]]; then
        pass "compute-sanitizer $tool on graph replays: $1 $2 ($replays form(s); $summary)"
      else
        fail "compute-sanitizer $tool on graph replays: $1 $2: exit $rc, $replays form(s), ${summary:-no summary}: $(grep -E 'Invalid|Race|hazard|error' <<< "$text" | head -3)"
      fi
    done
  done
fi

finish
