#!/usr/bin/env python3
"""Summarises scripts/gpu/run-variants.sh output: one line per (label,
variant), its options and the GiB/s of each round in order ('!' marks a
run whose result check failed, '-' a run without a JSON line).

Usage: summarize-variants.py [FILE]...   (default: standard input)
Lines look like `[LABEL ]NAME-vK [OPTIONS] PTXAS... {json}`; LABEL is
run-variants.sh's VARIANTS_LABEL (e.g. the shape)."""
import collections
import fileinput
import json
import re
import sys

LINE = re.compile(r'^(?:(\S+) )?(\S+-v\d+) \[([^]]*)\]')


def main():
    runs = collections.OrderedDict()
    for line in fileinput.input(sys.argv[1:]):
        m = LINE.match(line)
        if not m:
            continue
        label, variant, options = m.group(1) or '', m.group(2), m.group(3)
        brace = line.find('{')
        cell = '-'
        if brace >= 0:
            try:
                rec = json.loads(line[brace:])
                cell = '%.1f%s' % (rec['gib_s'], '' if rec.get('ok') else '!')
            except (ValueError, KeyError, TypeError):
                cell = '?'
        runs.setdefault((label, variant, options), []).append(cell)
    for (label, variant, options), cells in runs.items():
        print(' '.join(x for x in (label, variant, '[%s]' % options) if x),
              ' '.join(cells))


if __name__ == '__main__':
    main()
