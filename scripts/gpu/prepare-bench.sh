#!/usr/bin/env bash
# Prepares the benchmark on a machine with fuse built (LLVM/MLIR + CUDA
# toolkit, no GPU needed), into a git-ignored folder the GPU machine runs:
#   - every examples/NAME.mlir compiled with fuse-compile --prefix=fb_
#     (NAME.o, NAME.h), with fuse-compile's wall time per pipeline
#     (compile-times.txt); a pipeline that does not compile is listed in
#     failed.txt (run-bench.sh reports each as a failure), the rest is
#     still prepared, and the script exits 1 at the end,
#   - the runtime library (runtime/, built with nvcc),
#   - bench_fuse (fuse's pipelines) and peers (CUB, hand-written CUDA),
#     built with nvcc for sm_90.
# Usage: scripts/gpu/prepare-bench.sh [OUT_DIR] [BUILD_DIR]
#   OUT_DIR    default .device/bench   BUILD_DIR  default build
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/gpu/compile-time.sh"
out="${1:-$root/.device/bench}"
build="${2:-$root/build}"
export PATH="$PATH:/usr/local/cuda/bin"
fc="$build/bin/fuse-compile"
[ -x "$fc" ] || { echo "prepare-bench: $fc not found (build fuse first)" >&2; exit 1; }
mkdir -p "$out/aot" "$out/bin"
cp "$root/runtime/include/fuse_runtime.h" "$out/aot/"

echo "# pipeline, fuse-compile --emit=obj median ms: process wall, in-process" > "$out/compile-times.txt"
# Every pipeline that failed to compile, one line each: run-bench.sh fails
# on each, so a workload that stops compiling never drops out unseen.
: > "$out/failed.txt"
defs=() objs=()
for f in "$root"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  if "$fc" "$f" --prefix=fb_ --emit=all -o "$out/aot/$name" 2> "$out/aot/$name.log"; then
    # Wall time of a plain object compile, median of 5: of the whole
    # process and inside it (compile-time.sh).
    read -r med inmed < <(median_compile_ms "$fc" "$f" "$out/aot/$name.o" 5)
    echo "$name $med $inmed" >> "$out/compile-times.txt"
    upper=$(echo "$name" | tr a-z A-Z)
    defs+=("-DFUSE_HAVE_$upper")
    objs+=("$out/aot/$name.o")
    echo "compiled  $name  (fuse-compile --emit=obj median ${med} ms, ${inmed} in-process)"
  else
    echo "FAILED    $name  ($(grep -m1 error "$out/aot/$name.log" || echo "see $out/aot/$name.log"))"
    echo "$name (see BENCH/aot/$name.log)" >> "$out/failed.txt"
    rm -f "$out/aot/$name.o" "$out/aot/$name.h"
  fi
done

# Built outside $out: the folder travels to the GPU machine and must stay small.
rt="${RUNTIME_BUILD_DIR:-$build/runtime-standalone}"
cmake -G Ninja -S "$root/runtime" -B "$rt" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DFUSE_RUNTIME_BUILD_TESTS=OFF >/dev/null
ninja -C "$rt" >/dev/null
rtlib="$(find "$rt" -name 'libfuse_runtime.so*' -type f | head -1)"
# The executables record the library's SONAME (libfuse_runtime.so.0).
cp -L "$rtlib" "$out/bin/libfuse_runtime.so"
ln -sf libfuse_runtime.so "$out/bin/libfuse_runtime.so.0"

nvcc -O3 -std=c++17 -arch=sm_90 -o "$out/bin/peers" "$root/bench/peers.cu"
nvcc -O3 -std=c++17 -arch=sm_90 "${defs[@]}" -I "$out/aot" -I "$root/bench" \
  -o "$out/bin/bench_fuse" "$root/bench/bench_fuse.cu" "${objs[@]}" \
  -L "$out/bin" -lfuse_runtime -Xlinker -rpath -Xlinker '$ORIGIN'
cp "$root/bench/torch_bench.py" "$root/bench/report.py" \
  "$root/bench/diagnoses.json" "$out/"
echo "prepared $out: ${#objs[@]} fuse pipelines"
if [ -s "$out/failed.txt" ]; then
  echo "prepare-bench: $(wc -l < "$out/failed.txt") pipeline(s) did not compile:" \
    "$(cut -d' ' -f1 "$out/failed.txt" | tr '\n' ' ')(see failed.txt)" >&2
  exit 1
fi
