#!/usr/bin/env bash
# Compiles every example pipeline ahead of time (on the CPU machine, which
# has LLVM/MLIR and the CUDA toolkit) into a folder that the GPU machine
# consumes with scripts/gpu/run-codegen-tests.sh:
#   NAME.o NAME.h NAME.ptx NAME.cubin  per examples/NAME.mlir
#   fuse_runtime.h, codegen_tests.cpp  copied so the folder is self-contained
#                                      (test/Integration/GPU/*.cpp)
#   compile-times.txt                  fuse-compile --emit=obj wall time (ms)
#   overlap/                           test/Runtime/Inputs/overlap.{mlir,c}
#                                      compiled, for the overlapping-buffers
#                                      checks on the GPU
#   shared/NAME.so shared/NAME.json    fuse-compile --emit=shared: the entries
#                                      as a shared library + signature
#                                      manifest, for fuse-run-aot
#   fuse-run/CASE/arg0.npy result0.npy inputs and the CPU backend's results
#                                      (fuse-run) for a few cases, which
#                                      scripts/gpu/run-fuse-run-tests.sh
#                                      compares fuse-run-aot against
# Usage: scripts/gpu/prepare-artifacts.sh [OUT_DIR] [FUSE_COMPILE]
#   OUT_DIR       default .device/artifacts (git-ignored)
#   FUSE_COMPILE  default build/bin/fuse-compile, or $FUSE_COMPILE
#                 (fuse-run is taken from the same folder)
# Env: FUSE_TILE_OPTIONS  fuse-tile options for every pipeline compiled with
#      fusion (fuse-compile --tile-options), e.g. "online-max-sum=1": the
#      GPU suites then test an experiment (the CPU results are unaffected).
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/artifacts}"
fc="${2:-${FUSE_COMPILE:-$root/build/bin/fuse-compile}}"
if [ ! -x "$fc" ]; then
  echo "prepare-artifacts: fuse-compile not found at $fc" >&2
  exit 1
fi
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
tile=()
[ -n "${FUSE_TILE_OPTIONS:-}" ] && tile=(--tile-options="$FUSE_TILE_OPTIONS")
mkdir -p "$out"
echo "${FUSE_TILE_OPTIONS:-}" > "$out/tile-options.txt"
cp "$root/runtime/include/fuse_runtime.h" "$out/"
cp "$root"/test/Integration/GPU/*.cpp "$out/"
: > "$out/compile-times.txt"
# Every program that failed to compile, one line each: the GPU suites
# (run-codegen-tests.sh, run-fuse-run-tests.sh) fail on each, so a
# pipeline that stops compiling never drops out of the tests unseen.
: > "$out/failed.txt"
ok=0; bad=0
for f in "$root"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  # Entry points are prefixed (fx_copy, fx_select, ...): `select` would
  # clash with POSIX select(), `fuse_scan` with the runtime's fuse_scan.
  if "$fc" "$f" "${tile[@]}" --prefix=fx_ --emit=all -o "$out/$name" 2> "$out/$name.log"; then
    t=$("$fc" "$f" "${tile[@]}" --prefix=fx_ --emit=obj -o "$out/$name.o" --time 2>&1 | sed -n 's/.*wall time \([0-9.]*\) ms/\1/p')
    echo "$name $t" >> "$out/compile-times.txt"
    echo "ok      $name (fuse-compile --emit=obj: ${t} ms)"
    ok=$((ok + 1))
  else
    echo "FAILED  $name (see $out/$name.log)"
    echo "$name (see ARTIFACTS/$name.log)" >> "$out/failed.txt"
    rm -f "$out/$name.o" "$out/$name.h"
    bad=$((bad + 1))
  fi
done
echo "$ok compiled, $bad failed -> $out"

# The overlapping-buffers driver (test/Runtime/overlap.test), for its GPU
# half in run-codegen-tests.sh.
mkdir -p "$out/overlap"
cp "$root/test/Runtime/Inputs/overlap_main.c" "$out/overlap/"
"$fc" "$root/test/Runtime/Inputs/overlap.mlir" --no-fusion --emit=all \
  -o "$out/overlap/overlap" 2> "$out/overlap/compile.log" \
  || { echo "FAILED  overlap.mlir (see $out/overlap/compile.log)"
       echo "overlap.mlir (see ARTIFACTS/overlap/compile.log)" >> "$out/failed.txt"; }

# Shared libraries and manifests for fuse-run-aot (run-fuse-run-tests.sh).
mkdir -p "$out/shared"
sok=0; sbad=0
for f in "$root"/examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  if "$fc" "$f" "${tile[@]}" --prefix=fx_ --emit=shared -o "$out/shared/$name" \
      2> "$out/shared/$name.log"; then
    rm -f "$out/shared/$name.log"
    sok=$((sok + 1))
  else
    echo "FAILED  $name --emit=shared (see $out/shared/$name.log)"
    echo "$name --emit=shared (see ARTIFACTS/shared/$name.log)" >> "$out/failed.txt"
    rm -f "$out/shared/$name.so" "$out/shared/$name.json"
    sbad=$((sbad + 1))
  fi
done
# The scan/filter tilings that the defaults do not use, as
# shared/NAME_SUFFIX.{so,json} for fuse-run-aot: scan_alt at 256 threads x
# 16 items (tiles staged in shared memory; the default is 512 x 32 in
# registers), select_alt with tiles in registers (stage-tiles=0; the
# default stages them), select_big at 512 x 32 in registers (a 64 KiB
# shared-scatter buffer, one block per SM), select_direct with
# shared-scatter=0 (each thread stores its kept elements).
fo="$(dirname "$fc")/fuse-opt"
for spec in "scan:alt:block-threads=256 items-per-thread=16" \
            "select:alt:stage-tiles=0" \
            "select:big:block-threads=512 stage-tiles=0 items-per-thread=32" \
            "select:direct:shared-scatter=0"; do
  name="${spec%%:*}"; rest="${spec#*:}"; suffix="${rest%%:*}"; opts="${rest#*:}"
  alt="${name}_${suffix}"
  if "$fo" "$root/examples/$name.mlir" --fuse-fusion "--fuse-tile=$opts" \
        -o "$out/shared/$alt.mlir" 2> "$out/shared/$alt.log" &&
      "$fc" "$out/shared/$alt.mlir" --no-fusion --prefix=fx_ \
        --emit=shared -o "$out/shared/$alt" 2>> "$out/shared/$alt.log"; then
    rm -f "$out/shared/$alt.log" "$out/shared/$alt.mlir"
    sok=$((sok + 1))
  else
    echo "FAILED  $alt (see $out/shared/$alt.log)"
    echo "$alt (see ARTIFACTS/shared/$alt.log)" >> "$out/failed.txt"
    sbad=$((sbad + 1))
  fi
done
echo "$sok shared libraries, $sbad failed -> $out/shared"

# Inputs and CPU results (the JIT backend, fuse-run) that the GPU results
# of fuse-run-aot are compared with. CASE NAME SPEC...
fr="$(dirname "$fc")/fuse-run"
if [ -x "$fr" ]; then
  rm -rf "$out/fuse-run"
  while read -r case name specs; do
    [ -n "$case" ] || continue
    args=()
    for s in $specs; do args+=(--arg "$s"); done
    if "$fr" "$root/examples/$name.mlir" "${args[@]}" --seed 7 \
        --out "$out/fuse-run/$case" --save-inputs > /dev/null 2> "$out/fuse-run-$case.log"; then
      echo "$name" > "$out/fuse-run/$case/pipeline"
      echo "$specs" > "$out/fuse-run/$case/specs"
      rm -f "$out/fuse-run-$case.log"
    else
      echo "FAILED  fuse-run $case (see $out/fuse-run-$case.log)"
      echo "fuse-run $case (see ARTIFACTS/fuse-run-$case.log)" >> "$out/failed.txt"
    fi
  done <<'CASES'
sumsq       sumsq        rand:100003
scan        scan         rand:100003
select      select       rand:100003
softmax     softmax_rows rand:64x1024
softmax_odd softmax_rows rand:7x1001
CASES
  echo "CPU references: $(ls "$out/fuse-run" 2>/dev/null | wc -l) cases -> $out/fuse-run"
  # Extra programs, GPU against CPU (test/Integration/GPU/extra/*.mlir: one
  # entry each, "// ARGS: SPEC..." for fuse-run's --arg, "// RULE:
  # exact|close"):
  # extra/NAME.{so,json} and extra/NAME.cpu/ (inputs and CPU results).
  rm -rf "$out/extra"
  mkdir -p "$out/extra"
  for f in "$root"/test/Integration/GPU/extra/*.mlir; do
    name="$(basename "$f" .mlir)"
    args=()
    for s in $(sed -n 's|^// ARGS: ||p' "$f"); do args+=(--arg "$s"); done
    if "$fc" "$f" "${tile[@]}" --prefix=fx_ --emit=shared -o "$out/extra/$name" \
        2> "$out/extra/$name.log" &&
        "$fr" "$f" "${args[@]}" --seed 7 --out "$out/extra/$name.cpu" \
          --save-inputs > /dev/null 2>> "$out/extra/$name.log"; then
      sed -n 's|^// RULE: ||p' "$f" > "$out/extra/$name.rule"
      rm -f "$out/extra/$name.log"
    else
      echo "FAILED  extra $name (see $out/extra/$name.log)"
      echo "extra $name (see ARTIFACTS/extra/$name.log)" >> "$out/failed.txt"
      rm -rf "$out/extra/$name.so" "$out/extra/$name.json" "$out/extra/$name.cpu"
    fi
  done
  echo "extra programs: $(ls "$out"/extra/*.json 2>/dev/null | wc -l) -> $out/extra"
else
  # The GPU suites fail on this line: their CPU references and extra
  # programs are missing, not skipped.
  echo "FAILED  fuse-run not found next to $fc: no CPU references"
  echo "fuse-run (not found next to fuse-compile: no CPU references or extra programs)" >> "$out/failed.txt"
fi
