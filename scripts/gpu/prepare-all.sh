#!/usr/bin/env bash
# On the machine with fuse built (no GPU needed): prepares everything one
# GPU-machine call needs, under .device/ (git-ignored; pass `carry: [".device"]`
# to the device tool, or copy the folder):
#   .device/artifacts  every example compiled for the codegen tests, and as
#                      shared libraries + manifests for fuse-run-aot (with
#                      a few inputs and the CPU backend's results)
#   .device/bench      the benchmark binaries, runtime library and AOT objects
#   .device/differential  random pipelines (gen-pipelines.py) as shared
#                      libraries with inputs and CPU results (GPU vs CPU)
#   .device/pycache    the Python package's cache with the GPU pipelines of
#                      test/Python/gpu_check.py (prepare-python.sh)
#   .device/docs       the documentation's code blocks run here, their work
#                      folders kept for the blocks marked gpu (doctest.py)
# Usage: scripts/gpu/prepare-all.sh [BUILD_DIR]   (default build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
"$root/scripts/gpu/prepare-artifacts.sh" "$root/.device/artifacts" "$build/bin/fuse-compile"
"$root/scripts/gpu/prepare-bench.sh" "$root/.device/bench" "$build" || echo "prepare-bench.sh: a workload did not compile (see above); suite bench will report it"
"$root/scripts/gpu/prepare-differential.sh" "$root/.device/differential" "$build" || echo "prepare-differential.sh failed (see above); suite diff will report it"
"$root/scripts/gpu/prepare-python.sh" "$root/.device/pycache" "$build/bin/fuse-compile"
python3 "$root/scripts/doctest.py" --build "$build" --prepare-gpu "$root/.device/docs" > "$root/.device/docs.log" 2>&1 ||
  { tail -20 "$root/.device/docs.log"; echo "doctest.py --prepare-gpu: a block failed (see above); suite docs will run the gpu blocks anyway"; }
du -sh "$root/.device"
