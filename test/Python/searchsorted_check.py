"""GPU checks of fuse.searchsorted, run by gpu_check.py: a binary search
per needle, fused into the groups around it. NumPy's np.searchsorted is the
reference, exactly: sorted arrays of 0, 1, 31 and 1000003 elements with
ties, NaN (last), infinities and both zeros, integers at the ends of their
ranges (unsigned ones compared as unsigned), needles drawn from the same
values (exact hits) and around them, both sides, needles computed by a map
and positions reduced after the search (one group), and a sorter. The data
and the functions are shared with the CPU tests (test_searchsorted.py).
fuse.compute.lower_bound/upper_bound (cuda.compute's arguments) on device
arrays, with an array and a TransformIterator of needles."""

import numpy as np

import fuse
import fuse.compute as fc
from sort_check import DTYPES, SIZES, data
from check_util import checker


@fuse.jit
def ss_left(a, v):
    return fuse.searchsorted(a, v)


@fuse.jit
def ss_right(a, v):
    return np.searchsorted(a, v, side="right")


@fuse.jit
def ss_fused(a, v):
    """Needles from a map, positions into a map: one group."""
    return fuse.searchsorted(a, v * 2.0, side="right") * 3 + 1


@fuse.jit
def ss_count(a, v):
    """Positions into a reduction: one reduce group."""
    return (fuse.searchsorted(a, v * 2.0, side="right") < 5).sum()


@fuse.jit
def ss_sorter(a, v, s):
    return np.searchsorted(a, v, sorter=s)


def needles_for(dt, n, a):
    """Needles for the sorted array `a`: half of them its own values (ties
    at every run of equal elements), half data of the same kind; at least
    31 and at most 1000003 of them."""
    m = 1000003 if n <= 31 else 4099
    v = data(dt, m, seed=7)
    if len(a):
        rng = np.random.default_rng(11 + n)
        pick = rng.random(m) < 0.5
        v[pick] = rng.choice(a, int(pick.sum()))
    return v


def cases():
    """(name, sorted array, needles) over DTYPES x SIZES."""
    for dt in DTYPES:
        for n in SIZES:
            a = np.sort(data(dt, n), kind="stable")
            yield "%s n=%d" % (np.dtype(dt).name, n), a, needles_for(dt, n, a)


def fused_reference(a, v):
    p = np.searchsorted(a, v * np.float32(2.0), side="right")
    return p * 3 + 1, (p < 5).sum()


def searchsorted_checks(B, numeric, ctx):
    """ctx: gpu_check's run_check, exact and Mismatch."""
    H = B.host

    chk = checker(B, numeric, ctx, "searchsorted ")

    for name, a, v in cases():
        da, dv = B.dev(a), B.dev(v)
        left = np.searchsorted(a, v, side="left")
        right = np.searchsorted(a, v, side="right")
        chk("left " + name, lambda da=da, dv=dv: ss_left(da, dv),
            lambda g, left=left: ctx.exact(H(g), left))
        chk("right " + name, lambda da=da, dv=dv: ss_right(da, dv),
            lambda g, right=right: ctx.exact(H(g), right))
    a = np.sort(data(np.float32, 1000003, seed=3))
    v = data(np.float32, 1000003, seed=4)
    da, dv = B.dev(a), B.dev(v)
    want = fused_reference(a, v)

    chk("fused with maps n=1000003", lambda: ss_fused(da, dv),
        lambda g: ctx.exact(H(g), want[0]))
    chk("fused into a reduction n=1000003", lambda: ss_count(da, dv),
        lambda g: ctx.exact(np.asarray(H(g)), np.asarray(want[1])))
    u = data(np.float32, 100003, seed=5)
    s = np.argsort(u, kind="stable")
    du, ds = B.dev(u), B.dev(s)
    chk("sorter n=100003", lambda: ss_sorter(du, dv, ds),
        lambda g: ctx.exact(H(g), np.searchsorted(u, v, sorter=s)))


def compute_search(which, a, v, out, m=None, n=None, half=False):
    """fuse.compute.lower_bound or upper_bound of v (or v * 0.5 through a
    TransformIterator) in a[:m], into out[:n]."""
    m = len(a) if m is None else m
    n = len(v) if n is None else n
    vals = fc.TransformIterator(v, lambda x: x * 0.5) if half else v
    getattr(fc, which)(d_data=a, num_items=m, d_values=vals, num_values=n,
                       d_out=out)
    return out


def compute_checks(B, numeric, ctx):
    """lower_bound/upper_bound on B's arrays against np.searchsorted."""
    H = B.host
    rng = np.random.default_rng(2)
    a = np.sort(rng.normal(size=100003).astype(np.float32))
    v = rng.normal(size=4097).astype(np.float32)
    da, dv = B.dev(a), B.dev(v)
    for which, side in (("lower_bound", "left"), ("upper_bound", "right")):
        for half in (False, True):
            want = np.searchsorted(a[:50001], v * np.float32(0.5) if half
                                   else v, side=side)
            out = B.empty((4097,), np.int64)
            ctx.run_check(
                "%s compute.%s%s n=4097" % (B.name, which,
                                           " of an iterator" if half
                                           else ""),
                lambda out=out, which=which, half=half: compute_search(
                    which, da, dv, out, m=50001, half=half),
                (lambda g, want=want: ctx.exact(H(g), want))
                if numeric else None)
