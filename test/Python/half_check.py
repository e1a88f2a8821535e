"""GPU checks of half-precision and 8-bit arrays: float16 (NumPy, PyTorch,
CuPy) and bfloat16 (PyTorch; NumPy through ml_dtypes; CuPy has no
bfloat16, so its backend runs the float16 checks only), int8 and uint8;
run by gpu_check.py, and on the CPU backend by test_half.py.

The data are chosen so that the documented semantics give one exact
answer on every backend, and a wrong accumulation type shows as a large
error, not as rounding noise:
- sums, dots and means of multiples of 2^-4 (squares of 2^-8): every
  partial sum is exact in float32, so f32 accumulation rounded once gives
  exactly round(sum) in the array's type, while f16 accumulation would
  stop at 8 (2048 steps of 2^-8) and bf16 at 1;
- running sums (np.cumsum) of small integers, exact in float32: every
  prefix is the exact prefix rounded once;
- an elementwise chain whose every operation is exact, so the GPU may
  contract or reorder freely;
- filters, max, argmax and sort: exact by nature;
- softmax over rows of random values: within 4 units in the last place
  of a reference that rounds x - max, exp and the row sum to the array's
  type as the pipeline does (the one check with a tolerance);
- a float16 times a float32 array promotes to float32 (NumPy's rule), a
  scalar argument of the array's type is passed exactly;
- int8 and uint8: sums to int64/uint64 (NumPy's), the maximum, and a
  normalisation to float32;
- int32 and int64 to bfloat16 next to its rounding ties (one rounding,
  not two through float32), against NumPy's float64 -> bfloat16 of the
  same values, exact in float64.

Sizes 1, 31, the tile edges of 16-byte vectors of 8 halves (2047, 2048,
2049), 1000003 and 2^22 + 17, aligned and at an offset of one element
(off the vector path)."""

import numpy as np

import fuse
from check_util import Mismatch, at_offset, checker, same

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:       # the package import reports it (python-requirements)
    BF16 = None

SIZES = [1, 31, 2047, 2048, 2049, 1000003, (1 << 22) + 17]
ROWS = [(1, 1), (3, 129), (1000, 37), (257, 4096), (64, 4099)]


def half_dtypes(B):
    """The half types backend B holds: CuPy has no bfloat16."""
    out = [np.dtype(np.float16)]
    if BF16 is not None and B.name != "cupy":
        out.append(BF16)
    return out


# ---- the traced functions ---------------------------------------------------

@fuse.jit
def sumsq(x):
    return (x * x).sum()


@fuse.jit
def dot(x, y):
    return (x * y).sum()


@fuse.jit
def mean(x):
    return x.mean()


@fuse.jit
def cumsum(x):
    return np.cumsum(x)


@fuse.jit
def chain(x):
    return np.maximum(x * 1.5 + 0.25, 0) * 0.5 + x


@fuse.jit
def positive(x):
    return fuse.filter(x, lambda v: v > 0)


@fuse.jit
def extremes(x):
    return x.max(), fuse.argmax(x)


@fuse.jit
def sort(x):
    return fuse.sort(x)


@fuse.jit
def softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@fuse.jit
def mixed(x, y):
    return x * y


@fuse.jit
def scale(x, s):
    return x * s


@fuse.jit
def to_bf16(x):
    return x.astype(BF16)


@fuse.jit
def int_sum_max(x):
    return x.sum(), x.max()


@fuse.jit
def normalise(x):
    return x.astype(np.float32) / 255.0


# ---- data and references ----------------------------------------------------

def steps(dt, n, seed=0):
    """Multiples of 2^-4 in [-1, 1]: squares and products are multiples of
    2^-8, exact in every type here and in float32 sums up to 2^16."""
    k = np.random.default_rng(seed).integers(-16, 17, n)
    return (k / 16.0).astype(dt)


def int_to_bf16(v):
    """Integers to bfloat16 rounded once to nearest even, in exact integer
    arithmetic: ml_dtypes' float64 -> bfloat16 goes through float32 in some
    versions (16842753 -> 16777216, not 16908288)."""
    out = []
    for x in v.tolist():
        a = abs(x)
        shift = max(a.bit_length() - 8, 0)
        q, r = divmod(a, 1 << shift)
        half = (1 << shift) >> 1
        if shift and (r > half or (r == half and q & 1)):
            q += 1
        out.append(-(q << shift) if x < 0 else q << shift)
    # Each value is a bfloat16 (8 significant bits), exact in float64.
    return np.array(out, np.float64).astype(BF16)


def near_ties(dt):
    """Integers of dt at, one below and one above the midpoints between
    neighbouring bfloat16 values (k * 2^s + 2^(s-1)), both signs, up to
    2^52 (exact in float64)."""
    top = min(np.iinfo(dt).bits - 2, 52)
    v = [0, 1, -1]
    for s in range(9, top - 7):
        for k in range(128, 256, 9):
            for d in (-1, 0, 1):
                m = (k << s) + (1 << (s - 1)) + d
                v += [m, -m]
    return np.array(v, dtype=dt)


def small_ints(dt, n, seed=1):
    return np.random.default_rng(seed).integers(-3, 4, n).astype(dt)


def exact_sum(v):
    """The sum of float values whose partial sums float64 holds exactly."""
    return np.sum(v.astype(np.float64))


def ulp_close(got, ref, dt, ulps, what):
    """got (dtype dt) within `ulps` units in the last place of dt of the
    float64 ref (relative: 2^-10 for float16, 2^-7 for bfloat16)."""
    got = np.asarray(got)
    if got.dtype != dt or got.shape != ref.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, dt, ref.shape))
    eps = 2.0 ** (-10 if dt == np.float16 else -7)
    g = got.astype(np.float64)
    bad = ~(np.abs(g - ref) <= ulps * eps * np.abs(ref) + 2.0 ** -24)
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise Mismatch("%s: %d of %d beyond %d ulp (first at %d: %r, "
                       "expected %r)" % (what, bad.sum(), bad.size, ulps, i,
                                         g.ravel()[i], ref.ravel()[i]))


def check(B, g, want, what):
    """Each result as check_util.same compares: dtype, shape and value
    (NaN as NaN, the sign of zero)."""
    gs = g if isinstance(g, tuple) else (g,)
    if len(gs) != len(want):
        raise Mismatch("%s: %d results, expected %d" % (what, len(gs),
                                                          len(want)))
    for i, (v, w) in enumerate(zip(gs, want)):
        same(B.host(v), np.asarray(w), "%s result %d" % (what, i))


def softmax_ref(x):
    """Softmax as the pipeline rounds it: x - max and exp rounded to x's
    type, the row sum accumulated exactly and rounded once, the quotient
    left exact (the check allows the last roundings' ulps)."""
    dt = x.dtype
    w = x.astype(np.float64)
    d = (w - w.max(axis=1, keepdims=True)).astype(dt).astype(np.float64)
    e = np.exp(d).astype(dt).astype(np.float64)
    s = e.sum(axis=1, keepdims=True).astype(dt).astype(np.float64)
    return e / s


# ---- the checks on device arrays --------------------------------------------

def half_checks(B, numeric, ctx, sizes=SIZES, rows=ROWS):
    """Every check above on backend B (ctx: gpu_check's run_check)."""
    chk = checker(B, numeric, ctx)
    for dt in half_dtypes(B):
        _flat_checks(B, chk, dt, sizes)
        for r, c in rows:
            x = (np.random.default_rng(r * c).standard_normal((r, c)) *
                 2).astype(dt)
            chk("softmax rows %s %dx%d" % (dt.name, r, c),
                lambda x=x: softmax_rows(B.dev(x)),
                lambda g, x=x, dt=dt: ulp_close(B.host(g), softmax_ref(x),
                                                dt, 4, "softmax"))
    _mixed_checks(B, chk, sizes)
    _int8_checks(B, chk, sizes)
    if BF16 is not None and B.name != "cupy":
        for dt in (np.int32, np.int64):
            v = near_ties(dt)
            chk("%s to bfloat16 next to ties" % np.dtype(dt).name,
                lambda v=v: to_bf16(B.dev(v)),
                lambda g, v=v: check(B, g, [int_to_bf16(v)],
                                     "to bfloat16"))


def _flat_checks(B, chk, dt, sizes):
    for n in sizes:
        x = steps(dt, n)
        y = steps(dt, n, seed=7)
        k = small_ints(dt, n)
        for where, dx in (("", B.dev(x)), (" at an offset",
                                             at_offset(B, x))):
            tag = "%s n=%d%s" % (dt.name, n, where)
            chk("sumsq " + tag, lambda dx=dx: sumsq(dx),
                lambda g, x=x, dt=dt: check(B, g, [dt.type(exact_sum(
                    x.astype(np.float64) ** 2))], "sumsq"))
            chk("chain " + tag, lambda dx=dx: chain(dx),
                lambda g, x=x, dt=dt: check(B, g, [(np.maximum(
                    x.astype(np.float64) * 1.5 + 0.25, 0) * 0.5 +
                    x).astype(dt)], "chain"))
        tag = "%s n=%d" % (dt.name, n)
        chk("dot " + tag, lambda x=x, y=y: dot(B.dev(x), B.dev(y)),
            lambda g, x=x, y=y, dt=dt: check(B, g, [dt.type(exact_sum(
                x.astype(np.float64) * y))], "dot"))
        chk("mean " + tag, lambda x=x: mean(B.dev(x)),
            lambda g, x=x, dt=dt: check(B, g, [dt.type(
                np.float32(exact_sum(x)) / np.float32(x.size))], "mean"))
        chk("cumsum " + tag, lambda k=k: cumsum(B.dev(k)),
            lambda g, k=k, dt=dt: check(B, g, [np.cumsum(
                k.astype(np.float64)).astype(dt)], "cumsum"))
        chk("filter x > 0 " + tag, lambda x=x: positive(B.dev(x)),
            lambda g, x=x: check(B, g, [x[x.astype(np.float32) > 0]],
                                 "filter"))
        chk("max, argmax " + tag, lambda x=x: extremes(B.dev(x)),
            lambda g, x=x: check(B, g, [x.max(), np.int64(
                np.argmax(x.astype(np.float32)))], "max, argmax"))
        chk("sort " + tag, lambda y=y: sort(B.dev(y)),
            lambda g, y=y, dt=dt: check(B, g, [np.sort(
                y.astype(np.float32)).astype(dt)], "sort"))
        s = dt.type(-0.75)
        chk("x * scalar " + tag, lambda x=x, s=s: scale(B.dev(x), s),
            lambda g, x=x, s=s, dt=dt: check(B, g, [(
                x.astype(np.float64) * float(s)).astype(dt)], "scale"))


def _mixed_checks(B, chk, sizes):
    for n in sizes[:3] + sizes[-1:]:
        x = steps(np.float16, n)
        y = np.random.default_rng(3).standard_normal(n).astype(np.float32)
        chk("float16 * float32 n=%d" % n,
            lambda x=x, y=y: mixed(B.dev(x), B.dev(y)),
            lambda g, x=x, y=y: check(B, g, [x.astype(np.float32) * y],
                                      "mixed"))


def _int8_checks(B, chk, sizes):
    for n in sizes:
        for dt in (np.int8, np.uint8):
            x = np.random.default_rng(n).integers(
                np.iinfo(dt).min, int(np.iinfo(dt).max) + 1, n).astype(dt)
            tag = "%s n=%d" % (np.dtype(dt).name, n)
            chk("sum, max " + tag, lambda x=x: int_sum_max(B.dev(x)),
                lambda g, x=x: check(B, g, [x.sum(), x.max()], "sum, max"))
        u = np.random.default_rng(n + 1).integers(0, 256, n).astype(np.uint8)
        chk("uint8 / 255 n=%d" % n, lambda u=u: normalise(B.dev(u)),
            lambda g, u=u: check(B, g, [u.astype(np.float32) / np.float32(
                255.0)], "normalise"))
