#!/usr/bin/env bash
# fuse-compile for the GPU machine (which has the CUDA toolkit but no
# LLVM/MLIR), so that fuse's compile times are measured on the machine
# torch.compile's first calls are timed on (scripts/gpu/run-compile-times.sh;
# scripts/gpu/run-bench.sh runs it when this folder is there).
# fuse-compile links LLVM and MLIR statically; it needs glibc >= 2.36,
# libstdc++, zlib and zstd there. Stripped and xz-compressed it is ~14 MB
# (the device tool carries 64 MiB a call).
#   OUT_DIR/fuse-compile.xz   the stripped binary, compressed
#   OUT_DIR/examples/*.mlir   the pipelines to time
#   OUT_DIR/version.txt       fuse-compile --version and the commit
# Usage: scripts/gpu/prepare-compiler.sh [OUT_DIR] [BUILD_DIR]
#   OUT_DIR    default .device/compiler   BUILD_DIR  default build
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/compiler}"
build="${2:-$root/build}"
fc="$build/bin/fuse-compile"
[ -x "$fc" ] || { echo "prepare-compiler: $fc not found (build fuse first)" >&2; exit 1; }
for t in strip xz; do
  command -v "$t" >/dev/null || { echo "prepare-compiler: $t not found" >&2; exit 1; }
done
rm -rf "$out"; mkdir -p "$out/examples"
cp "$root"/examples/*.mlir "$out/examples/"
tmp="$(mktemp "${TMPDIR:-/tmp}/fuse-compile.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
strip -o "$tmp" "$fc"
xz -T0 -6 -c "$tmp" > "$out/fuse-compile.xz"
{ "$fc" --version 2>&1 | head -3
  git -C "$root" rev-parse --short HEAD 2>/dev/null || true; } > "$out/version.txt"
echo "prepared $out: $(du -sh "$out" | cut -f1) ($(ls "$out"/examples | wc -l) pipelines)"
