#!/usr/bin/env bash
# On the GPU machine: the documentation's code blocks marked gpu
# (scripts/doctest.py), from the folder that `scripts/doctest.py
# --prepare-gpu` made on the CPU machine (prepare-all.sh: .device/docs; each
# document's work folder as its other blocks left it: the shared libraries,
# headers, objects and programs they compiled).
# Builds the runtime and fuse-run-aot with the runtime's CMake (CUDA only,
# no LLVM/MLIR) as run-fuse-run-tests.sh does, in the same folder, so that
# after that suite it only checks; then runs each gpu block in its
# document's work folder with that fuse-run-aot first on PATH and that
# runtime library first on LD_LIBRARY_PATH. A gpu block that runs fuse-opt,
# fuse-run or fuse-compile needs LLVM/MLIR, which this machine lacks: it is
# listed as skipped (`scripts/doctest.py --gpu` runs every block on a
# machine with both the build and a GPU).
# Usage: scripts/gpu/run-doc-tests.sh [DOCS_DIR] [BUILD_DIR]
#   DOCS_DIR   default .device/docs
#   BUILD_DIR  default .device/build-fuse-run (run-all.sh passes
#              .device/build-codegen, as for the fuse-run suite)
# The last line counts the blocks: "doctest: N passed, N failed, ...".
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
docs="${1:-$root/.device/docs}"
build="${2:-$root/.device/build-fuse-run}"
command -v nvcc >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
fail() { echo "FAIL $1"; echo "doctest: 0 passed, 1 failed"; exit 1; }

[ -f "$docs/gpu-blocks.json" ] ||
  fail "no $docs/gpu-blocks.json: run scripts/gpu/prepare-all.sh (or scripts/doctest.py --prepare-gpu $docs) on the CPU machine"
mkdir -p "$build"
build="$(cd "$build" && pwd)"
if ! cmake -S "$root/runtime" -B "$build/runtime" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DFUSE_RUNTIME_BUILD_TESTS=OFF \
    -DFUSE_RUNTIME_BUILD_RUN_AOT=ON > "$build/cmake-docs.log" 2>&1; then
  fail "build: cmake failed (see $build/cmake-docs.log)"
fi
if ! cmake --build "$build/runtime" -j "$(nproc)" --target fuse-run-aot \
    > "$build/build-docs.log" 2>&1; then
  tail -20 "$build/build-docs.log"
  fail "build: fuse-run-aot failed to build (see $build/build-docs.log)"
fi
exec python3 "$root/scripts/doctest.py" --run-prepared "$docs" \
  --bin "$build/runtime/bin" --lib "$build/runtime/lib"
