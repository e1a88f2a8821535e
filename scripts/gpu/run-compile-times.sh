#!/usr/bin/env bash
# On the GPU machine: fuse-compile's compile time of every example, measured
# where torch.compile's first calls are (the benchmark's comparison), from
# the folder scripts/gpu/prepare-compiler.sh made.
# Writes RESULTS_DIR/compile-times-gpu-host.txt in prepare-bench.sh's format
# ("name process-ms in-process-ms": medians of REPS runs of
# `fuse-compile --emit=obj`, after one warm-up run that loads the binary and
# the toolkit into the page cache) and RESULTS_DIR/compile-host.txt (cores,
# CPU, the fuse-compile and ptxas versions). A fuse-compile that does not
# run there (other system libraries) is reported in one line, exit 1.
# Usage: scripts/gpu/run-compile-times.sh [COMPILER_DIR] [RESULTS_DIR]
#   COMPILER_DIR  default .device/compiler   RESULTS_DIR  default $OUT or
#   COMPILER_DIR/results
# Env: REPS (default 9).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/gpu/compile-time.sh"
dir="${1:-$root/.device/compiler}"
res="${2:-${OUT:-$dir/results}}"
reps="${REPS:-9}"
mkdir -p "$res"
[ -f "$dir/fuse-compile.xz" ] || { echo "run-compile-times: $dir/fuse-compile.xz not found (scripts/gpu/prepare-compiler.sh)"; exit 1; }
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/fuse-compile-times.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fc="$work/fuse-compile"
# xz or Python's lzma, whichever the machine has.
if command -v xz >/dev/null; then
  xz -dc "$dir/fuse-compile.xz" > "$fc"
else
  python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as i, open(sys.argv[2], "wb") as o:
    shutil.copyfileobj(i, o)' "$dir/fuse-compile.xz" "$fc"
fi
chmod +x "$fc"
if ! "$fc" --version > "$work/version" 2>&1; then
  echo "run-compile-times: fuse-compile does not run here: $(grep -m1 . "$work/version")"
  exit 1
fi
{ echo "cores: $(nproc)"
  grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
  echo "fuse-compile: $(grep -m1 -i version "$work/version") (commit $(tail -1 "$dir/version.txt" 2>/dev/null))"
  echo "ptxas: $(ptxas --version 2>&1 | tail -1)"; } > "$res/compile-host.txt"

out="$res/compile-times-gpu-host.txt"
# The machine, as the report's caption gives it ("CPU machine" where no GPU
# answers: the script also runs where fuse is built).
host="GPU machine"
nvidia-smi -L >/dev/null 2>&1 || host="CPU machine"
echo "# pipeline, fuse-compile --emit=obj median ms: process wall, in-process ($host, $(nproc) cores, $reps runs)" > "$out"
rc=0
for f in "$dir"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  if ! "$fc" "$f" --prefix=fb_ --emit=obj -o "$work/$name.o" 2> "$res/compile-$name.err"; then
    echo "run-compile-times: $name failed: $(head -1 "$res/compile-$name.err")"
    rc=1
    continue
  fi
  rm -f "$res/compile-$name.err"
  echo "$name $(median_compile_ms "$fc" "$f" "$work/$name.o" "$reps")" >> "$out"
done
cat "$res/compile-host.txt"
cat "$out"
exit $rc
