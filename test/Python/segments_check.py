"""GPU checks of the segment reductions (fuse.segment_sum/min/max/prod and
segment_reduce over CSR offsets, fuse.reduce_by_key) and of
fuse.compute.segmented_reduce with start and end offsets, run by
gpu_check.py; the data, the functions and the references are shared with
the CPU tests (test_segments.py).

The references are plain loops over the segments, each reduced by NumPy
(clamped to the input, an empty segment giving the identity or the
initial value). Integer results and min/max are compared exactly (NaN
where NaN; min and max propagate NaN), float sums within a tolerance that
grows with the segment (the GPU groups a segment's terms differently from
the CPU's order), float products exactly (their data are powers of two).
Sizes 0, 1, 31 and 1000003; CSR offsets with random lengths and empty
segments, one segment, all empty, no segment, and unsorted offsets
outside the input; int32 and int64 offsets; every dtype; NaN; a fused
prologue (the sum of x * x); function combiners that see the order (keep
the last element; composition of affine maps, associative and not
commutative); argmax over a pair of arrays; reduce_by_key with ties and
NaN keys; segmented_reduce with overlapping, out-of-order, empty and
clamped segments, iterators, a custom op and both argument forms. On the
GPU every check also runs twice and must give the same bits."""

import numpy as np

import fuse
import fuse.compute as fc
from check_util import Mismatch

SIZES = [0, 1, 31, 1000003]
DTYPES = [np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8,
          np.uint32, np.uint64]


# ---- the traced functions (one pipeline each per signature) ----------------

@fuse.jit
def seg_sum(x, o):
    return fuse.segment_sum(x, o)


@fuse.jit
def seg_prod(x, o):
    return fuse.segment_prod(x, o)


@fuse.jit
def seg_min(x, o):
    return fuse.segment_min(x, o)


@fuse.jit
def seg_max(x, o):
    return fuse.segment_max(x, o)


@fuse.jit
def seg_stats(x, o):
    """Three reductions over the same segments."""
    return (fuse.segment_sum(x, o), fuse.segment_min(x, o),
            fuse.segment_max(x, o))


@fuse.jit
def seg_sum_sq(x, o):
    """The square is computed at the positions the segments read (the
    prologue fused into the segments' pass); bench/segment_bench.py's."""
    return fuse.segment_sum(x * x, o)


@fuse.jit
def seg_last(x, o):
    """The last element of each segment (-1 for an empty one): a
    combiner that sees the order."""
    return fuse.segment_reduce(x, o, lambda acc, e: e, initial=-1)


def _compose(p, q):
    """Affine maps v -> a v + b, p then q: associative, not commutative."""
    return p[0] * q[0], p[1] * q[0] + q[1]


@fuse.jit
def seg_affine(a, b, o):
    return fuse.segment_reduce((a, b), o, _compose,
                               initial=(np.uint64(1), np.uint64(0)))


def _argmax(acc, e):
    """The larger value and its index, NaN below every number, ties to the
    left: associative with NaN too (fuse may regroup a segment: NaN first
    in it must not win over later elements)."""
    gt = (e[0] > acc[0]) | ((acc[0] != acc[0]) & (e[0] == e[0]))
    return fuse.where(gt, e[0], acc[0]), fuse.where(gt, e[1], acc[1])


@fuse.jit
def seg_argmax(x, o):
    """(max, its first index) of each segment; NaN never wins, -1 for an
    empty segment."""
    i = fuse.iota(x.shape[0], np.int64)
    return fuse.segment_reduce((x, i), o, _argmax,
                               initial=(-np.inf, np.int64(-1)))


@fuse.jit
def rbk_sum(k, v):
    return fuse.reduce_by_key(k, v)


@fuse.jit
def rbk_min(k, v):
    return fuse.reduce_by_key(k, v, "min")


@fuse.jit
def rbk_max(k, v):
    return fuse.reduce_by_key(k, v, "max")


@fuse.jit
def rbk_last(k, v):
    return fuse.reduce_by_key(k, v, lambda acc, e: e, initial=0)


# ---- data ------------------------------------------------------------------

def values(dt, n, seed=0, nan=False):
    """n values of dt: floats uniform in [-1, 1) without zeros (NaN at
    every 97th position with nan=True), integers over their whole
    range."""
    dt = np.dtype(dt)
    g = np.random.default_rng(seed + n)
    if dt.kind == "f":
        x = g.uniform(-1, 1, n)
        x[x == 0] = 0.5
        x = x.astype(dt)
        if nan:
            x[3::97] = np.nan
        return x
    if dt.kind == "b":
        return g.random(n) < 0.5
    info = np.iinfo(dt)
    return g.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def prod_values(dt, n, seed=0):
    """Values whose products are exact: +-0.5, +-1, +-2 for floats (over
    segments of at most 16, powers of two far from overflow), -3..3 for
    signed and 0..3 for unsigned integers."""
    dt = np.dtype(dt)
    g = np.random.default_rng(seed + n)
    if dt.kind == "f":
        return g.choice(np.array([-2, -1, -0.5, 0.5, 1, 2], dt), n)
    return g.integers(-3 if dt.kind == "i" else 0, 4, n).astype(dt)


def csr(g, n, m, empty=0.2):
    """m + 1 increasing offsets from 0 to n, random lengths, about a fifth
    of the segments made empty."""
    if m == 0:
        return np.zeros(1, np.int64)
    o = np.concatenate([[0], np.sort(g.integers(0, n + 1, m - 1)), [n]])
    k = g.integers(1, m, int(m * empty)) if m > 1 else np.zeros(0, int)
    o[k] = o[k - 1]          # stays increasing
    return o.astype(np.int64)


def offset_cases(n, seed=0):
    """(name, int64 offsets) over n elements: random lengths with empty
    segments, long segments, few long segments, one segment, every
    segment empty, no segment (one offset), and unsorted offsets, some
    outside [0, n] (a segment whose end is before its start is empty, the
    others are clamped)."""
    g = np.random.default_rng(seed + 3 * n)
    m = max(n // 10, 3)
    yield "random", csr(g, n, m)
    if n > 1000:
        yield "long", csr(g, n, 100, empty=0.05)
        # Means of several pieces (the GPU splits such segments over
        # blocks), lengths from a few to many pieces.
        yield "few long", csr(g, n, 9, empty=0.15)
    yield "one segment", np.array([0, n], np.int64)
    yield "all empty", np.full(5, n // 2, np.int64)
    yield "no segment", np.zeros(1, np.int64)
    # A walk of steps -20..40 from -3 (a decreasing pair is an empty
    # segment), with one to three offsets moved outside [0, n].
    o = np.cumsum(g.integers(-20, 41, 2 * m + 1)) - 3
    k = min(3, 1 + m // 20)
    o[g.integers(0, len(o), k)] = g.choice([-5, n + 5], k)
    yield "unsorted", o.astype(np.int64)


def short_offsets(n, seed=0):
    """CSR offsets of segments of 0 to 16 elements covering n."""
    g = np.random.default_rng(seed + n)
    lens = g.integers(0, 17, n // 8 + 2)
    o = np.concatenate([[0], np.cumsum(lens)])
    o = o[o <= n]
    return np.concatenate([o, [n]]).astype(np.int64)


def keys_values(n, dt=np.float32, seed=0):
    """(keys, values) for reduce_by_key: float keys in runs of 1 to 5 equal
    keys, ties of runs (a key repeated after another run), NaN runs next to
    each other and -0.0 next to +0.0; int32 values."""
    g = np.random.default_rng(seed + n)
    pool = np.array([1.5, -2.0, 0.0, -0.0, np.nan, 7.25, 3.0], dt)
    runs = g.choice(pool, n // 3 + 1)
    k = np.repeat(runs, g.integers(1, 6, len(runs)))[:n]
    v = g.integers(-1000, 1000, len(k)).astype(np.int32)
    return k, v


# ---- references: plain loops over the segments -----------------------------

IDENTITY = {"add": 0, "mul": 1}


def identity(kind, dt):
    """The identity of a kind on dtype dt (the value of an empty
    segment)."""
    dt = np.dtype(dt)
    if kind in IDENTITY:
        return IDENTITY[kind]
    if dt.kind == "f":
        return np.inf if kind == "min" else -np.inf
    if dt.kind == "b":
        return kind == "min"
    info = np.iinfo(dt)
    return info.max if kind == "min" else info.min


def result_dtype(kind, dt):
    """Sums and products of booleans and integers narrower than 64 bits
    are int64 (uint64 unsigned); the rest keep x's dtype."""
    dt = np.dtype(dt)
    if kind in ("add", "mul") and dt.kind in "iub" and dt.itemsize < 8:
        return np.dtype(np.uint64 if dt.kind == "u" else np.int64)
    return dt


_UFUNC = {"add": np.add, "mul": np.multiply, "min": np.minimum,
          "max": np.maximum}


def bounds(starts, ends, n):
    """Each segment's [lo, hi) clamped to [0, n] (hi <= lo: empty)."""
    lo = np.clip(np.asarray(starts, np.int64), 0, n)
    hi = np.clip(np.asarray(ends, np.int64), 0, n)
    return lo, hi


def segment_reference(x, starts, ends, kind, init=None, dt=None):
    """result[s] = init (+) x[lo] (+) ... (+) x[hi - 1], in dtype dt
    (result_dtype by default); float sums in float64 (to compare within
    a tolerance)."""
    dt = result_dtype(kind, x.dtype) if dt is None else np.dtype(dt)
    wide = np.dtype(np.float64) if dt.kind == "f" and kind == "add" else dt
    xs = x.astype(wide)
    first = identity(kind, dt) if init is None else init
    lo, hi = bounds(starts, ends, len(x))
    out = np.empty(len(lo), wide)
    uf = _UFUNC[kind]
    with np.errstate(all="ignore"):
        for s in range(len(lo)):
            acc = np.asarray(first).astype(wide)
            if hi[s] > lo[s]:
                acc = uf(acc, uf.reduce(xs[lo[s]:hi[s]], dtype=wide))
            out[s] = acc
    return out


def csr_reference(x, o, kind):
    o = np.asarray(o, np.int64)
    return segment_reference(x, o[:-1], o[1:], kind)


def last_reference(x, starts, ends, init):
    lo, hi = bounds(starts, ends, len(x))
    return np.array([x[h - 1] if h > lo_ else init for lo_, h in
                     zip(lo, hi)], x.dtype)


def affine_reference(a, b, o):
    """The composition of the affine maps of each segment, in Python
    integers modulo 2^64."""
    lo, hi = bounds(o[:-1], o[1:], len(a))
    ra, rb = [], []
    for s in range(len(lo)):
        pa, pb = 1, 0
        for p in range(lo[s], hi[s]):
            qa, qb = int(a[p]), int(b[p])
            pa, pb = (pa * qa) % 2 ** 64, (pb * qa + qb) % 2 ** 64
        ra.append(pa)
        rb.append(pb)
    return np.array(ra, np.uint64), np.array(rb, np.uint64)


def argmax_reference(x, o):
    lo, hi = bounds(o[:-1], o[1:], len(x))
    mv, mi = [], []
    for s in range(len(lo)):
        v, i = -np.inf, -1
        for p in range(lo[s], hi[s]):
            if x[p] > v:             # NaN never compares greater
                v, i = x[p], p
        mv.append(v)
        mi.append(i)
    return np.array(mv, x.dtype), np.array(mi, np.int64)


def runs_of(k):
    """The start of every run of equal consecutive keys (NaN equal to
    NaN, -0.0 to +0.0)."""
    k = np.asarray(k)
    same = (k[1:] == k[:-1])
    if k.dtype.kind == "f":
        same |= np.isnan(k[1:]) & np.isnan(k[:-1])
    return np.flatnonzero(np.r_[len(k) > 0, ~same]).astype(np.int64)


def by_key_reference(k, v, kind):
    """(first key of each run, the run's reduction of v)."""
    st = runs_of(k)
    en = np.append(st[1:], len(k)).astype(np.int64)
    return k[st], segment_reference(v, st, en, kind)


# ---- comparisons -----------------------------------------------------------

def compare(got, want, x=None, starts=None, ends=None, what="result"):
    """got against a reference: same dtype (a float64 reference of a float
    sum stands for x's dtype) and shape; float sums within
    8 * eps * sqrt(len + 1) * (the sum of |x| over the segment), NaN and
    infinities exactly; the rest exactly (NaN where NaN, zeros' signs
    not compared). x, starts, ends: given for a float sum."""
    got, want = np.asarray(got), np.asarray(want)
    if x is not None:
        if got.dtype != x.dtype or got.shape != want.shape:
            raise Mismatch("%s: %s %s, expected %s %s" % (
                what, got.dtype, got.shape, x.dtype, want.shape))
        lo, hi = bounds(starts, ends, len(x))
        ax = np.abs(x.astype(np.float64))
        ax[np.isnan(ax)] = 0
        c = np.concatenate([[0], np.cumsum(ax)])
        lens = np.maximum(hi - lo, 0)
        l1 = np.where(hi > lo, c[hi] - c[np.minimum(lo, hi)], 0)
        tol = 8 * np.finfo(x.dtype).eps * np.sqrt(lens + 1) * l1 + 1e-30
        g = got.astype(np.float64)
        special = ~np.isfinite(want)
        with np.errstate(invalid="ignore"):
            bad = np.where(special, ~((g == want) | (np.isnan(g) &
                                                     np.isnan(want))),
                           ~(np.abs(g - want) <= tol))
        _report(bad, got, want, what)
        return
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, want.dtype, want.shape))
    bad = got != want
    if want.dtype.kind == "f":
        bad &= ~(np.isnan(got) & np.isnan(want))
    _report(bad, got, want, what)


def _report(bad, got, want, what):
    if np.any(bad):
        i = np.flatnonzero(bad)[0]
        raise Mismatch("%s: %d of %d differ (first at %d: %r, expected %r)"
                       % (what, np.sum(bad), want.size, i, got.flat[i],
                          want.flat[i]))


def compare_csr(got, x, o, kind, what="result"):
    """compare() of got with csr_reference(x, o, kind)."""
    want = csr_reference(x, o, kind)
    o = np.asarray(o, np.int64)
    if x.dtype.kind == "f" and kind == "add":
        compare(got, want, x, o[:-1], o[1:], what)
    else:
        compare(got, want, what=what)


def compute_into(B, x, out, starts, ends, op, h_init, ns, keywords=False):
    """fuse.compute.segmented_reduce with start and end offsets,
    positional or with cuda.compute 1.1.1's keywords; returns out."""
    if keywords:
        fc.segmented_reduce(d_in=x, d_out=out, num_segments=ns,
                            start_offsets_in=starts, end_offsets_in=ends,
                            op=op, h_init=h_init, max_segment_size=None)
    else:
        fc.segmented_reduce(x, out, starts, ends, op, h_init, ns)
    return out


def compute_cases(n=100003, seed=11):
    """(name, x, starts, ends, op, h_init, reference) for
    fuse.compute.segmented_reduce: overlapping, out-of-order, empty and
    clamped segments given by start and end arrays (int32 and int64,
    of two dtypes at once), built-in and function ops; short segments,
    then a few long ones."""
    g = np.random.default_rng(seed)
    ns = n // 7
    starts = g.integers(-5, n + 5, ns)
    ends = starts + g.integers(-3, 60, ns)          # some end before start
    x = values(np.float32, n, seed)
    xi = values(np.int32, n, seed)
    yield ("float32 plus", x, starts, ends, fuse.OpKind.PLUS,
           np.float32(0), segment_reference(x, starts, ends, "add"))
    yield ("float32 maximum int32 offsets", x, starts.astype(np.int32),
           ends.astype(np.int32), fuse.OpKind.MAXIMUM, np.float32(-np.inf),
           segment_reference(x, starts, ends, "max"))
    yield ("int32 minimum from 100, int32 and int64 offsets", xi,
           starts.astype(np.int32), ends, fuse.OpKind.MINIMUM,
           np.int32(100), segment_reference(xi, starts, ends, "min",
                                            init=100, dt=np.int32))
    yield ("int32 plus from 5", xi, starts, ends, fuse.OpKind.PLUS,
           np.int32(5), segment_reference(xi, starts, ends, "add", init=5,
                                          dt=np.int32))
    yield ("float32 keep the last (a function)", x, starts, ends,
           lambda a, b: b, np.float32(-7),
           last_reference(x, starts, ends, np.float32(-7)))
    # Few long segments, overlapping, one empty (end before start) and one
    # clamped: on the GPU each is split into pieces over blocks.
    ls = g.integers(-5, n // 2, 9)
    le = ls + g.integers(n // 8, n // 2 + 20, 9)
    le[3] = ls[3] - 1
    le[5] = n + 7
    yield ("float32 plus over few long overlapping segments", x, ls, le,
           fuse.OpKind.PLUS, np.float32(0),
           segment_reference(x, ls, le, "add"))
    yield ("float32 maximum over few long overlapping segments", x, ls, le,
           fuse.OpKind.MAXIMUM, np.float32(-np.inf),
           segment_reference(x, ls, le, "max"))


def check_twice(ctx, numeric, name, fn, verify, host):
    """run_check of fn, then (numeric runs) a second call: the same
    bits."""
    ctx.run_check(name, fn, verify if numeric else None)
    if not numeric:
        return

    def snapshot():
        r = fn()            # copied: fuse.compute writes into one d_out
        return [np.array(host(p)) for p in (r if isinstance(r, tuple)
                                            else (r,))]

    def same_bits(pair):
        for p, q in zip(*pair):
            if p.tobytes() != q.tobytes():
                raise Mismatch("two runs differ")
    ctx.run_check(name + ", twice: the same bits",
                  lambda: (snapshot(), snapshot()), same_bits)


# ---- the checks on device arrays -------------------------------------------

def segments_checks(B, numeric, ctx, sizes=SIZES):
    """segment_sum/min/max (seg_stats) for every dtype, size and offset
    case (int64 offsets; int32 for float32), segment_prod, the prologue,
    the order-sensitive and pair combiners, NaN, reduce_by_key. ctx:
    gpu_check's run_check."""
    H = B.host

    def stats(x, o):
        def verify(g):
            compare_csr(H(g[0]), x, o, "add", "sum")
            compare_csr(H(g[1]), x, o, "min", "min")
            compare_csr(H(g[2]), x, o, "max", "max")
        return verify

    for dt in DTYPES:
        for n in sizes:
            x = values(dt, n, nan=np.dtype(dt).kind == "f")
            dx = B.dev(x)
            for case, o in offset_cases(n):
                if dt == np.float32:
                    o = o.astype(np.int32)
                do = B.dev(o)
                check_twice(ctx, numeric, "%s segments %s %s n=%d" % (
                    B.name, np.dtype(dt).name, case, n),
                    lambda dx=dx, do=do: seg_stats(dx, do), stats(x, o), H)
    for dt in (np.float32, np.int16, np.uint32):
        n = 100003
        x = prod_values(dt, n)
        o = short_offsets(n)
        check_twice(ctx, numeric, "%s segment_prod %s n=%d" % (
            B.name, np.dtype(dt).name, n),
            lambda dx=B.dev(x), do=B.dev(o): seg_prod(dx, do),
            lambda g, x=x, o=o: compare_csr(H(g), x, o, "mul"), H)
    _order_checks(B, numeric, ctx)
    _by_key_checks(B, numeric, ctx)


def _order_checks(B, numeric, ctx):
    """segment_sum and the prologue (bench/segment_bench.py's pipelines:
    float32 data, int64 offsets), keep-last, affine composition and
    argmax."""
    H = B.host
    n = 1000003
    x = values(np.float32, n, seed=5, nan=True)
    o = csr(np.random.default_rng(1), n, 1 << 14)
    dx, do = B.dev(x), B.dev(o)
    check_twice(ctx, numeric, "%s segment_sum n=%d" % (B.name, n),
                lambda: seg_sum(dx, do),
                lambda g: compare_csr(H(g), x, o, "add"), H)
    check_twice(ctx, numeric, "%s segment_sum(x * x) n=%d" % (B.name, n),
                lambda: seg_sum_sq(dx, do),
                lambda g: compare_csr(H(g), x * x, o, "add"), H)
    check_twice(ctx, numeric, "%s segment keep-last n=%d" % (B.name, n),
                lambda: seg_last(dx, do),
                lambda g: compare(H(g), last_reference(
                    x, o[:-1], o[1:], np.float32(-1))), H)

    def v_argmax(g):
        mv, mi = argmax_reference(x, o)
        compare(H(g[0]), mv, what="max")
        compare(H(g[1]), mi, what="index")
    check_twice(ctx, numeric, "%s segment argmax n=%d" % (B.name, n),
                lambda: seg_argmax(dx, do), v_argmax, H)
    m = 100003
    a, b = values(np.uint64, m, seed=1), values(np.uint64, m, seed=2)
    oa = short_offsets(m)

    def v_affine(g):
        ra, rb = affine_reference(a, b, oa)
        compare(H(g[0]), ra, what="a")
        compare(H(g[1]), rb, what="b")
    check_twice(ctx, numeric, "%s segment affine composition n=%d" % (
        B.name, m), lambda: seg_affine(B.dev(a), B.dev(b), B.dev(oa)),
        v_affine, H)


def _by_key_checks(B, numeric, ctx):
    H = B.host
    for n in SIZES:
        k, v = keys_values(n)
        dk, dv = B.dev(k), B.dev(v)
        for name, f, kind in (("sum", rbk_sum, "add"), ("min", rbk_min,
                                                         "min"),
                              ("max", rbk_max, "max")):
            def verify(g, kind=kind, k=k, v=v):
                uk, want = by_key_reference(k, v, kind)
                compare(H(g[0]), uk, what="keys")
                compare(H(g[1]), want, what="values")
            check_twice(ctx, numeric, "%s reduce_by_key %s n=%d" % (
                B.name, name, n), lambda f=f, dk=dk, dv=dv: f(dk, dv),
                verify, H)


def compute_checks(B, numeric, ctx):
    """fuse.compute.segmented_reduce with start and end offsets on B's
    arrays (positional and keyword forms), an iterator input, iterator
    offsets (equal segments of 7), and d_out's elements past the segments
    left as they were."""
    H = B.host
    for k, (name, x, s, e, op, init, want) in enumerate(compute_cases()):
        dx, ds, de = B.dev(x), B.dev(s), B.dev(e)
        ns = len(s)
        out = B.dev(np.full(ns + 3, 9, x.dtype))

        def run(dx=dx, ds=ds, de=de, out=out, op=op, init=init, ns=ns,
                kw=k % 2 == 1):
            return compute_into(B, dx, out, ds, de, op, init, ns, kw)

        def verify(g, x=x, s=s, e=e, want=want, op=op, ns=ns):
            g = np.asarray(H(g))
            compare(g[ns:], np.full(3, 9, g.dtype), what="past the end")
            if op is fuse.OpKind.PLUS and x.dtype.kind == "f":
                compare(g[:ns], want, x, s, e)
            else:
                compare(g[:ns], want)
        check_twice(ctx, numeric, "%s compute.segmented_reduce %s n=%d" % (
            B.name, name, len(x)), run, verify, H)
    n = 70003
    x = values(np.float32, n, seed=3)
    dx = B.dev(x)
    ns = n // 7
    out = B.empty((ns,), np.float32)
    starts = fc.TransformIterator(fc.CountingIterator(np.int64(0)),
                                  lambda i: i * 7)
    ends = fc.TransformIterator(fc.CountingIterator(np.int64(1)),
                                lambda i: i * 7)

    def run_iter():
        fc.segmented_reduce(fc.TransformIterator(dx, lambda a: a * a), out,
                            starts, ends, fuse.OpKind.PLUS, np.float32(0),
                            ns)
        return out
    st = np.arange(ns, dtype=np.int64) * 7
    check_twice(ctx, numeric, "%s compute.segmented_reduce of x * x over "
                "iterator offsets n=%d" % (B.name, n), run_iter,
                lambda g: compare(H(g), segment_reference(
                    x * x, st, st + 7, "add"), x * x, st, st + 7), H)
