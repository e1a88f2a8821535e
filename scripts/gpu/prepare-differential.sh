#!/usr/bin/env bash
# GPU against CPU on random pipelines (issue #7), CPU-machine half: makes
# the folder that scripts/gpu/run-differential.sh consumes on the GPU
# machine. For each seed of scripts/gen-pipelines.py (inputs resized to
# tile-boundary sizes such as 1, 31, 4099, 70001 and 2-D shapes such as
# 3x1025, 257x31; see scripts/gpu/differential.py):
#   seedN/prog.mlir             the program (kept for rejected seeds too)
#   seedN/prog.so prog.json     fuse-compile --emit=shared --prefix=fx_
#   seedN/in<i>.npy             its inputs
#   seedN/cpu/result<i>.npy     the CPU backend's results (fuse-run), each
#                               checked against the generator's NumPy
#                               evaluation before it serves as the oracle
#   seedN/meta.json             per result: dtype, shape, filter, exact,
#                               scale (the tolerance rule's inputs)
#   programs.txt                the seeds the GPU suite runs
#   rejected.txt                seeds the GPU code generator rejects, with
#                               the first error line (not failures)
#   oracle-failures.txt         seeds whose CPU results disagree with NumPy
#   summary.txt                 the counts
# Usage: scripts/gpu/prepare-differential.sh [OUT_DIR] [BUILD_DIR] [SEEDS]
#   OUT_DIR    default .device/differential (git-ignored)
#   BUILD_DIR  default build (fuse-compile and fuse-run in BUILD_DIR/bin)
#   SEEDS      default 0:100, or $FUSE_DIFF_SEEDS
# Exits 1 when a tool is missing or the CPU disagrees with NumPy on a seed.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/differential}"
build="${2:-$root/build}"
seeds="${3:-${FUSE_DIFF_SEEDS:-0:100}}"
for t in fuse-compile fuse-run; do
  if [ ! -x "$build/bin/$t" ]; then
    echo "prepare-differential: $build/bin/$t not found" >&2
    exit 1
  fi
done
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
python3 "$root/scripts/gpu/differential.py" prepare --out "$out" \
  --seeds "$seeds" --fuse-compile "$build/bin/fuse-compile" \
  --fuse-run "$build/bin/fuse-run"
rc=$?
echo "differential: $(du -sh "$out" | cut -f1) in $out"
exit $rc
