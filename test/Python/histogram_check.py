"""GPU checks of fuse.histogram (np.histogram inside @fuse.jit) and of
fuse.compute.histogram_even, run by gpu_check.py; the data, the functions
and the references are shared with the CPU tests (test_histogram.py).

np.histogram is the reference of fuse.histogram, exactly (counts and
edges, dtypes included): float32, float64 and every integer dtype, sizes
0, 1, 31 and 1000003, 1 to 1000 even bins with range=None and a given
range, values exactly on the edges and one ulp around them, below and
above the range, NaN, infinities, -0.0, ties, integers at the ends of
their ranges; bins given as edge arrays (uneven, repeated edges, one
edge), as a constant list; density=True; a rank-2 input; bins of a
computed value (the map fused before the count); NaN data with
range=None (NumPy raises: NaN edges and no counts); weights= (float32,
float64, int32 and uint8 weights, even bins and edge arrays) against
NumPy's sums in float64 rounded once to the weights' dtype (integer
weights exactly; NumPy's own float32 sums over edges are differences of
float32 running sums, off by far more than one rounding). histogram_even is
held to cub_even_model, a NumPy model of CUB's HistogramEven arithmetic
(upper level exclusive).

np.bincount (and fuse.bincount) against NumPy exactly: every integer dtype
and bool, sizes 0, 1, 31 and 1000003, the dtypes' largest values and a
2^20 + 5 (a long result), minlength below, at and above the data's length;
weights= of float32 (on a grid: sums exact in float64, so NumPy's bits),
int32 and bool (exact), float64 (within the float64 rounding of a sum in
another order of NumPy's); the same bits on two runs of 2^22 + 17 float64
weights; a computed value, a bincount of a bincount's counts; NumPy's
ValueErrors for negative values and weights of another length."""

import numpy as np

import fuse
import fuse.compute as fc
from fuse._compute_histogram import cpp_common_type, int_arithmetic_type
from check_util import Mismatch, checker, near, same as same_as

SIZES = [0, 1, 31, 1000003]
DTYPES = [np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.uint16, np.uint32, np.uint64]
# (bins, whether a range is given): every bin count with and without one.
EVEN = [(1, False), (1, True), (7, False), (7, True), (256, False),
        (256, True), (1000, False), (1000, True)]


def range_for(dt):
    """A range inside the data's values, as Python numbers (weak)."""
    k = np.dtype(dt).kind
    return (-1.5, 2.25) if k == "f" else (-3, 100) if k == "i" else (3, 200)


_FNS = {}


def even_fn(bins, rng=None, density=False):
    """@fuse.jit of np.histogram(x, bins, rng, density), one per
    arguments (the GPU cache holds one pipeline per IR)."""
    key = (bins, rng, density)
    if key not in _FNS:
        _FNS[key] = fuse.jit(lambda x: np.histogram(x, bins, rng,
                                                    density=density))
    return _FNS[key]


@fuse.jit
def by_edges(x, e):
    return np.histogram(x, bins=e)


@fuse.jit
def by_edges_density(x, e):
    return np.histogram(x, bins=e, density=True)


# bench/histogram_bench.py's pipelines (checked here, so that the GPU
# cache holds them): 256 even bins of float32 samples, and of their
# squares (the map fused into the counting pass).
BENCH_BINS, BENCH_RANGE = 256, (-4.0, 4.0)
BENCH_SQUARE_RANGE = (0.0, 16.0)


@fuse.jit
def hist_even(x):
    return np.histogram(x, BENCH_BINS, BENCH_RANGE)[0]


@fuse.jit
def hist_square(x):
    return np.histogram(x * x, BENCH_BINS, BENCH_SQUARE_RANGE)[0]


FIXED_EDGES = [-1.0, 0.0, 0.0, 0.5, 2.0]


@fuse.jit
def by_fixed_edges(x):
    return np.histogram(x, bins=FIXED_EDGES)


@fuse.jit
def of_square(x):
    """The bins of a computed value: the map and the count are one pass."""
    return fuse.histogram(x * x + 1, bins=16, range=(1, 3))


def of_square_reference(x):
    return np.histogram(x * x + 1, bins=16, range=(1, 3))


@fuse.jit
def weighted_even(x, w):
    return np.histogram(x, bins=16, range=(-2.0, 2.0), weights=w)


@fuse.jit
def weighted_edges(x, e, w):
    return np.histogram(x, bins=e, weights=w)


WEIGHT_DTYPES = [np.float32, np.float64, np.int32, np.uint8]
WEIGHT_EDGES = np.array([-3.0, -1.0, 0.0, 0.25, 0.25, 5.0], np.float32)


def weighted_reference(x, bins, rng, w):
    """NumPy's weighted histogram with the sums in float64 (integer
    weights as they are), rounded once to the weights' dtype."""
    wf = w.astype(np.float64) if w.dtype.kind == "f" else w
    c, e = np.histogram(x, bins, rng, weights=wf)
    return c.astype(w.dtype), e


def check_weighted(got, want, H):
    c = np.asarray(H(got[0]))
    if want[0].dtype.kind == "f":
        # Both sum in float64, in other orders (float64: n * eps at
        # worst), then round once (float32: one rounding apart at most).
        rtol = 1e-12 if want[0].dtype == np.float64 else 2 * np.finfo(
            np.float32).eps
        near(c, want[0], rtol, 0.0, "sums")
    else:
        same_as(c, want[0], "sums")
    same_as(H(got[1]), want[1], "edges")


def weighted_cases(sizes):
    for n in sizes:
        x = even_data(np.float32, n, 16, (-2.0, 2.0), seed=7)
        for wdt in WEIGHT_DTYPES:
            w = np.random.default_rng(n).uniform(0, 5, n).astype(wdt)
            yield "%s n=%d" % (np.dtype(wdt).name, n), x, w


def even_data(dt, n, bins, rng, seed=0):
    """n values of dt for `bins` even bins over rng (None: the data's own
    range): exactly on the edges and one ulp around them, outside the
    range, ties; floats with -0.0 and, with a range, NaN and infinities;
    integers with the ends of their range."""
    dt = np.dtype(dt)
    g = np.random.default_rng(seed + 7 * n + bins)
    if dt.kind == "f":
        lo, hi = rng if rng is not None else (-3.0, 5.0)
        span = hi - lo
        x = g.uniform(lo - (0.25 * span if rng else 0), hi + (
            0.25 * span if rng else 0), n).astype(dt)
        x[g.random(n) < 0.1] = -0.0
    else:
        info = np.iinfo(dt)
        lo, hi = rng if rng is not None else (max(info.min, -1000),
                                              min(info.max, 1000))
        x = g.integers(max(info.min, lo - 20), min(info.max, hi + 20), n,
                       endpoint=True).astype(dt)
        if rng is None and n > 2 and g.random() < 0.5:
            x[:2] = (info.min, info.max)     # the widest span the dtype has
    if n == 0:
        return x
    # Ties: a tenth of the values repeat others.
    k = max(n // 10, 1)
    x[g.integers(0, n, k)] = x[g.integers(0, n, k)]
    # Values on the edges (NumPy's, for these data) and next to them.
    edges = np.histogram_bin_edges(x, bins, rng)
    with np.errstate(all="ignore"):
        on = edges.astype(dt)
        if dt.kind == "f":
            on = np.concatenate([on, np.nextafter(on, np.inf, dtype=dt),
                                 np.nextafter(on, -np.inf, dtype=dt)])
    if rng is None:
        lo_x, hi_x = x.min(), x.max()
        on = on[(on >= lo_x) & (on <= hi_x)]     # keeps the data's range
    if len(on):
        m = min(len(on), max(n // 4, 1))
        x[g.integers(0, n, m)] = g.choice(on, m)
    if dt.kind == "f" and rng is not None:
        x[g.integers(0, n, max(n // 50, 1))] = g.choice(
            np.array([np.nan, np.inf, -np.inf], dt), max(n // 50, 1))
    return x


def even_cases(sizes=SIZES, dtypes=DTYPES):
    """(name, x, bins, rng) over dtypes x EVEN x sizes."""
    for dt in dtypes:
        for bins, given in EVEN:
            rng = range_for(dt) if given else None
            for n in sizes:
                yield ("%s bins=%d range=%s n=%d" % (
                    np.dtype(dt).name, bins, rng, n), even_data(dt, n, bins,
                                                                rng), bins,
                       rng)


def edge_cases():
    """(name, x, edges) for by_edges: uneven, repeated, infinite and
    integer edges, one edge, data with NaN and infinities."""
    g = np.random.default_rng(5)
    x = g.normal(size=100003).astype(np.float32)
    x[::97] = np.round(x[::97] * 2) / 2           # on the half-integers
    x[::1009] = np.nan
    x[1::1013] = np.inf
    x[2::1019] = -np.inf
    yield "float32 uneven", x, np.array([-2.0, -0.5, 0.0, 0.25, 1.5, 3.0])
    yield "float32 repeated", x, np.array([-1.0, 0.0, 0.0, 0.5, 0.5, 2.0])
    yield "float32 infinite", x, np.array([-np.inf, 0.0, np.inf])
    yield "float32 one edge", x, np.array([0.5])
    yield "float32 float32 edges", x, np.array([-1, 0.5, 0.5], np.float32)
    i = g.integers(-300, 300, 31).astype(np.int16)
    yield "int16 int32 edges", i, np.array([-200, -1, 0, 7, 250], np.int32)
    yield "int16 float edges", i, np.array([-100.5, 0.0, 99.5])
    u = np.array([0, 5, 2**63, 2**64 - 1, 3, 2**62], np.uint64)
    yield "uint64 int64 edges", u, np.array([0, 3, 2**62], np.int64)


def nan_data():
    x = np.linspace(-1, 1, 1001).astype(np.float32)
    x[500] = np.nan
    return x


def same(got, want):
    """Exactly equal: dtype, shape, values (NaN equal to NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    return (got.dtype == want.dtype and got.shape == want.shape and
            np.array_equal(got, want, equal_nan=want.dtype.kind == "f"))


# ---- np.bincount -------------------------------------------------------------

BINCOUNT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                   np.uint32, np.uint64, np.bool_]
BINCOUNT_WEIGHTS = [np.float32, np.float64, np.int32, np.bool_]
BINCOUNT_BIG = (1 << 22) + 17
BINCOUNT_WIDE = (1 << 20) + 5


def bincount_data(dt, n, seed=0, wide=True):
    """n non-negative values of dt (bool: 0 and 1), ties below 1000; with
    `wide` and n > 2, also the dtype's largest value where that is at most
    65535 (int8 to uint16), else BINCOUNT_WIDE (a long result)."""
    dt = np.dtype(dt)
    g = np.random.default_rng(seed + n)
    if dt == np.bool_:
        return g.random(n) < 0.3
    top = np.iinfo(dt).max
    x = g.integers(0, min(top, 999), n, endpoint=True).astype(dt)
    if wide and n > 2:
        x[g.integers(0, n, 2)] = top if top <= 65535 else BINCOUNT_WIDE
    return x


def bincount_weights(dt, n, seed=1):
    """Weights of dt: float32 on a grid of 1/64 in [-8, 8) (their sums are
    exact in float64), float64 normal, int32 in [-1000, 1000], bool."""
    g = np.random.default_rng(seed + n)
    dt = np.dtype(dt)
    if dt == np.float32:
        return (g.integers(-512, 512, n) / 64).astype(dt)
    if dt == np.float64:
        return g.standard_normal(n)
    if dt == np.bool_:
        return g.random(n) < 0.5
    return g.integers(-1000, 1000, n, endpoint=True).astype(dt)


@fuse.jit
def bincount(x):
    return np.bincount(x)


_BINCOUNT_FNS = {}


def bincount_min(minlength):
    """@fuse.jit of np.bincount(x, minlength=minlength), one per value (a
    trace constant: the pipelines are the same for every value)."""
    if minlength not in _BINCOUNT_FNS:
        _BINCOUNT_FNS[minlength] = fuse.jit(
            lambda x: np.bincount(x, minlength=minlength))
    return _BINCOUNT_FNS[minlength]


@fuse.jit
def bincount_weighted(x, w):
    return np.bincount(x, weights=w)


@fuse.jit
def bincount_fuse(x, w):
    """fuse.bincount, the public name, weighted and not."""
    return fuse.bincount(x, w, minlength=1000), fuse.bincount(x, minlength=3)


@fuse.jit
def bincount_staged(x):
    """Of a computed value (the map in the measure and in the count), and
    of a bincount's counts (a second measure, after the first counts)."""
    return np.bincount(x % 7), np.bincount(np.bincount(x))


def bincount_staged_reference(x):
    return np.bincount(x % 7), np.bincount(np.bincount(x))


def check_bincount_weighted(got, x, w, same_as):
    """NumPy's float64 sums; exactly where they are exact (integer and
    bool weights, float32 on a grid), else within the rounding of a
    float64 sum in another order: 1e-12 of the bin's sum of |w|. An empty
    x gives float64 zeros (NumPy's early return gives int64 ones: the
    dtype of a traced result cannot depend on the data's length)."""
    want = np.bincount(x, w)
    if len(x) == 0:
        want = want.astype(np.float64)
    got = np.asarray(got)
    if w.dtype != np.float64:
        same_as(got, want, "sums")
        return
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Mismatch("sums: %s %s, expected %s %s" % (
            got.dtype, got.shape, want.dtype, want.shape))
    bound = 1e-12 * np.bincount(x, np.abs(w))
    bad = ~(np.abs(got - want) <= bound)
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise Mismatch("sums: %d of %d off (first at %d: %r, expected %r)"
                       % (bad.sum(), bad.size, i, got[i], want[i]))


def bincount_checks(B, numeric, ctx, sizes=SIZES):
    """np.bincount on B's arrays (the measures read back, then the counts)
    against NumPy; sizes: of the per-dtype data."""
    H = B.host
    chk = checker(B, numeric, ctx, "bincount ")

    def equal(want, what="counts"):
        return lambda got: ctx.same(H(got), want, what)

    for dt in BINCOUNT_DTYPES:
        for n in sizes:
            x = bincount_data(dt, n)
            chk("%s n=%d" % (np.dtype(dt).name, n),
                lambda dx=B.dev(x): bincount(dx), equal(np.bincount(x)))
    x = bincount_data(np.int32, 1000003, wide=False)
    dx = B.dev(x)
    for m in (3, int(x.max()) + 1, 5000):
        chk("minlength=%d n=1000003" % m, lambda m=m: bincount_min(m)(dx),
            equal(np.bincount(x, minlength=m)))
    empty = B.dev(np.zeros(0, np.int32))
    chk("minlength=7 n=0", lambda: bincount_min(7)(empty),
        equal(np.zeros(7, np.int64)))
    for wdt in BINCOUNT_WEIGHTS:
        for n in sizes:
            x, w = bincount_data(np.int32, n), bincount_weights(wdt, n)
            chk("weights %s n=%d" % (np.dtype(wdt).name, n),
                lambda dx=B.dev(x), dw=B.dev(w): bincount_weighted(dx, dw),
                lambda got, x=x, w=w: check_bincount_weighted(H(got), x, w,
                                                              ctx.same))
    x = bincount_data(np.int64, BINCOUNT_BIG)
    w = bincount_weights(np.float64, BINCOUNT_BIG)
    dx, dw = B.dev(x), B.dev(w)

    def twice():
        return bincount_weighted(dx, dw), bincount_weighted(dx, dw)

    def deterministic(got):
        ctx.same(H(got[1]), H(got[0]), "second run")
        check_bincount_weighted(H(got[0]), x, w, ctx.same)
    chk("weights float64 n=%d, two runs" % BINCOUNT_BIG, twice,
        deterministic)
    x, w = bincount_data(np.int16, 31), bincount_weights(np.float32, 31)

    def public(got):
        ctx.same(H(got[0]), np.bincount(x, w, 1000), "weighted")
        ctx.same(H(got[1]), np.bincount(x, minlength=3), "counts")
    chk("fuse.bincount n=31", lambda: bincount_fuse(B.dev(x), B.dev(w)),
        public)
    x = bincount_data(np.int32, 1000003)
    want = bincount_staged_reference(x)

    def staged(got):
        ctx.same(H(got[0]), want[0], "of x % 7")
        ctx.same(H(got[1]), want[1], "of the counts")
    chk("of x % 7 and of its counts n=1000003",
        lambda: bincount_staged(B.dev(x)), staged)
    if numeric:     # the errors come from the measures' values
        bincount_error_checks(B, ctx)


def bincount_error_checks(B, ctx):
    """NumPy's ValueErrors, raised from the measures read back: a
    negative value (int64 -1, uint64 2^63, which NumPy takes as int64),
    weights of another length."""
    def raises(message, fn):
        def run():
            try:
                fn()
            except ValueError as e:
                if str(e) != message:
                    raise Mismatch("ValueError %r, expected %r" % (
                        str(e), message))
                return
            raise Mismatch("no ValueError (expected %r)" % message)
        return run
    neg = "'list' argument must have no negative elements"
    x = bincount_data(np.int64, 1000003)
    x[777] = -1
    ctx.run_check("%s bincount error: negative int64" % B.name,
                  raises(neg, lambda: bincount(B.dev(x))), None)
    u = bincount_data(np.uint64, 31)
    u[5] = 2 ** 63
    ctx.run_check("%s bincount error: uint64 2^63" % B.name,
                  raises(neg, lambda: bincount(B.dev(u))), None)
    x = bincount_data(np.int32, 31)
    w = bincount_weights(np.float64, 30)
    ctx.run_check("%s bincount error: weights' length" % B.name,
                  raises("The weights and list don't have the same length.",
                         lambda: bincount_weighted(B.dev(x), B.dev(w))),
                  None)


# ---- histogram_even: CUB's rule ---------------------------------------------

def cub_even_model(samples, levels, lower, upper):
    """The counts of cub::DeviceHistogram::HistogramEven (the bin rule of
    its ScaleTransform), in NumPy: the sample and the levels in CommonT,
    C++'s common type of the level and sample types; a sample counts where
    lower <= x < upper; floats: int((x - lower) * (T(bins) / (upper -
    lower))); integers: (U(x - lower) * U(T(bins))) // U(T(upper -
    lower)) in CUB's IntArithmeticT U, the differences in C's promoted
    type, every conversion wrapping. Bins outside [0, bins) (rounding)
    are not counted."""
    bins = levels - 1
    st, lt = samples.dtype, np.asarray(lower).dtype
    ct = cpp_common_type(lt, st)
    x = samples.astype(ct)
    mn, mx = np.asarray(lower).astype(ct), np.asarray(upper).astype(ct)
    valid = (x >= mn) & (x < mx)
    with np.errstate(all="ignore"):
        if ct.kind == "f":
            recip = (np.asarray(bins).astype(ct) / (mx - mn)).astype(ct)
            v = ((x - mn) * recip).astype(ct)
            v[np.isnan(v)] = 0
            ok = valid & (v >= 0) & (v < bins)
            b = np.where(ok, v, 0).astype(np.int64)
        else:
            it = int_arithmetic_type(st, ct)
            pt = np.dtype(np.int32) if ct.itemsize < 4 else ct
            d = (x.astype(pt) - mn.astype(pt)).astype(it)
            r = (mx.astype(pt) - mn.astype(pt)).astype(ct).astype(it)
            nb = np.asarray(bins).astype(ct).astype(it)
            q = (d * nb) // np.where(r == 0, 1, r).astype(it)
            b = q.astype(np.int32).astype(np.int64)
            ok = valid & (b >= 0) & (b < bins)
    return np.bincount(b[ok], minlength=bins)[:bins]


def even_compute_cases():
    """(name, samples, levels, lower, upper) for histogram_even."""
    g = np.random.default_rng(9)
    f = g.uniform(-1.2, 1.2, 1000003).astype(np.float32)
    f[::101] = np.round(f[::101] * 5) / 5                  # on the levels
    f[::1009] = np.nan
    f[1::1013] = 1.0                                       # upper: excluded
    yield "float32 levels float64", f, 11, -1.0, 1.0
    yield "float32 levels float32", f, 257, np.float32(-1), np.float32(1)
    yield "float64 levels float64", f.astype(np.float64), 8, -0.7, 0.9
    i8 = g.integers(-128, 128, 100003).astype(np.int8)
    yield "int8 levels int64 (negative samples)", i8, 5, -60, 64
    yield "int8 levels int8", i8, 9, np.int8(-100), np.int8(100)
    u8 = g.integers(0, 256, 100003).astype(np.uint8)
    yield "uint8 levels int64", u8, 257, 0, 256
    i16 = g.integers(-2000, 2000, 31).astype(np.int16)
    yield "int16 levels int16", i16, 7, np.int16(-1500), np.int16(1700)
    i32 = g.integers(-2**31, 2**31 - 1, 100003).astype(np.int32)
    yield "int32 levels int64", i32, 1001, -2**30, 2**30
    i64 = g.integers(-2**62, 2**62, 100003)
    yield "int64 levels float64", i64, 100, -1e18, 3e18
    u64 = np.uint64(2**62) + g.integers(0, 2**51, 100003, dtype=np.uint64)
    u64[:2] = (0, 2**64 - 1)
    yield "uint64 levels uint64", u64, 64, np.uint64(2**62 + 5), \
        np.uint64(2**62 + 2**50)


# ---- the checks on device arrays --------------------------------------------

def histogram_checks(B, numeric, ctx, sizes=SIZES):
    """ctx: gpu_check's run_check and same (check_util's). sizes: of the
    even-bin data (the CPU run of these checks takes fewer)."""
    H = B.host

    chk = checker(B, numeric, ctx, "histogram ")

    def pair(want):
        def verify(got):          # NaN where NaN, zeros' signs included
            ctx.same(H(got[0]), want[0], "counts")
            ctx.same(H(got[1]), want[1], "edges")
        return verify

    for name, x, bins, rng in even_cases(sizes):
        dx = B.dev(x)
        chk(name, lambda f=even_fn(bins, rng), dx=dx: f(dx),
            pair(np.histogram(x, bins, rng)))
    for name, x, e in edge_cases():
        dx, de = B.dev(x), B.dev(e)
        chk("edges " + name, lambda dx=dx, de=de: by_edges(dx, de),
            pair(np.histogram(x, e)))
        if len(e) > 1:
            with np.errstate(all="ignore"):      # empty bins: 0 / 0
                want = np.histogram(x, e, density=True)
            chk("edges density " + name,
                lambda dx=dx, de=de: by_edges_density(dx, de), pair(want))
    x = even_data(np.float32, 1000003, 10, (-1.5, 2.25))
    dx = B.dev(x)
    chk("fixed edges n=1000003", lambda: by_fixed_edges(dx),
        pair(np.histogram(x, FIXED_EDGES)))
    chk("of x * x + 1 n=1000003", lambda: of_square(dx),
        pair(of_square_reference(x)))
    chk("density range n=1000003",
        lambda: even_fn(10, (-1.5, 2.25), True)(dx),
        pair(np.histogram(x, 10, (-1.5, 2.25), density=True)))
    y = even_data(np.float64, 31, 10, None)
    chk("density n=31", lambda: even_fn(10, None, True)(B.dev(y)),
        pair(np.histogram(y, 10, density=True)))
    m = even_data(np.int32, 31 * 17, 7, None).reshape(31, 17)
    m2 = even_data(np.float32, 31 * 17, 4, (-1.0, 2.0)).reshape(31, 17)
    chk("rank 2 int32 31x17", lambda: even_fn(7)(B.dev(m)),
        pair(np.histogram(m, 7)))
    e = np.array([-1.0, -0.25, 0.0, 0.5, 2.0], np.float32)
    chk("edges rank 2 float32 31x17", lambda: by_edges(B.dev(m2), B.dev(e)),
        pair(np.histogram(m2, e)))
    b = np.random.default_rng(5).standard_normal(1000003).astype(np.float32)
    db = B.dev(b)
    chk("bench 256 bins n=1000003", lambda: hist_even(db),
        lambda got: ctx.same(H(got), np.histogram(b, BENCH_BINS,
                                                  BENCH_RANGE)[0], "counts"))
    chk("bench 256 bins of x * x n=1000003", lambda: hist_square(db),
        lambda got: ctx.same(H(got), np.histogram(
            b * b, BENCH_BINS, BENCH_SQUARE_RANGE)[0], "counts"))
    nan = nan_data()
    want = (np.zeros(7, np.int64), np.full(8, np.nan, np.float32))
    chk("NaN with range=None (NaN edges, no counts)",
        lambda: even_fn(7)(B.dev(nan)), pair(want))
    for name, x, w in weighted_cases([n for n in sizes if n] or [31]):
        dx, dw, de = B.dev(x), B.dev(w), B.dev(WEIGHT_EDGES)
        chk("weights " + name, lambda dx=dx, dw=dw: weighted_even(dx, dw),
            lambda got, x=x, w=w: check_weighted(
                got, weighted_reference(x, 16, (-2.0, 2.0), w), H))
        chk("edges weights " + name,
            lambda dx=dx, de=de, dw=dw: weighted_edges(dx, de, dw),
            lambda got, x=x, w=w: check_weighted(
                got, weighted_reference(x, WEIGHT_EDGES, None, w), H))


def compute_checks(B, numeric, ctx):
    """histogram_even on B's arrays against cub_even_model, into int32
    counts; the elements past the bins stay as they were."""
    H = B.host
    for name, x, levels, lo, hi in even_compute_cases():
        dx = B.dev(x)
        out = B.dev(np.full(levels + 2, 7, np.int32))
        want = np.concatenate([cub_even_model(x, levels, lo, hi).astype(
            np.int32), np.full(3, 7, np.int32)])

        def run(dx=dx, out=out, n=len(x), levels=levels, lo=lo, hi=hi):
            fc.histogram_even(dx, out, levels, lo, hi, n)
            return out
        ctx.run_check("%s compute.histogram_even %s n=%d" % (
            B.name, name, len(x)), run,
            (lambda g, want=want: ctx.exact(H(g), want)) if numeric else None)
    x = even_data(np.float32, 100003, 10, (-1.5, 2.25))
    dx = B.dev(x)
    out = B.dev(np.zeros(16, np.int32))

    def of_square_even():
        fc.histogram_even(fc.TransformIterator(dx, lambda a: a * a + 1), out,
                          17, 1.0, 3.0, len(x))
        return out
    want = cub_even_model(x * x + 1, 17, 1.0, 3.0)
    ctx.run_check("%s compute.histogram_even of an iterator n=100003"
                  % B.name, of_square_even,
                  (lambda g: ctx.exact(H(g), want.astype(np.int32)))
                  if numeric else None)
