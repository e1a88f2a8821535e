"""GPU checks of reductions and scans with function combiners, which the
GPU runs with the ordered reduce kernels (warps fold tiles staged in
shared memory, lanes contiguous pieces, everything combined in index
order), the single-pass scan on the values alone (the inits are tile 0's
prefix; no identity), and the line kernels along a dimension of a 2-d array: run by
gpu_check.py; the data, the traced functions and the references are
shared with the CPU tests (test_argreduce.py).

- fuse.argmax / argmin of 1-d arrays and of flattened 2-d arrays, against
  np.argmax / np.argmin (the first extreme, the first NaN where there is
  one); argmax along an axis of a 2-d array is a row reduction with a
  function combiner, which the GPU does not compile yet;
- a (min, max) pair, one tuple reduction of (x, x);
- the composition of affine maps y -> a * y + b over uint32 (wrapping),
  associative but not commutative: any reordering of operands changes the
  result, which the reference computes exactly with suffix products;
- the last element, (acc, e) -> e: any regrouping that drops or reorders
  an element shows;
- scans: the affine composition (inclusive and exclusive, exact against
  prefix products and modular inverses), a running (max, first position)
  pair and the last element (a copy), and argmax along either dimension
  and the affine scan along the rows of 2-d arrays (the line kernels).

Sizes 1, 31, the tile edges of float32 (1023, 1024, 1025: 32 lanes of 32
elements), 1000003 and 2^22 + 17 (many blocks), float32, float64, int32,
int64, uint8, uint32 and uint64 (vectors of 4, 2, 4, 2, 16, 4 and 2
elements), aligned and at an offset of one element (the tiles' scalar
copy)."""

import numpy as np

import fuse
from check_util import Mismatch, at_offset, checker, same

SIZES = [1, 31, 1023, 1024, 1025, 1000003, (1 << 22) + 17]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.uint32,
          np.uint64]


# ---- the traced functions (one pipeline each per signature) ----------------

@fuse.jit
def argmax(x):
    return fuse.argmax(x)


@fuse.jit
def argmin(x):
    return fuse.argmin(x)


@fuse.jit
def builtin_max(x):
    """The built-in kind, the bandwidth the combiners are measured against
    (bench/reduce_bench.py)."""
    return x.max()


@fuse.jit
def minmax(x):
    lo = np.asarray(np.inf if x.dtype.kind == "f" else
                    np.iinfo(x.dtype).max, x.dtype)[()]
    hi = np.asarray(-np.inf if x.dtype.kind == "f" else
                    np.iinfo(x.dtype).min, x.dtype)[()]
    return fuse.reduce((x, x), lambda acc, e: (fuse.minimum(acc[0], e[0]),
                                               fuse.maximum(acc[1], e[1])),
                       init=(lo, hi))


@fuse.jit
def affine(a, b):
    """The composition f_{n-1} o ... o f_0 of f_i(y) = a_i * y + b_i."""
    return fuse.reduce((a, b), lambda acc, e: (e[0] * acc[0],
                                               e[0] * acc[1] + e[1]),
                       init=(np.uint32(1), np.uint32(0)))


@fuse.jit
def last(x):
    return fuse.reduce(x, lambda acc, e: e, init=np.zeros((), x.dtype)[()])


def _compose(acc, e):
    return e[0] * acc[0], e[0] * acc[1] + e[1]


@fuse.jit
def affine_scan(a, b):
    """The prefix compositions (A_i, B_i) of f_i(y) = a_i * y + b_i: y_i =
    B_i is the recurrence y_i = a_i * y_{i-1} + b_i from y_{-1} = 0."""
    return fuse.scan((a, b), _compose, init=(np.uint32(1), np.uint32(0)))


@fuse.jit
def affine_scan_excl(a, b):
    return fuse.scan((a, b), _compose, init=(np.uint32(1), np.uint32(0)),
                     exclusive=True)


@fuse.jit
def affine_scan_rows(a, b):
    return fuse.scan((a, b), _compose, init=(np.uint32(1), np.uint32(0)),
                     axis=1)


@fuse.jit
def running_argmax(x):
    """(running max, position of its first occurrence)."""
    def pick(acc, e):
        take = (acc[1] < 0) | (e[0] > acc[0])
        return fuse.where(take, e[0], acc[0]), fuse.where(take, e[1], acc[1])
    lo = np.asarray(np.iinfo(np.int32).min, np.int32)[()]
    return fuse.scan((x, fuse.iota(x.shape[0])), pick,
                     init=(lo, np.int64(-1)))


@fuse.jit
def copy_scan(x):
    return fuse.scan(x, lambda acc, e: e, init=np.zeros((), x.dtype)[()])


@fuse.jit
def argmax_axis0(x):
    return fuse.argmax(x, axis=0)


@fuse.jit
def argmax_axis1(x):
    return fuse.argmax(x, axis=1)


# ---- data and references ----------------------------------------------------

def data(dt, n, seed=0):
    """Values with many ties (argmax's first-occurrence rule matters);
    floats with a few NaNs past the middle when n > 100."""
    rng = np.random.default_rng(seed + n)
    if np.dtype(dt).kind == "f":
        x = rng.integers(-50, 50, n).astype(dt)
        if n > 100:
            x[rng.integers(n // 2, n, 3)] = np.nan
        return x
    info = np.iinfo(dt)
    lo, hi = max(info.min, -50), min(info.max, 50)
    x = rng.integers(lo, hi + 1, n).astype(dt)
    if n > 10:
        x[rng.integers(0, n, 2)] = info.max
        x[rng.integers(0, n, 2)] = info.min
    return x


def affine_data(n, seed=0):
    rng = np.random.default_rng(seed + 7 * n)
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32) | 1
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return a, b


def affine_ref(a, b):
    """(prod a, sum_i b_i * prod_{j > i} a_j), mod 2^32."""
    with np.errstate(over="ignore"):
        suffix = np.cumprod(a[::-1], dtype=np.uint32)[::-1]
        after = np.concatenate([suffix[1:], np.ones(1, np.uint32)])
        return (np.prod(a, dtype=np.uint32),
                np.sum(b * after, dtype=np.uint32))


def _inverse(a):
    """The inverses mod 2^32 of odd uint32 a (Newton's iteration doubles
    the correct low bits: 5 steps from 3)."""
    with np.errstate(over="ignore"):
        inv = a.copy()
        for _ in range(5):
            inv = inv * (np.uint32(2) - a * inv)
    return inv


def affine_scan_ref(a, b, exclusive=False):
    """The prefix compositions: A_i = prod_{j<=i} a_j, B_i = sum_{j<=i}
    b_j * prod_{j<k<=i} a_k = A_i * sum_{j<=i} b_j / A_j (mod 2^32, every
    a odd); exclusive: (1, 0), then the inclusive ones shifted."""
    with np.errstate(over="ignore"):
        A = np.cumprod(a, dtype=np.uint32)
        B = A * np.cumsum(b * _inverse(A), dtype=np.uint32)
    if exclusive:
        A = np.concatenate([np.ones(1, np.uint32), A[:-1]])
        B = np.concatenate([np.zeros(1, np.uint32), B[:-1]])
    return A, B


def running_argmax_ref(x):
    m = np.maximum.accumulate(x)
    first = np.zeros(len(x), np.int64)
    if len(x):
        new = np.concatenate([[True], x[1:] > m[:-1]])
        first = np.maximum.accumulate(np.where(new, np.arange(len(x)), 0))
    return m, first


def check_arrays(g, want, H, what):
    """Every result array bit for bit, of the expected dtype and shape."""
    got = [np.asarray(H(v)) for v in (g if isinstance(g, tuple) else (g,))]
    for i, (v, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        if v.dtype != w.dtype or v.shape != w.shape:
            raise Mismatch("%s result %d: %s %s, expected %s %s" % (
                what, i, v.dtype, v.shape, w.dtype, w.shape))
        bad = np.flatnonzero(v.view(np.uint8).reshape(v.size, -1) !=
                             w.view(np.uint8).reshape(w.size, -1)) \
            if v.size else []
        if len(bad):
            j = bad[0] // v.itemsize
            raise Mismatch("%s result %d: %d bytes differ (first at %d: %r, "
                           "expected %r)" % (what, i, len(bad), j,
                                             v.flat[j], w.flat[j]))


def _scalar(H, g):
    return np.asarray(H(g)).reshape(())


def check_index(g, want, H, what):
    got = _scalar(H, g)
    if got.dtype != np.int64 or int(got) != int(want):
        raise Mismatch("%s: %s %r, expected int64 %d" % (
            what, got.dtype, got, want))


def check_pair(g, want, H, what):
    """Each scalar result as check_util.same compares: its dtype, NaN as
    NaN (the GPU's min/max give its canonical NaN, not the operand's
    payload), other values and the sign of zeros exactly."""
    for i, (v, w) in enumerate(zip(g, want)):
        same(_scalar(H, v), np.asarray(w), "%s result %d" % (what, i))


# ---- the checks on device arrays -------------------------------------------

def combiner_checks(B, numeric, ctx, sizes=SIZES):
    """argmax/argmin, (min, max), the affine composition and the last
    element, every dtype and size, aligned and at an offset; argmax of
    flattened 2-d arrays. ctx: gpu_check's run_check."""
    H = B.host

    chk = checker(B, numeric, ctx)

    for dt in DTYPES:
        dn = np.dtype(dt).name
        for n in sizes:
            x = data(dt, n)
            for where, dx in (("", B.dev(x)), (" at an offset",
                                                at_offset(B, x))):
                tag = "%s n=%d%s" % (dn, n, where)
                chk("argmax " + tag, lambda dx=dx: argmax(dx),
                    lambda g, x=x, tag=tag: check_index(
                        g, np.argmax(x), H, "argmax " + tag))
                chk("argmin " + tag, lambda dx=dx: argmin(dx),
                    lambda g, x=x, tag=tag: check_index(
                        g, np.argmin(x), H, "argmin " + tag))
                chk("(min, max) " + tag, lambda dx=dx: minmax(dx),
                    lambda g, x=x, tag=tag: check_pair(
                        g, (np.min(x), np.max(x)), H, "(min, max) " + tag))
                chk("max " + tag, lambda dx=dx: builtin_max(dx),
                    lambda g, x=x, tag=tag: check_pair(
                        [g], (np.max(x),), H, "max " + tag))
                chk("last " + tag, lambda dx=dx: last(dx),
                    lambda g, x=x, tag=tag: check_pair(
                        [g], (x[-1],), H, "last " + tag))
    for n in sizes:
        a, b = affine_data(n)
        for where, da, db in (("", B.dev(a), B.dev(b)),
                              (" at an offset", at_offset(B, a),
                               at_offset(B, b))):
            chk("affine composition uint32 n=%d%s" % (n, where),
                lambda da=da, db=db: affine(da, db),
                lambda g, a=a, b=b, n=n: check_pair(
                    g, affine_ref(a, b), H, "affine n=%d" % n))
    for rows, cols in ((3, 1), (1000, 37), (257, 4096), (64, 100003)):
        x = data(np.float32, rows * cols, seed=5).reshape(rows, cols)
        dx = B.dev(x)
        chk("argmax of the flattened %dx%d" % (rows, cols),
            lambda dx=dx: argmax(dx),
            lambda g, x=x: check_index(g, np.argmax(x), H, "argmax 2-d"))
        for axis, f in ((0, argmax_axis0), (1, argmax_axis1)):
            chk("argmax along axis %d %dx%d" % (axis, rows, cols),
                lambda dx=dx, f=f: f(dx),
                lambda g, x=x, axis=axis: check_arrays(
                    g, [np.argmax(x, axis=axis)], H, "argmax axis"))
    scan_checks(B, numeric, ctx, sizes)


def scan_checks(B, numeric, ctx, sizes=SIZES):
    """Scans with function combiners: the affine composition (inclusive
    and exclusive, aligned and at an offset), a running (max, position)
    pair and the last element; the affine scan along the rows of 2-d
    arrays."""
    H = B.host

    chk = checker(B, numeric, ctx)

    for n in sizes:
        a, b = affine_data(n, seed=1)
        for where, da, db in (("", B.dev(a), B.dev(b)),
                              (" at an offset", at_offset(B, a),
                               at_offset(B, b))):
            for excl, f in ((False, affine_scan), (True, affine_scan_excl)):
                what = "affine %s scan uint32 n=%d%s" % (
                    "exclusive" if excl else "inclusive", n, where)
                chk(what, lambda da=da, db=db, f=f: f(da, db),
                    lambda g, a=a, b=b, excl=excl, what=what: check_arrays(
                        g, affine_scan_ref(a, b, excl), H, what))
        x = data(np.int32, n, seed=2)
        dx = B.dev(x)
        chk("running (max, position) int32 n=%d" % n,
            lambda dx=dx: running_argmax(dx),
            lambda g, x=x: check_arrays(g, running_argmax_ref(x), H,
                                        "running argmax"))
        y = data(np.float64, n, seed=3)
        chk("last-element scan float64 n=%d" % n,
            lambda y=y: copy_scan(B.dev(y)),
            lambda g, y=y: check_arrays(g, [y], H, "copy scan"))
    for rows, cols in ((3, 1), (1000, 37), (64, 4099)):
        a, b = affine_data(rows * cols, seed=4)
        a, b = a.reshape(rows, cols), b.reshape(rows, cols)
        want = [np.stack(v) for v in zip(*(affine_scan_ref(a[r], b[r])
                                           for r in range(rows)))]
        chk("affine scan along rows %dx%d" % (rows, cols),
            lambda a=a, b=b: affine_scan_rows(B.dev(a), B.dev(b)),
            lambda g, want=want: check_arrays(g, want, H, "rows scan"))
