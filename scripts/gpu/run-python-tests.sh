#!/usr/bin/env bash
# On the GPU machine (python3 with NumPy, PyTorch and/or CuPy; no MLIR, no
# pytest): runs test/Python/gpu_check.py, the Python package on CUDA
# arrays, with the runtime and the prebuilt cache that
# scripts/gpu/prepare-python.sh made (.device/pycache).
# The runtime: libfuse_runtime.so from BUILD_DIR/../build-codegen/runtime
# (run-codegen-tests.sh builds it) if there, else built here from runtime/.
# Usage: scripts/gpu/run-python-tests.sh [CACHE_DIR] [BUILD_DIR]
#   CACHE_DIR  default .device/pycache (copied to a temporary folder: the
#              package may write to its cache)
#   BUILD_DIR  default .device/build-python
# The last line is "N passed, N failed".
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${1:-$root/.device/pycache}"
build="${2:-$root/.device/build-python}"
mkdir -p "$build"
command -v nvcc >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
fail() { echo "FAIL $1"; echo "0 passed, 1 failed"; exit 1; }

[ -d "$cache/v1" ] || fail "no prebuilt cache at $cache (run scripts/gpu/prepare-python.sh)"
. "$root/scripts/gpu/runtime-lib.sh"
find_or_build_runtime "$root" "$build"
echo "runtime: $rtlib"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$cache" "$work/cache"
FUSE_RUNTIME_LIB="$rtlib" FUSE_CACHE_DIR="$work/cache" FUSE_REQUIRE_GPU=1 \
  FUSE_GPU_NO_COMPILE=1 PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" \
  python3 "$root/test/Python/gpu_check.py"
