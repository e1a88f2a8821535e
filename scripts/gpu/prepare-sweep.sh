#!/usr/bin/env bash
# The random-pipeline performance sweep (issue 33), CPU-machine half: makes
# the folder that scripts/gpu/run-sweep.sh times on the GPU machine
# (bench/random_sweep.py prepare; bench/README.md, "Random-pipeline
# sweep"). For seeds 0, 1, ... of scripts/gen-pipelines.py (GPU mode, every
# data input at 2^26 elements) until SWEEP_COUNT programs are kept, those
# that scripts/pipeline_torch.py translates to torch, that stream at least
# one value of 2^20 elements, and that fuse-compile --emit=shared takes:
#   seedN/prog.mlir prog.so prog.json   the program and its GPU library
#   seedN/torch.py                      the same program in torch
#   seedN/meta.json                     how to draw its inputs again (they
#                                       are not stored: GiBs), the ops, and
#                                       per result dtype, shape, tolerance
#                                       inputs and sampled reference values
#   summary.json                        the seeds kept, the others' reasons
# then a dry run of the folder (bench/random_sweep.py run --dry: files,
# translations, manifest sizes, entry symbols, a few inputs drawn again).
# Usage: scripts/gpu/prepare-sweep.sh [OUT_DIR] [BUILD_DIR]
#   OUT_DIR    default .device/sweep (git-ignored; carry it to the GPU
#              machine, a few MiB)
#   BUILD_DIR  default build (fuse-compile in BUILD_DIR/bin; the runtime in
#              BUILD_DIR/runtime/lib, for the dry run's symbol check)
#   SWEEP_COUNT (130), SWEEP_START (0), SWEEP_JOBS (2: processes; each
#   holds a program's arrays at 2^26 elements, up to ~6 GiB),
#   SWEEP_MODE: new (default: the folder made afresh), resume (go on
#   after the seeds its prepare.jsonl lists until SWEEP_COUNT are kept)
#   or recompile (every kept program compiled again by BUILD_DIR's
#   fuse-compile: the folder follows a compiler change in seconds a
#   program, since the inputs and samples do not depend on it)
# Exits 1 when fuse-compile is missing, fewer programs than SWEEP_COUNT
# were kept, or the dry run finds a problem.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/.device/sweep}"
build="${2:-$root/build}"
if [ ! -x "$build/bin/fuse-compile" ]; then
  echo "prepare-sweep: $build/bin/fuse-compile not found" >&2
  exit 1
fi
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
# One compiler for every program: a copy, so that a rebuild relinking
# build/bin/fuse-compile meanwhile neither breaks nor mixes the run.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for try in 1 2 3 4 5; do  # a relink in progress: wait for it
  cp "$build/bin/fuse-compile" "$tmp/fuse-compile" 2>/dev/null &&
    "$tmp/fuse-compile" --version > /dev/null 2>&1 && break
  [ $try -eq 5 ] && { echo "prepare-sweep: fuse-compile does not run" >&2; exit 1; }
  sleep 30
done
case "${SWEEP_MODE:-new}" in
  recompile)
    python3 "$root/bench/random_sweep.py" recompile "$out" \
      --jobs "${SWEEP_JOBS:-2}" --fuse-compile "$tmp/fuse-compile" ;;
  new | resume)
    resume=()
    [ "${SWEEP_MODE:-new}" = resume ] && resume=(--resume)
    python3 "$root/bench/random_sweep.py" prepare --out "$out" \
      --count "${SWEEP_COUNT:-130}" --start "${SWEEP_START:-0}" "${resume[@]}" \
      --jobs "${SWEEP_JOBS:-2}" --fuse-compile "$tmp/fuse-compile" ;;
  *) echo "prepare-sweep: SWEEP_MODE is new, resume or recompile" >&2; exit 1 ;;
esac
rc=$?
rt=()
[ -f "$build/runtime/lib/libfuse_runtime.so" ] && \
  rt=(--runtime "$build/runtime/lib/libfuse_runtime.so")
echo "dry run of the folder:"
python3 "$root/bench/random_sweep.py" run "$out" --dry "${rt[@]}" --limit 2 \
  > "$tmp/dry.log" 2>&1
dry=$?
grep -v '^PASS' "$tmp/dry.log" | sed 's/^/  /'
[ $dry -eq 0 ] || rc=1
echo "sweep: $(du -sh "$out" | cut -f1) in $out"
exit $rc
