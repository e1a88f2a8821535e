"""GPU checks of reductions with function combiners, which the GPU runs
with the ordered reduce kernels (warps fold tiles staged in shared
memory, lanes contiguous pieces, everything combined in index order): run
by gpu_check.py; the data, the traced functions and the references are
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
  an element shows.

Sizes 1, 31, the tile edges of float32 (1023, 1024, 1025: 32 lanes of 32
elements), 1000003 and 2^22 + 17 (many blocks), float32, float64, int32,
int64, uint8, uint32 and uint64 (vectors of 4, 2, 4, 2, 16, 4 and 2
elements), aligned and at an offset of one element (the tiles' scalar
copy)."""

import numpy as np

import fuse
from check_util import Mismatch

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


def _scalar(H, g):
    return np.asarray(H(g)).reshape(())


def check_index(g, want, H, what):
    got = _scalar(H, g)
    if got.dtype != np.int64 or int(got) != int(want):
        raise Mismatch("%s: %s %r, expected int64 %d" % (
            what, got.dtype, got, want))


def check_pair(g, want, H, what):
    """Each result bit for bit, NaN as NaN (the GPU's min/max give its
    canonical NaN, not the operand's payload)."""
    got = [_scalar(H, v) for v in g]
    for v, w in zip(got, want):
        w = np.asarray(w)
        nan = v.dtype.kind == "f" and np.isnan(v) and np.isnan(w)
        if v.dtype != w.dtype or not (nan or v.tobytes() == w.tobytes()):
            raise Mismatch("%s: %r, expected %r" % (what, tuple(got), want))


def at_offset(B, x):
    """x on B's device starting one element into its allocation (not
    16-byte aligned); the stand-in (compile-only) takes it as it is."""
    if B.name == "standin":
        return B.dev(x)
    return B.dev(np.concatenate([x[:1], x]))[1:]


# ---- the checks on device arrays -------------------------------------------

def reduce_checks(B, numeric, ctx, sizes=SIZES):
    """argmax/argmin, (min, max), the affine composition and the last
    element, every dtype and size, aligned and at an offset; argmax of
    flattened 2-d arrays. ctx: gpu_check's run_check."""
    H = B.host

    def chk(name, fn, verify):
        ctx.run_check("%s %s" % (B.name, name), fn,
                      verify if numeric else None)

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
