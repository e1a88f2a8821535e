#!/usr/bin/env python3
"""Writes fuse-fuzz's seed corpus: every examples/*.mlir and test/**/*.mlir
file of the source tree, split at `// -----` like `-split-input-file`, one
seed file per chunk (named by content hash, so reruns add nothing twice).
RUN/CHECK comment lines are dropped: the fuzzer mutates IR, not comments.

usage: make-seeds.py SRC_ROOT OUT_DIR [--max-len N]
"""
import argparse
import hashlib
import os
import pathlib
import re
import sys

SPLIT = re.compile(r"^// -----.*$", re.M)
COMMENT = re.compile(r"^\s*//.*\n?", re.M)


def chunks(text):
    for part in SPLIT.split(text):
        part = COMMENT.sub("", part).strip()
        if part:
            yield part + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--max-len", type=int, default=8192,
                    help="skip chunks longer than this (bytes)")
    args = ap.parse_args()
    src = pathlib.Path(args.src)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = sorted(src.glob("examples/**/*.mlir")) + sorted(
        src.glob("test/**/*.mlir"))
    n = skipped = 0
    for f in files:
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for c in chunks(text):
            data = c.encode()
            if len(data) > args.max_len:
                skipped += 1
                continue
            name = hashlib.sha1(data).hexdigest()
            (out / name).write_bytes(data)
            n += 1
    print(f"make-seeds: {n} seeds from {len(files)} files"
          f" ({skipped} over {args.max_len} bytes skipped) in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
