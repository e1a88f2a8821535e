#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-.device/results}; mkdir -p $OUT
start=$(date +%s)
for s in "3486104 77 2" "2080892 129 1" "1073741 250 1"; do set -- $s
  timeout 130 scripts/gpu/run-variants.sh $3 --reps=30 --rows=$1 --cols=$2 2>&1 | sed "s/^/$1x$2 /" >> $OUT/variants.txt
  echo "variants $1x$2 at $(( $(date +%s) - start )) s"
done
BENCH_ROUNDS=0 BENCH_WIDTHS="2080892x129 1073741x250 8134407x33" timeout 240 scripts/gpu/run-bench.sh .device/bench $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at $(( $(date +%s) - start )) s"
cd $OUT && tar czf bench.tgz bench && rm -rf bench
python3 - <<'PY'
import re, collections
d = collections.defaultdict(list)
for line in open('variants.txt'):
    m = re.match(r'(\S+) (\S+) \[([^]]*)\]', line)
    g = re.search(r'"gib_s": *([0-9.]+)', line); ok = re.search(r'"ok": *(\w+)', line)
    if m: d[(m.group(1), m.group(2), m.group(3))].append((g.group(1) if g else '-') + ('' if ok and ok.group(1) == 'true' else '!'))
for k in sorted(d): print(*k, *d[k])
PY
tail -30 bench.log
