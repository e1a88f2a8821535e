#!/usr/bin/env python3
"""Checks fuse-run results of an example pipeline against NumPy.

usage: check_example.py NAME DIR [DIR ...]

Each DIR holds the inputs fuse-run used (arg<i>.npy, from --save-inputs)
and its results (result<i>.npy, from --out). The references below are
written independently of fuse, in float64, from the definitions in
shared/WORKLOADS.md. Tolerances:

  - maps: per element, |out - ref| <= 1e-6 * scale, where scale is the sum
    of the magnitudes of the terms of the last operation (a relative error
    with a floor that follows the operands, so results near 0 from
    cancellation are judged against what was added);
  - reductions and scans: |out - ref| <= 1e-4 * sum(|terms|) (for scans,
    per element with the prefix sum of |terms|), as shared/WORKLOADS.md
    asks. Sums near 0 would make a plain relative error meaningless. A
    naive float32 loop over 10^6 positive terms drifts by ~4e-4 relative
    and fails; the CPU backend's blocked sums and float64-carried scans
    (docs/dialect.md, Numerics) pass;
  - row-wise softmax / logsumexp: 1e-5 relative to the row's scale (a
    reduction over ~1000 terms inside);
  - copy and select: exact (values, order and count).

Prints one `OK NAME DIR max-error-ratio` line per directory, or a
`FAIL ...` line with the worst element, and exits 1 on any failure.
"""

import os
import sys

import numpy as np

TINY = 1e-30


def load_all(d, prefix):
    out = []
    i = 0
    while os.path.exists(os.path.join(d, f"{prefix}{i}.npy")):
        out.append(np.load(os.path.join(d, f"{prefix}{i}.npy")))
        i += 1
    return out


class Failure(Exception):
    pass


def expect_meta(out, dtype, shape):
    if out.dtype != np.dtype(dtype):
        raise Failure(f"dtype {out.dtype}, expected {np.dtype(dtype)}")
    if tuple(out.shape) != tuple(shape):
        raise Failure(f"shape {out.shape}, expected {tuple(shape)}")


def sum_tolerance(terms64):
    """(ref, scale) for a full float32 sum; see the module docstring."""
    return terms64.sum(), np.abs(terms64).sum()


def within(out, ref, scale, tol):
    """Returns the worst |out-ref|/(tol*scale) (<= 1 passes); NaN == NaN."""
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), ref.shape)
    if ref.size == 0:
        return 0.0
    nan_ref = np.isnan(ref)
    if np.any(np.isnan(out) != nan_ref):
        i = np.flatnonzero((np.isnan(out) != nan_ref).ravel())[0]
        raise Failure(f"NaN mismatch at flat index {i}: out "
                      f"{out.ravel()[i]!r}, ref {ref.ravel()[i]!r}")
    inf_ref = np.isinf(ref)
    if np.any(inf_ref & (out != ref)):
        i = np.flatnonzero((inf_ref & (out != ref)).ravel())[0]
        raise Failure(f"infinity mismatch at flat index {i}: out "
                      f"{out.ravel()[i]!r}, ref {ref.ravel()[i]!r}")
    ok = ~(nan_ref | inf_ref)
    err = np.zeros(ref.shape)
    err[ok] = np.abs(out[ok] - ref[ok]) / (tol * np.maximum(scale[ok], TINY))
    worst = float(err.max())
    if worst > 1.0:
        i = int(np.argmax(err.ravel()))
        raise Failure(f"flat index {i}: out {out.ravel()[i]!r}, ref "
                      f"{ref.ravel()[i]!r}, error {worst:.3g}x the "
                      f"tolerance {tol:g} * scale {scale.ravel()[i]:.6g}")
    return worst


def f64(a):
    return a.astype(np.float64)


def check_copy(args, outs):
    (x,), (y,) = args, outs
    expect_meta(y, np.float32, x.shape)
    if not np.array_equal(x.view(np.uint32), y.view(np.uint32)):
        raise Failure("copy differs from its input")
    return 0.0


def check_sumsq(args, outs):
    (x,), (s,) = args, outs
    expect_meta(s, np.float32, ())
    ref, scale = sum_tolerance(f64(x) ** 2)
    return within(s, ref, scale, 1e-4)


def check_dot(args, outs):
    (x, y), (s,) = args, outs
    if x.shape != y.shape:
        raise Failure("inputs of different shapes")
    expect_meta(s, np.float32, ())
    ref, scale = sum_tolerance(f64(x) * f64(y))
    return within(s, ref, scale, 1e-4)


def check_chain(args, outs):
    (x,), (y,) = args, outs
    expect_meta(y, np.float32, x.shape)
    xd = f64(x)
    half_relu = np.maximum(1.5 * xd + 0.25, 0.0) * 0.5
    ref = half_relu + xd
    return within(y, ref, np.abs(half_relu) + np.abs(xd), 1e-6)


def check_scan(args, outs):
    (x,), (y,) = args, outs
    expect_meta(y, np.float32, x.shape)
    terms = f64(x) ** 2
    ref = np.cumsum(terms)
    scale = np.cumsum(np.abs(terms))
    return within(y, ref, scale, 1e-4)


def check_select(args, outs):
    (x,), (y,) = args, outs
    ref = x[x > 0]
    expect_meta(y, np.float32, ref.shape)  # the count is the size
    if not np.array_equal(ref.view(np.uint32), y.view(np.uint32)):
        raise Failure("selected values differ")
    return 0.0


def check_softmax_rows(args, outs):
    (x,), (y,) = args, outs
    expect_meta(y, np.float32, x.shape)
    xd = f64(x)
    if xd.shape[1] == 0:
        return 0.0
    e = np.exp(xd - xd.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    return within(y, ref, ref, 1e-5)


def check_logsumexp_rows(args, outs):
    (x,), (y,) = args, outs
    expect_meta(y, np.float32, x.shape[:1])
    xd = f64(x)
    if xd.shape[1] == 0:
        # An empty row: max = -inf, sum = 0, log(0) + -inf = -inf.
        return within(y, np.full(xd.shape[0], -np.inf), 1.0, 1e-5)
    m = xd.max(axis=1)
    s = np.exp(xd - m[:, None]).sum(axis=1)
    ref = np.log(s) + m
    return within(y, ref, np.abs(np.log(s)) + np.abs(m), 1e-5)


def check_variance(args, outs):
    (x,), (v,) = args, outs
    expect_meta(v, np.float32, ())
    xd = f64(x)
    if xd.size == 0:
        ref = np.nan  # 0/0, as numpy.var of an empty array
        return within(v, ref, 1.0, 1e-4)
    terms = (xd - xd.mean()) ** 2
    ref = terms.mean()
    return within(v, ref, np.abs(terms).mean(), 1e-4)


CHECKS = {
    "copy": check_copy,
    "sumsq": check_sumsq,
    "sumsq_small": check_sumsq,
    "dot": check_dot,
    "chain": check_chain,
    "scan": check_scan,
    "select": check_select,
    "softmax_rows": check_softmax_rows,
    "logsumexp_rows": check_logsumexp_rows,
    "variance": check_variance,
}


def main(argv):
    if len(argv) < 3 or argv[1] not in CHECKS:
        print(__doc__, file=sys.stderr)
        print("names: " + ", ".join(sorted(CHECKS)), file=sys.stderr)
        return 2
    name, dirs = argv[1], argv[2:]
    failed = False
    for d in dirs:
        args, outs = load_all(d, "arg"), load_all(d, "result")
        if not args or not outs:
            print(f"FAIL {name} {d}: no arg*.npy or result*.npy")
            failed = True
            continue
        try:
            with np.errstate(all="ignore"):
                worst = CHECKS[name](args, outs)
            print(f"OK {name} {d} {worst:.3f}")
        except (Failure, ValueError) as e:
            print(f"FAIL {name} {d}: {e}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
