#!/usr/bin/env bash
# GPU against CPU on random pipelines (issue #7), CPU-machine half: makes
# the folder that scripts/gpu/run-differential.sh consumes on the GPU
# machine. For each seed of scripts/gen-pipelines.py (inputs resized to
# tile-boundary sizes such as 1, 31, 4099, 70001, 2-D shapes such as
# 3x1025, 257x31 and 3-D ones such as 2x3x1025, 17x3x31; see
# scripts/gpu/differential.py):
#   seedN/prog.mlir             the program (kept for rejected seeds too)
#   seedN/prog.so prog.json     fuse-compile --emit=shared --prefix=fx_
#   seedN/data.npz              its inputs and the CPU backend's results
#                               (fuse-run), each checked against the
#                               generator's NumPy evaluation before it
#                               serves as the oracle
#   seedN/meta.json             per argument: dtype and shape, or an index
#                               scalar's value; per result: dtype, shape,
#                               filter, exact, scale, prec (the tolerance
#                               rule's inputs); for a quarter of the seeds
#                               "mismatch": a case whose arguments break a
#                               size equality the program implies (its
#                               inputs mm<i> in data.npz), which the CPU
#                               rejected here and the GPU entry must reject
#                               with FUSE_ERROR_INVALID_ARGUMENT and the
#                               same `size mismatch: ...` message
#   programs.txt                the seeds the GPU suite runs
#   mismatched.txt              the seeds with a mismatched case
#                               (differential.py run-mismatched DIR
#                               --runner fuse-run-aot runs and judges them;
#                               --c-abi LIBFUSE_RUNTIME dry-runs the
#                               entries' checks here, without a GPU)
#   rejected.txt                seeds the GPU code generator rejects, with
#                               the first error line (not failures)
#   oracle-failures.txt         seeds whose CPU results disagree with NumPy
#                               (or whose mismatched case the CPU runs)
#   summary.txt                 the counts
# Usage: scripts/gpu/prepare-differential.sh [OUT_DIR] [BUILD_DIR] [SEEDS]
#   OUT_DIR    default .device/differential (git-ignored)
#   BUILD_DIR  default build (fuse-compile and fuse-run in BUILD_DIR/bin)
#   SEEDS      default 0:100, or $FUSE_DIFF_SEEDS
# Exits 1 when a tool is missing, the CPU disagrees with NumPy on a seed,
# or a shared library's entry accepts a mismatched case's sizes (checked
# here when BUILD_DIR/runtime/lib/libfuse_runtime.so exists).
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
# absolute: the CPU runs happen inside each seed's folder
build="$(cd "$build" && pwd)"
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
python3 "$root/scripts/gpu/differential.py" prepare --out "$out" \
  --seeds "$seeds" --fuse-compile "$build/bin/fuse-compile" \
  --fuse-run "$build/bin/fuse-run"
rc=$?
# The mismatched cases against the shared libraries' own size checks,
# here, without a GPU: each entry is called with made-up device addresses
# and must refuse the sizes before it touches the device.
rt="$build/runtime/lib/libfuse_runtime.so"
if [ -s "$out/mismatched.txt" ] && [ -f "$rt" ]; then
  echo "mismatched cases, C ABI checks without a GPU:"
  python3 "$root/scripts/gpu/differential.py" run-mismatched "$out" \
    --c-abi "$rt" | sed 's/^/  /' | grep -v '^  PASS'
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
fi
echo "differential: $(du -sh "$out" | cut -f1) in $out"
exit $rc
