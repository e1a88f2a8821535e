#!/usr/bin/env bash
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-.device/results}; mkdir -p $OUT
start=$(date +%s)
FUSE_GPU_SUITES="codegen fuse-run diff python" FUSE_GPU_DEADLINE=260 timeout 275 scripts/gpu/run-all.sh > $OUT/run-all.log 2>&1
echo "suites rc=$? in $(( $(date +%s) - start )) s"; tail -6 $OUT/run-all.log
grep -i "fail" $OUT/codegen.log | grep -v "0 failed" | head -10
for s in "8134407 33" "349525 768" "2080892 129" "2097152 128" "268435 1000"; do set -- $s
  timeout 25 scripts/gpu/run-variants.sh 1 --reps=30 --rows=$1 --cols=$2 2>&1 | sed "s/^/$1x$2 /" >> $OUT/variants.txt
done
echo "variants at $(( $(date +%s) - start )) s"
python3 - <<'PY'
import re, collections, os
d = collections.defaultdict(list)
for line in open(os.environ['OUT'] + '/variants.txt'):
    m = re.match(r'(\S+) (\S+) \[([^]]*)\]', line)
    g = re.search(r'"gib_s": *([0-9.]+)', line); ok = re.search(r'"ok": *(\w+)', line)
    if m: d[(m.group(1), m.group(2))].append((g.group(1) if g else '-') + ('' if ok and ok.group(1) == 'true' else '!'))
for k in sorted(d): print(*k, *d[k])
PY
cd $OUT && tar czf logs.tgz $(ls | grep -v -e '\.tgz$' -e variants.txt -e run-all.log) 2>/dev/null
