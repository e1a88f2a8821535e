#!/usr/bin/env python3
"""Helper of cpu-summation-accuracy.test.

usage: check_summation.py make DIR         write the inputs
       check_summation.py check NAME DIR OUT  check OUT/result*.npy

Every check compares with a float64 reference and requires an error of at
most 1e-4 relative to the sum of |terms| (per output; prefix sums for
scans). It also checks that the input is hard: a sequential float32 sum
would miss that tolerance by far.
"""
import os
import sys

import numpy as np

TOL = 1e-4


def make(d):
    os.makedirs(d, exist_ok=True)
    t = np.float32(0.1)
    np.save(os.path.join(d, "x1.npy"), np.full(1000003, t, np.float32))
    np.save(os.path.join(d, "x2.npy"), np.full((1000, 1001), t, np.float32))
    np.save(os.path.join(d, "rows.npy"), np.full((3, 400001), t, np.float32))


def naive_err(terms32, ref, scale):
    seq = np.cumsum(terms32, dtype=np.float32, axis=-1)
    return np.max(np.abs(seq.astype(np.float64) - ref) / scale)


def check(name, d, out):
    res = [np.load(os.path.join(out, f"result{i}.npy")) for i in range(2)
           if os.path.exists(os.path.join(out, f"result{i}.npy"))]
    if name == "sum":
        x = -np.load(os.path.join(d, "x1.npy"))
        ref = x.astype(np.float64).sum()
        scale = np.abs(x.astype(np.float64)).sum()
        err = abs(float(res[0]) - ref) / scale
        hard = naive_err(x, np.cumsum(x.astype(np.float64)),
                         np.cumsum(np.abs(x.astype(np.float64))))
    elif name == "sum2d":
        x = -np.load(os.path.join(d, "x2.npy")).ravel()
        ref = 1000.0 + x.astype(np.float64).sum()
        scale = 1000.0 + np.abs(x.astype(np.float64)).sum()
        err = abs(float(res[0]) - ref) / scale
        if float(res[1]) != float(x.max()):
            print(f"FAIL {name}: max {float(res[1])!r}, expected {x.max()!r}")
            return 1
        hard = naive_err(np.concatenate([[np.float32(1000.0)], x]),
                         1000.0 + np.concatenate(
                             [[0.0], np.cumsum(x.astype(np.float64))]),
                         scale)
    elif name == "rows":
        x = -np.load(os.path.join(d, "rows.npy"))
        ref = x.astype(np.float64).sum(axis=1)
        scale = np.abs(x.astype(np.float64)).sum(axis=1)
        err = np.max(np.abs(res[0].astype(np.float64) - ref) / scale)
        hard = naive_err(x[0], np.cumsum(x[0].astype(np.float64)), scale[0])
    elif name == "custom":
        x = np.load(os.path.join(d, "x1.npy"))
        ref = x.astype(np.float64).sum()
        err = abs(float(res[0]) - ref) / ref
        hard = naive_err(x, ref, ref)
    elif name == "scan":
        x = -np.load(os.path.join(d, "x1.npy"))
        x64 = x.astype(np.float64)
        incl = np.cumsum(x64)
        excl = np.concatenate([[0.0], incl[:-1]])
        scale = np.cumsum(np.abs(x64))
        err = max(np.max(np.abs(res[0] - incl) / scale),
                  np.max(np.abs(res[1] - excl) / scale))
        if res[1][0] != 0.0:
            print(f"FAIL {name}: exclusive scan starts at {res[1][0]!r}")
            return 1
        hard = naive_err(x, incl, scale)
    else:
        print(f"unknown check {name}")
        return 2
    if hard < 10 * TOL:
        print(f"FAIL {name}: the input is too easy (naive error {hard:.3g})")
        return 1
    if not err <= TOL:
        print(f"FAIL {name} {out}: relative error {err:.3g} > {TOL:g} "
              f"(naive float32: {hard:.3g})")
        return 1
    print(f"OK {name} {out} {err:.3g}")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "make":
        make(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "check":
        return check(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
