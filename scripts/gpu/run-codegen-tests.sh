#!/usr/bin/env bash
# On the GPU machine: builds the fuse runtime (runtime/, CUDA only, no
# MLIR) and test/Integration/GPU/codegen_tests.cpp linked with the AOT
# objects of a folder made by scripts/gpu/prepare-artifacts.sh, then runs it.
# Usage: scripts/gpu/run-codegen-tests.sh [ARTIFACT_DIR] [BUILD_DIR]
#   ARTIFACT_DIR  default .device/artifacts
#   BUILD_DIR     default .device/build-codegen
# Env: FUSE_TEST_MAX_LOG2 (default 28) caps the largest size.
# The last line is "N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
art="$(cd "${1:-$root/.device/artifacts}" && pwd)"
build="${2:-$root/.device/build-codegen}"
mkdir -p "$build"
command -v nvcc >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"

fail() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }

cmake -S "$root/runtime" -B "$build/runtime" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DFUSE_RUNTIME_BUILD_TESTS=OFF \
  > "$build/runtime-cmake.log" 2>&1 || fail "runtime: cmake failed (see $build/runtime-cmake.log)"
cmake --build "$build/runtime" -j "$(nproc)" > "$build/runtime-build.log" 2>&1 \
  || fail "runtime: build failed (see $build/runtime-build.log)"
rtlib="$(find "$build/runtime" -name 'libfuse_runtime.so*' -type f | head -1)"
[ -n "$rtlib" ] || fail "runtime: libfuse_runtime.so not found"
rtdir="$(dirname "$rtlib")"

# Every example must have been compiled: prepare-artifacts.sh lists in
# failed.txt what did not (and codegen_tests.cpp includes every header, so
# it would not build either); those fail here, they are never skipped.
objs=(); missing=()
for f in "$root"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  if [ -e "$art/$name.o" ] && [ -e "$art/$name.h" ]; then
    objs+=("$art/$name.o")
  else
    missing+=("$name")
  fi
done
prep_failed() {
  local n=0
  if [ -s "$art/failed.txt" ]; then
    while read -r l; do echo "FAIL prepare-artifacts: $l did not compile"; n=$((n + 1)); done < "$art/failed.txt"
  fi
  for name in "${missing[@]}"; do
    grep -q "^$name " "$art/failed.txt" 2>/dev/null ||
      { echo "FAIL $name: no $name.o and $name.h in $art"; n=$((n + 1)); }
  done
  return $n
}
if [ ${#missing[@]} -gt 0 ]; then
  prep_failed; n=$?
  echo "0 passed, $n failed"
  exit 1
fi
echo "pipelines: ${objs[*]##*/}"
${CXX:-g++} -O2 -std=c++17 -I "$art" -I "$root/runtime/include" \
  "$root/test/Integration/GPU/codegen_tests.cpp" "${objs[@]}" \
  -L "$rtdir" -lfuse_runtime -Wl,-rpath,"$rtdir" -o "$build/codegen_tests" \
  > "$build/codegen-build.log" 2>&1 || { cat "$build/codegen-build.log"; fail "codegen_tests: build failed"; }
# One process per pipeline: a faulting kernel poisons its CUDA context, and
# must not fail the pipelines after it.
total_p=0; total_f=0
for o in "${objs[@]}"; do
  name="$(basename "$o" .o)"
  log="$build/$name.log"
  "$build/codegen_tests" "$name" > "$log" 2>&1
  rc=$?
  grep -v '^[0-9]* passed, [0-9]* failed$' "$log"
  last="$(tail -1 "$log")"
  if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    total_p=$((total_p + BASH_REMATCH[1])); total_f=$((total_f + BASH_REMATCH[2]))
    [ $rc -eq 0 ] || [ "${BASH_REMATCH[2]}" != 0 ] || { echo "FAIL $name: exit status $rc"; total_f=$((total_f + 1)); }
  else
    echo "FAIL $name: the test process ended early (exit status $rc)"
    total_f=$((total_f + 1))
  fi
done
# Overlapping output/input buffers (test/Runtime/overlap.test's driver):
# every rejection, and the accepted in-place calls run with their values.
if [ -f "$art/overlap/overlap.o" ]; then
  log="$build/overlap.log"
  if ${CC:-cc} -O2 -I "$art/overlap" -I "$root/runtime/include" \
      "$art/overlap/overlap_main.c" "$art/overlap/overlap.o" -L "$rtdir" \
      -lfuse_runtime -lm -Wl,-rpath,"$rtdir" -o "$build/overlap_test" \
      > "$log" 2>&1 && "$build/overlap_test" >> "$log" 2>&1 &&
      grep -q "^overlap checks (GPU)" "$log"; then
    echo "PASS overlapping buffers: $(tail -1 "$log")"
    total_p=$((total_p + 1))
  else
    echo "FAIL overlapping buffers (see $log)"
    grep '^FAIL' "$log" | head -5
    total_f=$((total_f + 1))
  fi
else
  echo "FAIL overlapping buffers: $art/overlap/overlap.o missing"
  total_f=$((total_f + 1))
fi
# compute-sanitizer memcheck and racecheck over every pipeline at small
# sizes (FUSE_TEST_SANITIZER=1: sizes up to 70001, 2 runs per check), one
# test each: the pipelines' own checks pass and the tool reports 0 errors.
san="$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)"
if [ -n "$san" ] && [ "${FUSE_TEST_SKIP_SANITIZER:-0}" != 1 ]; then
  for tool in memcheck racecheck; do
    log="$build/$tool.log"
    FUSE_TEST_SANITIZER=1 timeout "${FUSE_SANITIZER_TIMEOUT:-150}" "$san" \
      --tool "$tool" "$build/codegen_tests" > "$log" 2>&1
    inner="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)"
    summary="$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
    if [[ "$inner" =~ ^[0-9]+\ passed,\ 0\ failed$ ]] && [[ "$summary" =~ \ 0\ (errors|hazards) ]]; then
      echo "PASS compute-sanitizer $tool: $inner; $summary"
      total_p=$((total_p + 1))
    else
      echo "FAIL compute-sanitizer $tool: ${inner:-no test summary}; ${summary:-no tool summary} (see $log)"
      grep -E '^FAIL|Invalid|Race|hazard' "$log" | head -5
      total_f=$((total_f + 1))
    fi
  done
else
  echo "SKIP compute-sanitizer: not found"
fi
prep_failed; total_f=$((total_f + $?))
echo "$total_p passed, $total_f failed"
[ $total_f -eq 0 ]
