#!/usr/bin/env bash
# Compiles every example pipeline ahead of time (on the CPU machine, which
# has LLVM/MLIR and the CUDA toolkit) into a folder that the GPU machine
# consumes with scripts/gpu/run-codegen-tests.sh:
#   NAME.o NAME.h NAME.ptx NAME.cubin  per examples/NAME.mlir
#   fuse_runtime.h, tests/gpu/*.cpp    copied so the folder is self-contained
#   compile-times.txt                  fuse-compile --emit=obj wall time (ms)
# Usage: scripts/gpu/prepare-artifacts.sh [OUT_DIR] [FUSE_COMPILE]
#   OUT_DIR       default .device/artifacts (git-ignored)
#   FUSE_COMPILE  default build/bin/fuse-compile, or $FUSE_COMPILE
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/artifacts}"
fc="${2:-${FUSE_COMPILE:-$root/build/bin/fuse-compile}}"
if [ ! -x "$fc" ]; then
  echo "prepare-artifacts: fuse-compile not found at $fc" >&2
  exit 1
fi
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
mkdir -p "$out"
cp "$root/runtime/include/fuse_runtime.h" "$out/"
cp "$root"/tests/gpu/*.cpp "$out/"
: > "$out/compile-times.txt"
ok=0; bad=0
for f in "$root"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  # Entry points are prefixed (fx_copy, fx_select, ...): `select` would
  # clash with POSIX select(), `fuse_scan` with the runtime's fuse_scan.
  if "$fc" "$f" --prefix=fx_ --emit=all -o "$out/$name" 2> "$out/$name.log"; then
    t=$("$fc" "$f" --prefix=fx_ --emit=obj -o "$out/$name.o" --time 2>&1 | sed -n 's/.*wall time \([0-9.]*\) ms/\1/p')
    echo "$name $t" >> "$out/compile-times.txt"
    echo "ok      $name (fuse-compile --emit=obj: ${t} ms)"
    ok=$((ok + 1))
  else
    echo "FAILED  $name (see $out/$name.log)"
    rm -f "$out/$name.o" "$out/$name.h"
    bad=$((bad + 1))
  fi
done
echo "$ok compiled, $bad failed -> $out"
