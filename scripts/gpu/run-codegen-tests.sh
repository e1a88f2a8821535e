#!/usr/bin/env bash
# On the GPU machine: builds the fuse runtime (runtime/, CUDA only, no
# MLIR) and tests/gpu/codegen_tests.cpp linked with the AOT objects of a
# folder made by scripts/gpu/prepare-artifacts.sh, then runs it.
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

objs=()
for o in "$art"/*.o; do
  [ -e "$o" ] && [ -e "${o%.o}.h" ] && objs+=("$o")
done
echo "pipelines: ${objs[*]##*/}"
${CXX:-g++} -O2 -std=c++17 -I "$art" -I "$root/runtime/include" \
  "$root/tests/gpu/codegen_tests.cpp" "${objs[@]}" \
  -L "$rtdir" -lfuse_runtime -Wl,-rpath,"$rtdir" -o "$build/codegen_tests" \
  > "$build/codegen-build.log" 2>&1 || { cat "$build/codegen-build.log"; fail "codegen_tests: build failed"; }
"$build/codegen_tests"
