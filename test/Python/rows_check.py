"""GPU checks of row pipelines beyond the benchmark's softmax: layer norm
over rows with a per-column scale and bias (row groups with extra vector
inputs), and softmax over the last axis of rank-3 arrays (batch x heads x
columns); float32, float16 and bfloat16 (CuPy: no bfloat16); reductions
over a leading or middle axis (the line kernels, lines split into
chunks); run by gpu_check.py, and on the CPU backend by test_half.py.

The references round as the pipelines do, step by step in the array's
type (NumPy's float16 and ml_dtypes' bfloat16 arithmetic round each
operation; means are f32 sums and divisions rounded once, fuse's rule),
so the tolerance is a few units in the last place of the type, relative
to the result's magnitude plus one (layer norm's outputs are O(1), and a
mean rounded one ulp apart moves the centred values near zero by that
ulp, not by a relative amount)."""

import numpy as np

import fuse
from check_util import Mismatch, checker
from half_check import half_dtypes

# Rows past the block's registers (4096 float32): 4099 and 20483 staged
# in shared memory, 12288, 16383 and 16384 in the wide register-path
# kernel (8193-16384 float32; on and off the vector path, its edge),
# 65541 (256 KiB of float32) walked from global memory.
LN_SHAPES = [(1, 1), (3, 129), (1000, 37), (257, 4096), (64, 4099),
             (9, 12288), (7, 16383), (3, 16384), (3, 20483), (3, 65541)]
# Layer norm rows with non-finite or overflowing values (layernorm_edge):
# the register paths, staged and long rows.
LN_EDGE_SHAPES = [(5, 300), (5, 4099), (5, 20483), (5, 65541)]
RANK3_SHAPES = [(1, 1, 1), (2, 3, 129), (4, 8, 1024), (16, 12, 4099),
                (2, 3, 12289), (2, 3, 40000)]


@fuse.jit
def layernorm_rows(x, w, b):
    m = x.mean(axis=1, keepdims=True)
    d = x - m
    v = (d * d).mean(axis=1, keepdims=True)
    return d / np.sqrt(v + 1e-5) * w + b


@fuse.jit
def softmax_last(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@fuse.jit
def scattered_axes(x, k):
    """Reductions of rank-3 float32 x over two axes (fuse-split-reductions
    splits (0, 2) on the GPU; (0, 1) and (1, 2) are edge blocks) and of
    rank-4 int32 k over scattered and interior axes."""
    return (x.sum(axis=(0, 2)), x.max(axis=(0, 2)), x.sum(axis=(0, 1)),
            x.sum(axis=(1, 2)), k.max(axis=(1, 2)), k.min(axis=(0, 2, 3)),
            k.max(axis=(0, 1, 3)))


@fuse.jit
def rows_computed(x, src, idx, edges):
    """Row groups whose body computes positions or reads at them: the
    column index (an iota broadcast along the rows), a gather of a table
    at an index matrix, a searchsorted in sorted edges, each reduced per
    row, and a row maximum read back by a rank-2 epilogue."""
    col = fuse.iota(x.shape[1], np.float32)
    return ((x * col).sum(axis=1), (fuse.gather(src, idx) * x).sum(axis=1),
            fuse.searchsorted(edges, x).sum(axis=1),
            x - (x + col).max(axis=1, keepdims=True))


def rows_computed_verify(B, got, x, src, idx, edges):
    """Sums within n float32 roundings of their sum of |terms|; the counts
    and the epilogue exact (x + col rounds to float32 once, as here)."""
    col = np.arange(x.shape[1], dtype=np.float32)
    inside = (idx >= 0) & (idx < src.size)
    g = np.where(inside, src[np.clip(idx, 0, src.size - 1)], 0)
    terms = [x.astype(np.float64) * col, g.astype(np.float64) * x]
    a, b, c, d = (np.asarray(B.host(v)) for v in got)
    for name, v, t in (("iota", a, terms[0]), ("gather", b, terms[1])):
        tol = np.abs(t).sum(axis=1) * x.shape[1] * 2.0 ** -23 + 1e-30
        if v.shape != (x.shape[0],) or (
                np.abs(v.astype(np.float64) - t.sum(axis=1)) > tol).any():
            raise Mismatch("rows with %s: %r, expected %r"
                           % (name, v[:4], t.sum(axis=1)[:4]))
    cref = np.searchsorted(edges, x).sum(axis=1)
    if c.dtype != np.int64 or not np.array_equal(c, cref):
        raise Mismatch("rows with searchsorted: %r %r, expected %r"
                       % (c.dtype, c[:4], cref[:4]))
    dref = x - (x + col).max(axis=1, keepdims=True)
    if not np.array_equal(d, dref):
        raise Mismatch("epilogue with iota: %d of %d differ"
                       % ((d != dref).sum(), d.size))


ROWS_COMPUTED_SHAPES = [(1, 1), (5, 33), (1003, 129), (31, 4099), (3, 70001)]


@fuse.jit
def leading_axes(x, k):
    """Reductions of float32 x over its first axis (sums, maxima, means)
    and of int32 k over its middle one: line reductions, each line split
    into chunks folded apart when there are too few lines to fill the
    GPU (the host's choice from the sizes)."""
    return x.sum(axis=0), x.max(axis=0), x.mean(axis=0), k.sum(axis=1)


@fuse.jit
def relu_column_sums(x):
    """max(x, 0) and its sums over the first axis: a line reduction that
    stores its input's map as it passes each element."""
    y = np.maximum(x, 0)
    return y.sum(axis=0), y


def relu_column_verify(B, got, x):
    """The map exact, the sums within n float32 roundings of the sum."""
    y = np.maximum(x, 0)
    g = np.asarray(B.host(got[1]))
    if g.shape != y.shape or not np.array_equal(g, y):
        raise Mismatch("relu: %s, expected %s, or values differ"
                       % (g.shape, y.shape))
    y64 = y.astype(np.float64)
    bound = y64.sum(axis=0) * max(x.shape[0], 1) * 2.0 ** -23 + 1e-30
    s = np.asarray(B.host(got[0])).astype(np.float64)
    if s.shape != bound.shape or (np.abs(s - y64.sum(axis=0)) > bound).any():
        raise Mismatch("column sums of relu: beyond their rounding")


def leading_verify(B, got, x, k):
    """Sums and means within their rounding (n float32 additions relative
    to the sum of |x| along the axis), maxima and integer sums exact."""
    x64 = x.astype(np.float64)
    n = max(x.shape[0], 1)
    bound = np.abs(x64).sum(axis=0) * n * 2.0 ** -23 + 1e-30
    ref = (x64.sum(axis=0), x.max(axis=0) if x.shape[0] else None,
           x64.sum(axis=0) / n, k.astype(np.int64).sum(axis=1))
    tols = (bound, None, bound / n, None)
    for i, (g, r, tol) in enumerate(zip(got, ref, tols)):
        if r is None:
            continue
        g = np.asarray(B.host(g))
        if g.shape != r.shape:
            raise Mismatch("result %d: shape %s, expected %s"
                           % (i, g.shape, r.shape))
        bad = (np.abs(g.astype(np.float64) - r) > tol) if tol is not None \
            else g != r
        if bad.any():
            j = np.flatnonzero(bad.ravel())[0]
            raise Mismatch("result %d: %d of %d differ (first at %d: %r, "
                           "expected %r)" % (i, bad.sum(), bad.size, j,
                                             g.ravel()[j], r.ravel()[j]))


# (x's shape, k's shape): one chunk a line (many lines, or short ones),
# and lines split into up to thousands of chunks, the last one shorter.
LEADING_SHAPES = [((1, 1), (1, 1, 1)), ((3, 5), (3, 1, 7)),
                  ((1000, 37), (2, 5000, 3)), ((70001, 3), (1, 70001, 2)),
                  ((4099, 1025), (5, 129, 4096))]


def scattered_ref(x, k):
    x64 = x.astype(np.float64)
    return (x64.sum(axis=(0, 2)), x.max(axis=(0, 2)), x64.sum(axis=(0, 1)),
            x64.sum(axis=(1, 2)), k.max(axis=(1, 2)), k.min(axis=(0, 2, 3)),
            k.max(axis=(0, 1, 3)))


def scattered_verify(B, got, x, k):
    """Sums within their rounding (n float32 additions for an output of
    n elements, relative to their sum of |x|), the rest exact."""
    ref = scattered_ref(x, k)
    ax = np.abs(x.astype(np.float64))
    bounds = {0: ax.sum(axis=(0, 2)), 2: ax.sum(axis=(0, 1)),
              3: ax.sum(axis=(1, 2))}
    for i, (g, r) in enumerate(zip(got, ref)):
        g = np.asarray(B.host(g))
        if g.shape != r.shape:
            raise Mismatch("result %d: shape %s, expected %s"
                           % (i, g.shape, r.shape))
        if i in bounds:
            tol = bounds[i] * (x.size // max(r.size, 1)) * 2.0 ** -23 + 1e-30
            bad = np.abs(g.astype(np.float64) - r) > tol
        else:
            bad = g != r
        if bad.any():
            j = np.flatnonzero(bad.ravel())[0]
            raise Mismatch("result %d: %d of %d differ (first at %d: %r, "
                           "expected %r)" % (i, bad.sum(), bad.size, j,
                                             g.ravel()[j], r.ravel()[j]))


SCATTERED_SHAPES = [((1, 1, 1), (1, 1, 1, 1)), ((3, 5, 7), (2, 3, 5, 7)),
                    ((33, 129, 65), (5, 17, 33, 9)),
                    ((257, 3, 1030), (3, 2, 1031, 33))]


def float_dtypes(B):
    return [np.dtype(np.float32)] + half_dtypes(B)


def eps(dt):
    return {"float32": 2.0 ** -23, "float16": 2.0 ** -10}.get(
        np.dtype(dt).name, 2.0 ** -7)


def _mean(v, dt):
    """fuse's mean of a half type: an f32 sum and division, rounded once
    (float32: the same in float32)."""
    s = v.astype(np.float64).sum(axis=-1, keepdims=True).astype(np.float32)
    return (s / np.float32(v.shape[-1])).astype(dt)


def layernorm_ref(x, w, b):
    dt = x.dtype
    d = x - _mean(x, dt)
    r = np.sqrt(_mean(d * d, dt) + dt.type(1e-5))
    return (d / r * w + b).astype(np.float64)


def softmax_ref(x):
    """x - max and exp rounded to x's type, the sum exact then rounded."""
    dt = x.dtype
    w = x.astype(np.float64)
    d = (w - w.max(axis=-1, keepdims=True)).astype(dt).astype(np.float64)
    e = np.exp(d).astype(dt).astype(np.float64)
    s = e.sum(axis=-1, keepdims=True).astype(dt).astype(np.float64)
    return e / s


def layernorm_edge_rows(shape):
    """float32 rows whose sum or squared deviations are not finite (an
    inf, a NaN, +inf and -inf, values whose squares overflow) around two
    ordinary rows: the one-walk variance of long rows must give what two
    walks give."""
    rng = np.random.default_rng(shape[1])
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    x[1, shape[1] // 3] = np.inf
    x[2, shape[1] - 1] = np.nan
    x[3, 0], x[3, 1] = np.inf, -np.inf
    x[4] = (rng.standard_normal(shape[1]) * 1e19).astype(np.float32)
    return x


def near_nan(got, ref, dt, ulps, what):
    """near(), where a NaN of the reference must be a NaN of got."""
    got = np.asarray(got)
    nan = np.isnan(ref)
    if got.shape == ref.shape and not np.array_equal(
            np.isnan(got.astype(np.float64)), nan):
        raise Mismatch("%s: NaN at %d places, expected %d" % (
            what, np.isnan(got.astype(np.float64)).sum(), nan.sum()))
    near(np.where(nan, 0, got).astype(got.dtype), np.where(nan, 0, ref), dt,
         ulps, what)


def near(got, ref, dt, ulps, what):
    got = np.asarray(got)
    if got.dtype != dt or got.shape != ref.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, dt, ref.shape))
    g = got.astype(np.float64)
    bad = ~(np.abs(g - ref) <= ulps * eps(dt) * (np.abs(ref) + 1))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise Mismatch("%s: %d of %d beyond %d ulp (first at %d: %r, "
                       "expected %r)" % (what, bad.sum(), bad.size, ulps, i,
                                         g.ravel()[i], ref.ravel()[i]))


def rows_checks(B, numeric, ctx, ln_shapes=LN_SHAPES,
                ln_edge_shapes=LN_EDGE_SHAPES,
                rank3_shapes=RANK3_SHAPES, scattered_shapes=SCATTERED_SHAPES,
                rows_computed_shapes=ROWS_COMPUTED_SHAPES,
                leading_shapes=LEADING_SHAPES):
    chk = checker(B, numeric, ctx)
    for xs, ks in leading_shapes:
        rng = np.random.default_rng(sum(xs) + sum(ks))
        x = (rng.standard_normal(xs) * 4).astype(np.float32)
        k = rng.integers(-2 ** 31, 2 ** 31, ks).astype(np.int32)
        chk("reductions over a leading axis %s / %s" % (
            "x".join(map(str, xs)), "x".join(map(str, ks))),
            lambda x=x, k=k: leading_axes(B.dev(x), B.dev(k)),
            lambda g, x=x, k=k: leading_verify(B, g, x, k))
        chk("relu and its sums over a leading axis %s" % "x".join(
            map(str, xs)),
            lambda x=x: relu_column_sums(B.dev(x)),
            lambda g, x=x: relu_column_verify(B, g, x))
    for dt in float_dtypes(B):
        for r, c in ln_shapes:
            rng = np.random.default_rng(r + c)
            x = (rng.standard_normal((r, c)) * 3 + 1).astype(dt)
            w = rng.uniform(0.5, 1.5, c).astype(dt)
            b = rng.uniform(-1, 1, c).astype(dt)
            chk("layernorm rows %s %dx%d" % (dt.name, r, c),
                lambda x=x, w=w, b=b: layernorm_rows(B.dev(x), B.dev(w),
                                                     B.dev(b)),
                lambda g, x=x, w=w, b=b, dt=dt: near(
                    B.host(g), layernorm_ref(x, w, b), dt, 8, "layernorm"))
        for shape in rank3_shapes:
            x = (np.random.default_rng(sum(shape)).standard_normal(shape) *
                 2).astype(dt)
            chk("softmax last axis %s %s" % (dt.name, "x".join(
                map(str, shape))),
                lambda x=x: softmax_last(B.dev(x)),
                lambda g, x=x, dt=dt: near(B.host(g), softmax_ref(x), dt,
                                           4, "softmax rank 3"))
    for shape in ln_edge_shapes:
        x = layernorm_edge_rows(shape)
        w = np.linspace(0.5, 1.5, shape[1]).astype(np.float32)
        b = np.linspace(-1, 1, shape[1]).astype(np.float32)
        with np.errstate(all="ignore"):
            ref = layernorm_ref(x, w, b)
        chk("layernorm rows, non-finite values %dx%d" % shape,
            lambda x=x, w=w, b=b: layernorm_rows(B.dev(x), B.dev(w),
                                                 B.dev(b)),
            lambda g, ref=ref: near_nan(B.host(g), ref, np.dtype(np.float32),
                                        8, "layernorm non-finite"))
    for r, c in rows_computed_shapes:
        rng = np.random.default_rng(7 * r + c)
        x = rng.standard_normal((r, c)).astype(np.float32)
        src = rng.standard_normal(77).astype(np.float32)
        idx = rng.integers(-20, 100, (r, c)).astype(np.int32)
        edges = np.sort(rng.standard_normal(64)).astype(np.float32)
        chk("rows with iota, gather and searchsorted %dx%d" % (r, c),
            lambda x=x, src=src, idx=idx, edges=edges: rows_computed(
                B.dev(x), B.dev(src), B.dev(idx), B.dev(edges)),
            lambda g, x=x, src=src, idx=idx, edges=edges:
                rows_computed_verify(B, g, x, src, idx, edges))
    for xs, ks in scattered_shapes:
        rng = np.random.default_rng(sum(xs))
        x = rng.standard_normal(xs).astype(np.float32)
        k = rng.integers(-2 ** 31, 2 ** 31, ks).astype(np.int32)
        chk("reductions over scattered axes %s / %s" % (
            "x".join(map(str, xs)), "x".join(map(str, ks))),
            lambda x=x, k=k: scattered_axes(B.dev(x), B.dev(k)),
            lambda g, x=x, k=k: scattered_verify(B, g, x, k))
