#!/usr/bin/env bash
# fuse: set up a fresh machine, build, and run the main job.
#
#   1. installs what is missing (Debian packages: LLVM/MLIR 22, clang 22,
#      g++, ninja, ccache; the Python packages of scripts/python-requirements.txt,
#      every one the test suite imports: numpy, pytest, matplotlib),
#   2. configures and builds fuse into ./build,
#   3. runs the main job: compiles an example pipeline (sum(x*x)) to PTX,
#      runs it on the CPU backend, and on the GPU where one is present.
#
# Usage: scripts/setup.sh [--deps-only]
#   --deps-only  install the dependencies and stop (CI uses this).
# Environment: BUILD_DIR (default build), FUSE_SKIP_INSTALL=1 to skip the
# package step, FUSE_JOBS for the build's parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}

say() { printf '\n== %s\n' "$*"; }

if [ "${FUSE_SKIP_INSTALL:-0}" != 1 ]; then
  say "Installing dependencies"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  need=()
  # g++: the build's compiler, and the cc/c++ that fuse-compile --emit=shared
  # and the documentation's C/C++ examples call (clang-22 installs only
  # versioned names).
  for pkg in libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 \
             libclang-rt-22-dev libzstd-dev ninja-build cmake ccache python3-pip \
             g++; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
  fi
  # The Python packages the tests import (scripts/test.sh checks the same
  # list with the same python3 before it runs anything); pip only for the
  # missing ones. Debian 12's python3 is externally managed (PEP 668), hence
  # the second try with --break-system-packages.
  pyneed=()
  for mod in $(sed -e 's/#.*//' scripts/python-requirements.txt); do
    python3 -c "import $mod" 2>/dev/null || pyneed+=("$mod")
  done
  if [ ${#pyneed[@]} -gt 0 ]; then
    python3 -m pip install -q "${pyneed[@]}" 2>/dev/null || \
      python3 -m pip install -q --break-system-packages "${pyneed[@]}"
  fi
fi

[ "${1:-}" = "--deps-only" ] && exit 0

say "Configuring and building fuse in $BUILD_DIR"
launcher=()
# ccache is opt-in (FUSE_CCACHE=1): correctness of a clean build first.
[ "${FUSE_CCACHE:-0}" = 1 ] && command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}"
fi
ninja -C "$BUILD_DIR" ${FUSE_JOBS:+-j "$FUSE_JOBS"}

BIN="$ROOT/$BUILD_DIR/bin"
EX="$ROOT/examples/sumsq.mlir"
export PATH="$PATH:/usr/local/cuda/bin"

say "Main job: sum(x*x) -- the pipeline"
cat "$EX"

# (grep on a saved copy: with pipefail, `fuse-opt --help | grep -q` fails
# when grep stops reading early.)
help=$("$BIN/fuse-opt" --help)
if grep -q -- '--fuse-to-ptx' <<<"$help" && [ -x "$BIN/fuse-compile" ]; then
  say "Compiling it to PTX and to an object + C header (fuse-compile)"
  "$BIN/fuse-compile" "$EX" --emit=ptx -o "$BUILD_DIR/sumsq.ptx"
  "$BIN/fuse-compile" "$EX" --emit=all -o "$BUILD_DIR/sumsq" --time
  echo "PTX: kernels, 16-byte loads and warp shuffles (count):"
  grep -oE '\.visible \.entry [A-Za-z_0-9]+|\.target [a-z_0-9]+|ld\.global\.v4\.[a-z0-9]+|shfl\.sync\.[a-z]+' \
    "$BUILD_DIR/sumsq.ptx" | sort | uniq -c
  grep -E '^fuse_status_t' "$BUILD_DIR/sumsq.h"
else
  echo "fuse-to-ptx pipeline not built in this version"
fi

if grep -q -- '--fuse-explain' <<<"$help"; then
  say "Fusion report (fuse-opt --fuse-fusion --fuse-explain)"
  "$BIN/fuse-opt" "$EX" --fuse-fusion --fuse-explain -o /dev/null 2>&1 | grep remark
fi

say "Running it on the CPU backend (fuse-run, 2^24 random elements)"
"$BIN/fuse-run" "$EX" --arg rand:16777216 --print --repeat 5
python3 - "$BIN/fuse-run" "$EX" <<'PY'
import subprocess, sys, tempfile, os
import numpy as np
with tempfile.TemporaryDirectory() as d:
    subprocess.run([sys.argv[1], sys.argv[2], "--arg", "rand:1000003",
                    "--save-inputs", "--out", d], check=True)
    x = np.load(os.path.join(d, "arg0.npy")).astype(np.float64)
    got = float(np.load(os.path.join(d, "result0.npy")))
    ref = float(np.sum(x * x))
    err = abs(got - ref) / ref
    print(f"check against NumPy float64: fuse {got:.6f} numpy {ref:.6f} rel.err {err:.2e}")
    sys.exit(0 if err < 1e-4 else 1)
PY

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  say "GPU found: running the GPU suite"
  if [ -x scripts/gpu/run-codegen-tests.sh ]; then
    scripts/gpu/prepare-artifacts.sh && scripts/gpu/run-codegen-tests.sh
  else
    echo "GPU execution scripts are not in this version"
  fi
else
  say "No GPU on this machine: PTX compiled, CPU run done (GPU run skipped)"
fi
