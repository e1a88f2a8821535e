#!/usr/bin/env bash
# On a machine with PyPI access: downloads the wheels of the Python peers
# the algorithm benchmarks compare against (cuda.compute from cuda-cccl, and
# the NumPy it runs with) for the GPU machine, which reaches no registry.
# The GPU image's numba-cuda fails with its own NumPy, so the benchmark run
# installs these with --no-deps into a folder put first on PYTHONPATH:
#   pip install --no-deps --upgrade --target /tmp/peers .device/wheels/*.whl
#   PYTHONPATH=/tmp/peers python3 bench/searchsorted_bench.py
# Usage: scripts/gpu/prepare-peers.sh [DIR]   (default .device/wheels)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/wheels}"
mkdir -p "$out"
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --python-version 3.12 -d "$out" cuda-cccl==1.1.1 numpy==2.2.6
ls -1 "$out"
