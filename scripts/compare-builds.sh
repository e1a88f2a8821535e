#!/usr/bin/env bash
# Do two builds of fuse compile the same programs to the same bytes?
# For changes that should not change the generated code (compile-time
# work, refactoring): compiles every program of a corpus with both builds'
# fuse-compile (--emit=all: PTX, cubin, object, header) and compares the
# outputs byte for byte.
#
# Corpus: examples/*.mlir, test/Integration/GPU/extra/*.mlir and the
# random programs of scripts/gen-pipelines.py for SEEDS (default 100:200).
#
# Usage: scripts/compare-builds.sh OLD_BIN NEW_BIN [SEEDS]
#   OLD_BIN, NEW_BIN  directories holding fuse-compile (e.g. a copy of
#                     build/bin made before the change, and build/bin)
# Prints one line per differing or failing program and a summary
# `compare-builds: N programs, N files identical, N differ, N failed`;
# exits 1 when any output differs or only one build fails a program.
set -u
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
old="$1"; new="$2"; seeds="${3:-100:200}"
if ! [[ $seeds =~ ^[0-9]+:[0-9]+$ ]]; then
  echo "compare-builds: SEEDS '$seeds' is not A:B" >&2
  exit 2
fi
for b in "$old" "$new"; do
  if [ ! -x "$b/fuse-compile" ]; then
    echo "compare-builds: $b/fuse-compile not found" >&2
    exit 2
  fi
done
command -v ptxas >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
work="$(mktemp -d "${TMPDIR:-/tmp}/fuse-compare.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
cp "$root"/examples/*.mlir "$work/corpus/"
for f in "$root"/test/Integration/GPU/extra/*.mlir; do
  cp "$f" "$work/corpus/extra_$(basename "$f")"
done
first="${seeds%%:*}"; last="${seeds##*:}"
for ((s = first; s < last; ++s)); do
  python3 "$root/scripts/gen-pipelines.py" --emit "$s" \
    > "$work/corpus/random_$s.mlir" 2>/dev/null || rm -f "$work/corpus/random_$s.mlir"
done

programs=0; same=0; differ=0; failed=0
# The same output name for both (the header guard is made of it).
mkdir -p "$work/old" "$work/new"
for f in "$work"/corpus/*.mlir; do
  n="$(basename "$f" .mlir)"
  programs=$((programs + 1))
  "$old/fuse-compile" "$f" --emit=all --prefix=fx_ -o "$work/old/$n" \
    >/dev/null 2>&1; rc_old=$?
  "$new/fuse-compile" "$f" --emit=all --prefix=fx_ -o "$work/new/$n" \
    >/dev/null 2>&1; rc_new=$?
  if [ $rc_old -ne 0 ] || [ $rc_new -ne 0 ]; then
    # A program both builds reject (e.g. a random program the GPU code
    # generator does not take) is the same outcome.
    if [ $rc_old -ne $rc_new ]; then
      echo "failed: $n (old exit $rc_old, new exit $rc_new)"
      failed=$((failed + 1))
    fi
    continue
  fi
  for ext in ptx cubin o h; do
    if cmp -s "$work/old/$n.$ext" "$work/new/$n.$ext"; then
      same=$((same + 1))
    else
      echo "differs: $n.$ext"
      differ=$((differ + 1))
    fi
  done
done
echo "compare-builds: $programs programs, $same files identical, $differ differ, $failed failed"
[ $differ -eq 0 ] && [ $failed -eq 0 ]
