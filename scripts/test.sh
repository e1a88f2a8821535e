#!/usr/bin/env bash
# fuse: the whole test suite (what CI runs through .ci/run).
#
# Builds ./build if needed (configuring it like scripts/setup.sh), then runs
# the lit suite (dialect, passes, pipelines, CPU integration, PTX/cubin
# checks, tools, runtime host tests, robustness), the Python package's
# pytest suite and a bounded fuzzing run (FUSE_FUZZ_SECONDS, default 60).
# The lit suite includes the documentation's code blocks (test/Docs,
# scripts/doctest.py).
# Ends with one line `N passed, N failed[, N skipped]`; exits non-zero when
# anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}
export PATH="$PATH:/usr/local/cuda/bin"

# First, before anything is built or run: every Python package the tests
# import (scripts/python-requirements.txt, which scripts/setup.sh installs)
# must import in the python3 that runs lit and pytest. A missing one stops
# the suite here, named, rather than failing one test half-way through.
missing=$(python3 - scripts/python-requirements.txt <<'PY'
import importlib, re, sys
for line in open(sys.argv[1]):
    name = re.sub(r"#.*", "", line).strip()
    if name:
        try:
            importlib.import_module(name)
        except Exception:
            print(name)
PY
) || missing="(python3 did not run)"
if [ -n "$missing" ]; then
  echo "test.sh: $(command -v python3 || echo python3) cannot import:" $missing
  echo "test.sh: the tests import it; install what is missing with: scripts/setup.sh --deps-only"
  echo "0 passed, 1 failed"
  exit 1
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  launcher=()
  # ccache is opt-in (FUSE_CCACHE=1): correctness of a clean build first.
  [ "${FUSE_CCACHE:-0}" = 1 ] && command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${launcher[@]}" || {
      echo "0 passed, 1 failed"; exit 1; }
fi
if ! ninja -C "$BUILD_DIR" ${FUSE_JOBS:+-j "$FUSE_JOBS"}; then
  echo "build failed"
  echo "0 passed, 1 failed"
  exit 1
fi

RESULTS="$BUILD_DIR/test-results"
rm -rf "$RESULTS" && mkdir -p "$RESULTS"

echo "== lit"
# lit runs under the python3 that pytest uses (setup.sh gives it numpy):
# the lit script's own interpreter, /usr/bin/python3, may lack numpy, and
# the tests that check values against NumPy would be skipped.
python3 /usr/lib/llvm-22/bin/lit -sv --xunit-xml-output "$RESULTS/lit.xml" \
  "$BUILD_DIR/test"
lit_rc=$?

py_rc=0
echo "== pytest"
FUSE_BUILD_DIR="$ROOT/$BUILD_DIR" PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" \
  python3 -m pytest -q test/Python --junitxml="$RESULTS/pytest.xml"
py_rc=$?
# pytest's 5 means "no tests collected": a broken suite, not a pass.

# A bounded libFuzzer run over parse + verify + the CPU and PTX pipelines
# (scripts/fuzz.sh; FUSE_FUZZ_SECONDS=0 skips it). Counted as one test.
fuzz_rc=0
if [ "${FUSE_FUZZ_SECONDS:-60}" != 0 ]; then
  echo "== fuzz (${FUSE_FUZZ_SECONDS:-60} s)"
  FUZZ_BUILD_DIR="$BUILD_DIR-fuzz" scripts/fuzz.sh -t "${FUSE_FUZZ_SECONDS:-60}" \
    > "$RESULTS/fuzz.log" 2>&1
  fuzz_rc=$?
  tail -15 "$RESULTS/fuzz.log"
  if [ $fuzz_rc -eq 0 ]; then
    echo '<testsuite><testcase classname="fuzz" name="fuse-fuzz"/></testsuite>' > "$RESULTS/fuzz.xml"
  else
    echo '<testsuite><testcase classname="fuzz" name="fuse-fuzz"><failure>see fuzz.log</failure></testcase></testsuite>' > "$RESULTS/fuzz.xml"
  fi
fi

# A part that failed without a failing test case in its report (lit or
# pytest stopped before its tests, pytest collected none, no report at all)
# counts as one failure, so that the last line never reads as a pass.
python3 - "$RESULTS" "lit:$lit_rc" "pytest:$py_rc" <<'PY'
import os, sys, glob
import xml.etree.ElementTree as ET
passed = failed = skipped = 0
for f in sorted(glob.glob(sys.argv[1] + "/*.xml")):
    for case in ET.parse(f).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
for part in sys.argv[2:]:
    name, rc = part.split(":")
    xml = os.path.join(sys.argv[1], name + ".xml")
    cases = (list(ET.parse(xml).getroot().iter("testcase"))
             if os.path.exists(xml) else [])
    bad = [c for c in cases
           if c.find("failure") is not None or c.find("error") is not None]
    if rc != "0" and not bad:
        print(f"{name} exited with status {rc} and reported no failing test "
              f"({len(cases)} test cases): counted as one failure")
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
[ $lit_rc -eq 0 ] && [ $py_rc -eq 0 ] && [ $fuzz_rc -eq 0 ]
