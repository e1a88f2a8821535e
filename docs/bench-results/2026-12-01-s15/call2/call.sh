#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-.device/results}; mkdir -p $OUT
start=$(date +%s)
FUSE_GPU_SUITES="codegen" FUSE_GPU_DEADLINE=190 timeout 200 scripts/gpu/run-all.sh > $OUT/run-all.log 2>&1
echo "suites rc=$? in $(( $(date +%s) - start )) s"; tail -1 $OUT/run-all.log
grep -i "fail" $OUT/codegen.log | grep -v "0 failed" | head -10
for s in "3486104 77 2" "2080892 129 2" "8134407 33 1" "1073741 250 1" "349525 768 1" "65536 4096 1"; do set -- $s
  timeout 80 scripts/gpu/run-variants.sh $3 --reps=30 --rows=$1 --cols=$2 2>&1 | sed "s/^/$1x$2 /" >> $OUT/variants.txt
  echo "variants $1x$2 at $(( $(date +%s) - start )) s"
done
cd $OUT
python3 - <<'PY'
import re, collections
d = collections.defaultdict(list)
for line in open('variants.txt'):
    m = re.match(r'(\S+) (\S+) \[([^]]*)\]', line)
    g = re.search(r'"gib_s": *([0-9.]+)', line); ok = re.search(r'"ok": *(\w+)', line)
    if m: d[(m.group(1), m.group(2), m.group(3))].append((g.group(1) if g else '-') + ('' if ok and ok.group(1) == 'true' else '!'))
for k in sorted(d): print(*k, *d[k])
PY
