#!/usr/bin/env bash
# Tuning experiments (docs/performance.md, "Tried and not kept"): builds one
# bench_fuse per tiling variant of one example pipeline, for
# scripts/gpu/run-variants.sh on the GPU machine. Each variant is the
# example fused, tiled with the given fuse-tile options, compiled with
# fuse-compile --no-fusion, with its ptxas resource line kept beside it.
# Usage: scripts/gpu/prepare-variants.sh NAME [TILE_OPTS]...
#   e.g. prepare-variants.sh scan "items-per-thread=8" "items-per-thread=16"
#   (an empty string is the cost model's own tiling)
# Env: BUILD_DIR (default build), OUT_DIR (default .device/variants),
#   FIRST_INDEX (number of the first variant, default 0: adds to a folder),
#   COMPILE_OPTS (extra fuse-compile options for every variant of this
#   call, e.g. "--opt-level=2" or "--ptxas-opt-level=1"; recorded in
#   options.txt);
#   SOURCE (another .mlir defining the same function NAME with the same C
#   signature, e.g. a static-shape copy of the example; recorded in
#   options.txt);
#   needs .device/bench/bin/libfuse_runtime.so (scripts/gpu/prepare-bench.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${BUILD_DIR:-$root/build}"
out="${OUT_DIR:-$root/.device/variants}"
name="$1"; shift
export PATH="$PATH:/usr/local/cuda/bin"
rtdir="$root/.device/bench/bin"
[ -f "$rtdir/libfuse_runtime.so" ] || { echo "prepare-variants: run scripts/gpu/prepare-bench.sh first" >&2; exit 1; }
mkdir -p "$out"
upper=$(echo "$name" | tr a-z A-Z)
src="${SOURCE:-$root/examples/$name.mlir}"
k="${FIRST_INDEX:-0}"
for opts in "$@"; do
  d="$out/$name-v$k"; rm -rf "$d"; mkdir -p "$d"
  echo "$opts${COMPILE_OPTS:+ | $COMPILE_OPTS}${SOURCE:+ | $(basename "$SOURCE")}" > "$d/options.txt"
  tile="--fuse-tile"
  [ -n "$opts" ] && tile="--fuse-tile=$opts"
  "$build/bin/fuse-opt" "$src" --fuse-fusion "$tile" -o "$d/$name.mlir"
  # shellcheck disable=SC2086  # COMPILE_OPTS is a list of options
  "$build/bin/fuse-compile" "$d/$name.mlir" --no-fusion --prefix=fb_ --emit=all \
    ${COMPILE_OPTS:-} -o "$d/$name"
  ptxas -arch=sm_90 -O3 -v "$d/$name.ptx" -o /dev/null 2>&1 | grep -E "registers|spill" | tr '\n' ' ' > "$d/ptxas.txt"
  cp "$root/runtime/include/fuse_runtime.h" "$d/"
  nvcc -O3 -std=c++17 -arch=sm_90 "-DFUSE_HAVE_$upper" -I "$d" -I "$root/bench" \
    -o "$d/bench_fuse" "$root/bench/bench_fuse.cu" "$d/$name.o" \
    -L "$rtdir" -lfuse_runtime -Xlinker -rpath -Xlinker '$ORIGIN/../../bench/bin'
  rm -f "$d/$name.o" "$d/$name.cubin"
  echo "$name-v$k [$(cat "$d/options.txt")]: $(cat "$d/ptxas.txt")"
  k=$((k + 1))
done
