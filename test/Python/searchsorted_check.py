"""GPU checks of fuse.searchsorted, run by gpu_check.py: a binary search
per needle, fused into the groups around it. NumPy's np.searchsorted is the
reference, exactly: sorted arrays of 0, 1, 31 and 1000003 elements with
ties, NaN (last), infinities and both zeros, integers at the ends of their
ranges (unsigned ones compared as unsigned), needles drawn from the same
values (exact hits) and around them, both sides, needles computed by a map
and positions reduced after the search (one group), and a sorter. The data
and the functions are shared with the CPU tests (test_searchsorted.py)."""

import numpy as np

import fuse
from sort_check import DTYPES, SIZES, data


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

    def chk(name, fn, verify):
        ctx.run_check("%s searchsorted %s" % (B.name, name), fn,
                      verify if numeric else None)

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
