"""The comparisons of the GPU checks (gpu_check.py and the check modules
it runs): each raises Mismatch with what differs. Pure functions, shared by
import, so that every module raises the one Mismatch class gpu_check's
run_check catches."""

import numpy as np

import edge_cases as E

class Mismatch(Exception):
    pass


def checker(B, numeric, ctx, prefix=""):
    """The chk(name, fn, verify) of a check section on backend B: runs fn
    through ctx.run_check (gpu_check's) as "<backend> <prefix><name>",
    and verifies the result only with `numeric` (compile-only runs just
    make the calls)."""
    def chk(name, fn, verify):
        ctx.run_check("%s %s%s" % (B.name, prefix, name), fn,
                      verify if numeric else None)
    return chk


def at_offset(B, x):
    """x on B's device starting one element into its allocation (not
    16-byte aligned); the stand-in (compile-only) takes it as it is."""
    if B.name == "standin":
        return B.dev(x)
    return B.dev(np.concatenate([x[:1], x]))[1:]


def close(got, ref, rtol, atol=0.0):
    got = np.asarray(got)
    ref = np.asarray(ref)
    if got.shape != ref.shape:
        raise Mismatch("shape %s, expected %s" % (got.shape, ref.shape))
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.float64) - ref)
        bad = ~(err <= atol + rtol * np.abs(ref))
        bad &= ~(np.isnan(got) & np.isnan(ref))
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise Mismatch("%d of %d off (first at %d: %r, expected %r)" % (
            bad.sum(), ref.size, i, got.flat[i], ref.flat[i]))


def f32(got):
    if np.asarray(got).dtype != np.float32:
        raise Mismatch("dtype %s, expected float32" % np.asarray(got).dtype)


def same(got, ref, what):
    d = E.same_diff(got, ref)
    if d is not None:
        raise Mismatch("%s: %s" % (what, d))


def near(got, ref, rtol, atol, what):
    """NaN, infinities and zeros of ref exactly (sign of zero included);
    finite non-zero values within rtol * |ref| + atol."""
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype != ref.dtype or got.shape != ref.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, ref.dtype, ref.shape))
    special = ~np.isfinite(ref) | (ref == 0)
    same(got[special], ref[special], what + " (NaN/inf/zero)")
    g = got[~special].astype(np.float64)
    r = ref[~special].astype(np.float64)
    with np.errstate(all="ignore"):
        bad = ~(np.abs(g - r) <= rtol * np.abs(r) + atol)
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise Mismatch("%s: %d of %d off by more than %g rel (first: %r, "
                       "expected %r)" % (what, bad.sum(), r.size, rtol, g[i],
                                         r[i]))


def exact(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype != ref.dtype or got.shape != ref.shape:
        raise Mismatch("%s %s, expected %s %s" % (got.dtype, got.shape,
                                                  ref.dtype, ref.shape))
    if not np.array_equal(got, ref):
        i = np.flatnonzero(got.ravel() != ref.ravel())[0]
        raise Mismatch("%d of %d differ (first at %d: %r, expected %r)" % (
            (got.ravel() != ref.ravel()).sum(), ref.size, i, got.flat[i],
            ref.flat[i]))
