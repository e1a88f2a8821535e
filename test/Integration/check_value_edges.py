#!/usr/bin/env python3
"""Inputs and checker of value-edges.test (Inputs/value-edges.mlir).

usage: check_value_edges.py gen DIR        writes DIR/<case>.npy
       check_value_edges.py check DIR...   each DIR: arg0.npy + result<i>.npy

References are NumPy, written independently of fuse, following fuse's
documented semantics (docs/dialect.md): float max/min propagate NaN
(np.maximum / np.max, not np.fmax / np.nanmax); the add reduction starts
from +0.0, and so does an inclusive add scan (a prefix of only -0.0 is
+0.0; NumPy's cumsum gives -0.0); a float32 add scan carries its prefix in float64 (so it is
checked against np.cumsum in float64 rounded to float32). Comparisons are
exact (NaN == NaN; zeros' signs compared) except exp and the float32 sum of
finite values (a few ulp / the blocked-sum tolerance). The sign of a zero
from max/min is not compared: arith-expand loses it (test/Python/
test_value_edges.py, xfail test_signed_zero_*).

Prints `OK value-edges DIR` per directory or `FAIL DIR: ...`, exits 1 on
any failure.
"""

import os
import sys

import numpy as np

F = np.float32
FI = np.finfo(F)
NAN, INF = np.nan, np.inf


def cases():
    edges = [NAN, INF, -INF, -0.0, 0.0, 1e-40, -1e-40, FI.tiny, FI.max,
             -FI.max, 1.0, -2.5, 0.5]
    long_nan = np.linspace(-1, 1, 3001).astype(F)
    long_nan[2000] = NAN                   # in the second 1024-block
    return {
        "edges": np.array(edges, F),
        "finite-edges": np.array([x for x in edges if not np.isnan(x)
                                  and abs(x) != INF], F),
        "long-nan": long_nan,
        "inf-minus-inf": np.array([1.0, INF, 2.0, -INF, 3.0], F),
        "overflow": np.array([FI.max, FI.max, -FI.max, -FI.max], F),
        "denormals": np.array([1e-40] * 41 + [1e-40, -1e-40] * 1500, F),
        "zeros": np.array([-0.0, -0.0, -0.0], F),
    }


def same(got, ref, what, signed_zero=True):
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype != ref.dtype or got.shape != ref.shape:
        raise AssertionError("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, ref.dtype, ref.shape))
    bad = ~((got == ref) | (np.isnan(got) & np.isnan(ref)))
    if signed_zero:
        bad |= (ref == 0) & (np.signbit(got) != np.signbit(ref))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise AssertionError("%s: element %d is %r, expected %r" % (
            what, i, got.ravel()[i], ref.ravel()[i]))


def check(d):
    x = np.load(os.path.join(d, "arg0.npy"))
    r = [np.load(os.path.join(d, "result%d.npy" % i)) for i in range(10)]
    with np.errstate(all="ignore"):
        same(r[0], x * x, "x*x")
        e = np.exp(x)
        special = ~np.isfinite(e) | (e == 0)
        same(r[1][special], e[special], "exp special values")
        np.testing.assert_allclose(r[1][~special], e[~special], rtol=4e-7)
        same(r[2], np.sqrt(x), "sqrt")
        same(r[3], np.where(x < 0, F(0), x), "select(x < 0, 0, x)")
        ref_sum = np.add.reduce(x, initial=F(0))
        if np.isfinite(ref_sum) and np.isfinite(x).all():
            # finite: the blocked float32 sum against float64
            s64 = x.astype(np.float64).sum()
            assert abs(r[4] - s64) <= 1e-5 * np.abs(x.astype(np.float64)).sum() \
                + 1e-45, ("sum", r[4], s64)
        else:
            same(r[4], ref_sum, "sum")
        same(r[5], np.max(x), "max", signed_zero=False)
        same(r[6], np.min(x), "min", signed_zero=False)
        # i (+) x0 (+) ... with i = +0.0: a leading -0.0 gives +0.0, where
        # np.cumsum gives -0.0.
        same(r[7], (0.0 + np.cumsum(x.astype(np.float64))).astype(F),
             "add scan")
        same(r[8], np.maximum.accumulate(x), "max scan", signed_zero=False)
        same(r[9], x[x > 0], "filter x > 0")
    assert not np.isnan(r[9]).any() and not (r[9] == 0).any()


def main():
    if sys.argv[1] == "gen":
        os.makedirs(sys.argv[2], exist_ok=True)
        for name, x in cases().items():
            np.save(os.path.join(sys.argv[2], name + ".npy"), x)
        return 0
    failed = False
    for d in sys.argv[2:]:
        try:
            check(d)
            print("OK value-edges %s" % d)
        except AssertionError as e:
            failed = True
            print("FAIL %s: %s" % (d, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
