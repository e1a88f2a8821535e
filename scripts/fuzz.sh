#!/usr/bin/env bash
# fuse: build and run the fuse-fuzz libFuzzer target for a bounded time.
#
#   scripts/fuzz.sh [-t SECONDS] [-j JOBS] [-- LIBFUZZER_ARGS...]
#
# The target and its dictionary and seed writer are in test/Fuzz.
# Configures (once) and builds a separate clang build directory
# (FUZZ_BUILD_DIR, default build-fuzz) with FUSE_BUILD_FUZZER=ON, which
# instruments fuse's own libraries with libFuzzer coverage, ASan and UBSan,
# writes the seed corpus (examples/*.mlir and test/**/*.mlir split at
# `// -----`) and runs the fuzzer for SECONDS (default 60) over a persistent
# corpus directory in the build dir. Prints executions, exec/s, corpus size
# and crashes. Exits non-zero on a finding, leaving the reproducer in
# $FUZZ_BUILD_DIR/fuzz-artifacts/ (replay: fuse-fuzz FILE, or FUSE_FUZZ_VERBOSE=1
# fuse-fuzz FILE to see the input's diagnostics).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_TO_RUN=60
JOBS=${FUSE_JOBS:-}
while [ $# -gt 0 ]; do
  case "$1" in
    -t) SECONDS_TO_RUN=$2; shift 2 ;;
    -j) JOBS=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}

find_clang() {
  for c in "${FUZZ_CXX:-}" clang++-22 clang++; do
    [ -n "$c" ] && command -v "$c" >/dev/null && { command -v "$c"; return; }
  done
  if command -v llvm-config-22 >/dev/null; then
    echo "$(llvm-config-22 --bindir)/clang++"
  fi
}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  CXX_BIN=$(find_clang)
  if [ -z "$CXX_BIN" ] || [ ! -x "$CXX_BIN" ]; then
    echo "fuzz.sh: no clang++ found (set FUZZ_CXX)" >&2; exit 2
  fi
  CC_BIN=$(dirname "$CXX_BIN")/$(basename "$CXX_BIN" | sed 's/clang++/clang/')
  [ -x "$CC_BIN" ] || CC_BIN=$(dirname "$CXX_BIN")/clang
  launcher=()
  [ "${FUSE_CCACHE:-0}" = 1 ] && command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$CC_BIN" -DCMAKE_CXX_COMPILER="$CXX_BIN" \
    -DFUSE_BUILD_FUZZER=ON -DFUSE_BUILD_RUNTIME=OFF \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}" \
    >"$BUILD_DIR.configure.log" 2>&1 || {
      cat "$BUILD_DIR.configure.log"; echo "fuzz.sh: configure failed" >&2; exit 2; }
fi
if ! ninja -C "$BUILD_DIR" ${JOBS:+-j "$JOBS"} fuse-fuzz; then
  echo "fuzz.sh: build failed (is the compiler clang with libFuzzer?)" >&2
  exit 2
fi
FUZZER="$BUILD_DIR/bin/fuse-fuzz"
[ -x "$FUZZER" ] || { echo "fuzz.sh: $FUZZER was not built (FUSE_BUILD_FUZZER unsupported?)" >&2; exit 2; }

SEEDS="$BUILD_DIR/fuzz-seeds"
CORPUS="$BUILD_DIR/fuzz-corpus"
ARTIFACTS="$BUILD_DIR/fuzz-artifacts"
LOGS="$BUILD_DIR/fuzz-logs"
mkdir -p "$SEEDS" "$CORPUS" "$ARTIFACTS" "$LOGS"
python3 test/Fuzz/make-seeds.py "$ROOT" "$SEEDS" || exit 2

# Findings are crash-, leak-, timeout- and oom- artifacts; libFuzzer's
# slow-unit- reports (an input that took over 10 s, e.g. on a loaded
# machine) are listed but are not findings.
findings() { ls "$ARTIFACTS" | grep -E '^(crash|leak|timeout|oom)-' | wc -l; }
slow_before=$(ls "$ARTIFACTS" | grep -c '^slow-unit-')
before=$(findings)
LOG="$LOGS/fuzz-$(date +%Y%m%d-%H%M%S).log"
echo "== fuse-fuzz for ${SECONDS_TO_RUN}s (log: $LOG)"
# Leak reports: MLIR keeps process-lifetime registries; the harness frees
# everything it makes per input, so leaks stay on.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
"$FUZZER" -max_total_time="$SECONDS_TO_RUN" -dict=test/Fuzz/fuse.dict \
  -max_len=4096 -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$ARTIFACTS/" "$@" "$CORPUS" "$SEEDS" >"$LOG" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
added=$(sed -n 's/^stat::new_units_added: *//p' "$LOG" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$LOG" | tail -1 | sed 's/cov: //')
after=$(findings)
crashes=$((after - before))
slow=$(($(ls "$ARTIFACTS" | grep -c '^slow-unit-') - slow_before))
echo "executions: ${execs:-?}  exec/s: ${rate:-?}  new units: ${added:-?}  coverage: ${cov:-?}"
echo "corpus: $(ls "$CORPUS" | wc -l) files  seeds: $(ls "$SEEDS" | wc -l) files"
echo "crashes: $crashes"
[ "$slow" -gt 0 ] && echo "slow units (not findings): $slow, slowest $(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$LOG" | tail -1) s"
if [ $rc -ne 0 ] || [ $crashes -ne 0 ]; then
  grep -m1 -A40 -E 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|FINDING|runtime error|deadly signal' "$LOG"
  echo "reproducer(s):"
  ls -t "$ARTIFACTS" | grep -E '^(crash|leak|timeout|oom)-' | head -$((crashes > 0 ? crashes : 1)) | sed "s|^|  $ARTIFACTS/|"
  echo "fuzz.sh: FAILED (fuzzer exit $rc)"
  exit 1
fi
echo "fuzz.sh: no findings"
