#!/usr/bin/env bash
# Packs a GPU call's results into one archive: every file under DIR
# (default $OUT) goes into DIR/results.tar.gz, and the files packed are
# removed. For machines from which a call brings back only a few files:
# the benchmark alone writes a dozen (run-bench.sh), the suites one log
# each and more (run-all.sh). Unpack with `tar xzf results.tar.gz`.
# Usage: scripts/gpu/pack-out.sh [DIR]
set -euo pipefail
dir="${1:-${OUT:-}}"
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
  echo "pack-out: no folder to pack (give DIR or set OUT)" >&2
  exit 2
fi
cd "$dir"
rm -f results.tar.gz
# Everything but the archive itself, listed first so that files written
# while packing are left alone rather than half-packed.
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
find . -mindepth 1 \( -type f -o -type l \) ! -name results.tar.gz -print > "$list"
if [ ! -s "$list" ]; then
  echo "pack-out: nothing to pack in $dir" >&2
  exit 0
fi
tar czf results.tar.gz -T "$list"
# Only what was packed is removed (xargs -d: names with spaces).
xargs -d '\n' rm -f < "$list"
find . -mindepth 1 -type d -empty -delete
echo "pack-out: $(wc -l < "$list") files -> $dir/results.tar.gz"
