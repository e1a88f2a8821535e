#!/usr/bin/env bash
# On the machine with fuse built (no GPU needed): fills a fuse Python cache
# (the package's content-addressed cache, FUSE_CACHE_DIR) with the GPU
# libraries of every pipeline test/Python/gpu_check.py uses, for the GPU
# machine, which has the runtime but no MLIR (scripts/gpu/run-python-tests.sh).
# It runs gpu_check.py itself in compile-only mode (FUSE_GPU_COMPILE_ONLY=1:
# fuse.gpu.StandIn host arrays, fuse-compile --emit=shared, nothing
# launched), so the cache holds exactly the keys the GPU run computes; then
# checks, with fuse-compile hidden, that every look-up hits.
# Usage: scripts/gpu/prepare-python.sh [CACHE_DIR] [FUSE_COMPILE]
#   CACHE_DIR     default .device/pycache (git-ignored)
#   FUSE_COMPILE  default build/bin/fuse-compile, or $FUSE_COMPILE
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/pycache}"
fc="${2:-${FUSE_COMPILE:-$root/build/bin/fuse-compile}}"
if [ ! -x "$fc" ]; then
  echo "prepare-python: fuse-compile not found at $fc" >&2
  exit 1
fi
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
log="$out.log"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
if ! FUSE_CACHE_DIR="$out" FUSE_GPU_COMPILE_ONLY=1 FUSE_BIN_DIR="$(dirname "$fc")" \
    python3 "$root/test/Python/gpu_check.py" > "$log" 2>&1; then
  grep '^FAIL' "$log" | head -20
  echo "prepare-python: compiling failed: $(tail -1 "$log") (see $log)" >&2
  exit 1
fi
echo "compile only: $(tail -1 "$log")"
rm -rf "$out/v1/tmp"
# The GPU machine's view: a copy of the cache, no fuse-compile, no GPU.
check="$(mktemp -d)"
trap 'rm -rf "$check"' EXIT
cp -r "$out" "$check/cache"
if ! FUSE_CACHE_DIR="$check/cache" FUSE_GPU_NO_COMPILE=1 \
    python3 "$root/test/Python/gpu_check.py" > "$log.lookup" 2>&1; then
  grep '^FAIL' "$log.lookup" | head -20
  echo "prepare-python: cache look-ups failed: $(tail -1 "$log.lookup")" >&2
  exit 1
fi
echo "look-ups without fuse-compile: $(tail -1 "$log.lookup")"
echo "$(find "$out/v1" -name manifest.json | wc -l) GPU pipelines, $(du -sh "$out" | cut -f1) -> $out"
