"""GPU checks of fuse.sort and fuse.argsort, run by gpu_check.py: the
compiled entry calls the runtime's radix sort (CUB) between its fused
groups. NumPy's stable sort is the reference, bit for bit: sizes 0, 1, 31
and 1000003, ties, NaN, infinities and both zeros, integers at the ends
of their ranges, both orders; the input is left as it was; a computed key
(a group before the sort) and a reduction of the sorted keys (a group
after it); a second call gives the same bits. The key data and the
descending reference are shared with the CPU tests (test_sort.py).
np.unique (fuse.unique: the sort, then one fused filter pass; the inverse
a binary search of x in the distinct values) and fuse.run_length_encode
on the same data."""

import numpy as np

import fuse
from check_util import Mismatch, checker

SIZES = [0, 1, 31, 1000003]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint8,
          np.int8, np.uint64, np.int16, np.uint16]


@fuse.jit
def sort_up(x):
    return fuse.sort(x)


@fuse.jit
def sort_down(x):
    return fuse.sort(x, descending=True)


@fuse.jit
def argsort_up(x):
    return fuse.argsort(x)


@fuse.jit
def argsort_down(x):
    return fuse.argsort(x, descending=True)


@fuse.jit
def uniq(x):
    return np.unique(x)


@fuse.jit
def uniq_index_counts(x):
    return np.unique(x, return_index=True, return_counts=True)


@fuse.jit
def uniq_inverse(x):
    return np.unique(x, return_index=True, return_inverse=True,
                     return_counts=True)


@fuse.jit
def rle(x):
    return fuse.run_length_encode(x)


def rle_reference(x):
    """(first element of each run of equal consecutive elements, run
    length): equal as ==, NaN equal to NaN (test_sort.py checks it against
    a plain loop)."""
    n = len(x)
    if n == 0:
        return x[:0], np.zeros(0, np.int64)
    with np.errstate(invalid="ignore"):
        same = x[1:] == x[:-1]
        if x.dtype.kind == "f":
            same |= np.isnan(x[1:]) & np.isnan(x[:-1])
    starts = np.flatnonzero(np.concatenate([[True], ~same]))
    return x[starts], np.diff(np.append(starts, n)).astype(np.int64)


def unique_reference(x):
    """np.unique, NaNs one value (its default), -0.0 and +0.0 one value."""
    return np.unique(x)


def same_values(got, want):
    """Equal dtype, shape and values, NaN equal to NaN (unique keeps -0.0
    or +0.0, whichever its sort puts first: equal values)."""
    got, want = np.asarray(got), np.asarray(want)
    return (got.dtype == want.dtype and got.shape == want.shape and
            np.array_equal(got, want, equal_nan=want.dtype.kind == "f"))


@fuse.jit
def by_square(x):
    """A group computes the keys; another reduces the sorted ones."""
    return fuse.argsort(x * x), fuse.sort(x * x).max()


def data(dt, n, seed=0):
    """n values of dt with many ties; floats with NaN, infinities and both
    zeros, integers with both ends of their range."""
    rng = np.random.default_rng(seed + n)
    dt = np.dtype(dt)
    if dt.kind == "f":
        pool = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.5, -1.5,
                         2.0, -3.25, 1e-30], dt)
        x = rng.uniform(-4, 4, n).astype(dt)
        pick = rng.random(n) < 0.5
        x[pick] = rng.choice(pool, int(pick.sum()))
        return x
    info = np.iinfo(dt)
    pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1],
                    dt)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    x[rng.random(n) < 0.3] = 7          # ties
    pick = rng.random(n) < 0.2
    x[pick] = rng.choice(pool, int(pick.sum()))
    return x


def stable_down(x):
    """The indices of a stable descending sort (equal keys in input
    order; NaN first, as the reverse of NumPy's ascending order)."""
    n = len(x)
    return (n - 1 - np.argsort(x[::-1], kind="stable"))[::-1]


def sort_checks(B, numeric, ctx):
    """ctx: gpu_check's run_check, exact and Mismatch."""
    H = B.host

    def bits(got, want, what):
        got = np.asarray(H(got))
        ctx.exact(got.view(np.uint8), np.asarray(want).view(np.uint8))

    chk = checker(B, numeric, ctx, "sort ")

    for dt in DTYPES:
        dn = np.dtype(dt).name
        for n in SIZES:
            x = data(dt, n)
            dx = B.dev(x)
            up = np.argsort(x, kind="stable")
            down = stable_down(x)
            chk("%s argsort n=%d" % (dn, n), lambda dx=dx: argsort_up(dx),
                lambda g, up=up: ctx.exact(H(g), up))
            chk("%s argsort descending n=%d" % (dn, n),
                lambda dx=dx: argsort_down(dx),
                lambda g, down=down: ctx.exact(H(g), down))
            chk("%s sort n=%d" % (dn, n), lambda dx=dx: sort_up(dx),
                lambda g, x=x, up=up: bits(g, x[up], "keys"))

            def twice(g, dx=dx, x=x, down=down):
                bits(g, x[down], "keys")
                bits(sort_down(dx), x[down], "keys, a second call")
                bits(dx, x, "the input after two sorts")
            chk("%s sort descending, twice, input kept n=%d" % (dn, n),
                lambda dx=dx: sort_down(dx), twice)

            def v_unique(g, x=x):
                want = unique_reference(x)
                got = np.asarray(H(g))
                if not same_values(got, want):
                    raise ctx.Mismatch("%s %s, expected %s %s: %r vs %r" % (
                        got.dtype, got.shape, want.dtype, want.shape,
                        got[:8], want[:8]))
            chk("%s unique n=%d" % (dn, n), lambda dx=dx: uniq(dx), v_unique)

            def v_index_counts(g, x=x):
                want = np.unique(x, return_index=True, return_counts=True)
                for part, got, ref in zip(("values", "index", "counts"), g,
                                          want):
                    if not same_values(np.asarray(H(got)), ref):
                        raise ctx.Mismatch("%s differ" % part)
            chk("%s unique with index and counts n=%d" % (dn, n),
                lambda dx=dx: uniq_index_counts(dx), v_index_counts)

            def v_inverse(g, x=x):
                want = np.unique(x, return_index=True, return_inverse=True,
                                 return_counts=True)
                for part, got, ref in zip(("values", "index", "inverse",
                                           "counts"), g, want):
                    if not same_values(np.asarray(H(got)), ref.reshape(-1)):
                        raise ctx.Mismatch("%s differ" % part)
            chk("%s unique with index, inverse and counts n=%d" % (dn, n),
                lambda dx=dx: uniq_inverse(dx), v_inverse)

            def v_rle(g, x=x):
                for part, got, ref in zip(("values", "counts"), g,
                                          rle_reference(x)):
                    if not same_values(np.asarray(H(got)), ref):
                        raise ctx.Mismatch("run-length %s differ" % part)
            chk("%s run_length_encode n=%d" % (dn, n),
                lambda dx=dx: rle(dx), v_rle)
    x = data(np.float32, 1000003, seed=5)
    x = x[np.isfinite(x)]
    dx = B.dev(x)

    def v_square(g):
        i, m = g
        ctx.exact(H(i), np.argsort(x * x, kind="stable"))
        ctx.exact(np.asarray(H(m)), np.asarray((x * x).max()))
    chk("argsort(x * x) and max of sort(x * x) n=%d" % len(x),
        lambda: by_square(dx), v_square)


def radix_sort_into(keys, out_keys, values=None, out_values=None,
                    descending=False, negate=False, n=None):
    """fuse.compute.radix_sort of keys (or -keys through a
    TransformIterator) and values into the outputs; returns them."""
    import fuse.compute as fc
    order = fc.SortOrder.DESCENDING if descending else fc.SortOrder.ASCENDING
    k = fc.TransformIterator(keys, lambda a: -a) if negate else keys
    fc.radix_sort(d_in_keys=k, d_out_keys=out_keys, d_in_values=values,
                  d_out_values=out_values,
                  num_items=len(keys) if n is None else n, order=order)
    return out_keys if values is None else (out_keys, out_values)


def compute_sort_checks(B, numeric, ctx):
    """radix_sort on B's arrays: keys alone, pairs, descending, computed
    keys, bit for bit against NumPy's stable sort."""
    H = B.host
    x = data(np.float32, 100003, seed=9)
    x = x[~np.isnan(x)]
    n = len(x)
    idx = np.arange(n, dtype=np.int64)
    dx, di = B.dev(x), B.dev(idx)
    up = np.argsort(x, kind="stable")
    down = stable_down(x)
    neg = np.argsort(-x, kind="stable")

    def chk(name, fn, verify):
        ctx.run_check("%s compute.radix_sort %s n=%d" % (B.name, name, n),
                      fn, verify if numeric else None)
    chk("keys", lambda: radix_sort_into(dx, B.empty((n,), np.float32)),
        lambda g: ctx.exact(H(g).view(np.uint32), x[up].view(np.uint32)))
    chk("pairs descending", lambda: radix_sort_into(
        dx, B.empty((n,), np.float32), di, B.empty((n,), np.int64), True),
        lambda g: ctx.exact(H(g[1]), down))
    chk("keys of an iterator", lambda: radix_sort_into(
        dx, B.empty((n,), np.float32), negate=True),
        lambda g: ctx.exact(H(g), (-x)[neg]))


def _magnitude_nan_last(a, b):
    """|a| < |b|, NaN after every number and equal to every NaN: a strict
    weak order over floats with NaN."""
    return (abs(a) < abs(b)) | ((a == a) & (b != b))


@fuse.jit
def by_magnitude_up(x):
    return fuse.argsort(x, less=_magnitude_nan_last)


@fuse.jit
def by_magnitude_down(x):
    return fuse.sort(x, descending=True, less=_magnitude_nan_last)


@fuse.jit
def by_residue(x):
    return fuse.argsort(x, less=lambda a, b: a % 7 < b % 7)


@fuse.jit
def by_residue_then_down(x):
    # Not one function of each key (residue, then the larger first): the
    # GPU keeps the generated merge sort for it.
    return fuse.argsort(x, less=lambda a, b: (a % 7 < b % 7) |
                        ((a % 7 == b % 7) & (a > b)))


@fuse.jit
def by_no_order(x):
    # a + b < 0 is no strict weak order (two negatives go before each
    # other): the order is unspecified, but every position the sort gives
    # must be one of the input's.
    return fuse.argsort(x, less=lambda a, b: a + b < 0)


def positions_in_range(g, n):
    g = np.asarray(g)
    if g.shape != (n,):
        raise Mismatch("shape %s, expected (%d,)" % (g.shape, n))
    bad = (g < 0) | (g >= n)
    if bad.any():
        raise Mismatch("%d of %d positions outside [0, %d), the first %d"
                       % (bad.sum(), n, n, g[np.flatnonzero(bad)[0]]))


@fuse.jit
def by_magnitude_then_value(x):
    # |x|, then the negative first: the merge sort again (NaN-free data).
    return fuse.argsort(x, less=lambda a, b: (abs(a) < abs(b)) |
                        ((abs(a) == abs(b)) & (a < b)))


def magnitude_orders(x):
    """The stable orders by_magnitude_up/down give: by (NaN last, |x|),
    and its reverse with ties still in input order."""
    x = np.asarray(x).astype(np.float64)
    mag, nan = np.abs(x), np.isnan(x)
    return np.lexsort((mag, nan)), np.lexsort((-mag, ~nan))


def merge_sort_into(keys, out_keys, items=None, out_items=None, op=None,
                    n=None):
    """fuse.compute.merge_sort (op: OpKind.LESS by default)."""
    import fuse.compute as fc
    fc.merge_sort(keys, items, out_keys, out_items,
                  fuse.OpKind.LESS if op is None else op,
                  len(out_keys) if n is None else n)
    return out_keys if items is None else (out_keys, out_items)


# Sizes around the merge sort's tiles (1024 keys) and merge passes.
COMPARATOR_SIZES = [0, 1, 5, 1023, 1024, 1025, 2049, 3 * 1024 + 1,
                    (1 << 20) + 3]


def comparator_sort_checks(B, numeric, ctx):
    """Sorts by a comparator region (the generated merge sort on the GPU)
    on B's arrays, against NumPy's stable orders: exact indices, the keys
    bit for bit, f16/bf16 keys, and compute.merge_sort's pairs."""
    import ml_dtypes
    H = B.host
    chk = checker(B, numeric, ctx, "comparator sort ")
    for n in COMPARATOR_SIZES:
        for dt in (np.float32, np.float64, np.int32, np.uint8):
            x = data(dt, n, seed=11)
            dx, dn = B.dev(x), np.dtype(dt).name
            if np.dtype(dt).kind != "f":
                chk("%s by x %% 7 n=%d" % (dn, n), lambda dx=dx: by_residue(dx),
                    lambda g, x=x: ctx.exact(
                        H(g), np.argsort(x % 7, kind="stable")))
                chk("%s by x %% 7 then larger n=%d" % (dn, n),
                    lambda dx=dx: by_residue_then_down(dx),
                    lambda g, x=x: ctx.exact(H(g), np.lexsort(
                        (-x.astype(np.int64), x % 7))))
                continue
            xf = x[~np.isnan(x)]
            dxf = B.dev(xf)
            if dt == np.float32:
                chk("%s argsort by no order n=%d" % (dn, len(xf)),
                    lambda dxf=dxf: by_no_order(dxf),
                    lambda g, m=len(xf): positions_in_range(H(g), m))
            chk("%s argsort by |x| then x n=%d" % (dn, len(xf)),
                lambda dxf=dxf: by_magnitude_then_value(dxf),
                lambda g, xf=xf: ctx.exact(H(g), np.lexsort((xf, np.abs(xf)))))
            up, down = magnitude_orders(x)
            chk("%s argsort by |x| n=%d" % (dn, n),
                lambda dx=dx: by_magnitude_up(dx),
                lambda g, up=up: ctx.exact(H(g), up))
            chk("%s sort by |x| descending n=%d" % (dn, n),
                lambda dx=dx: by_magnitude_down(dx),
                lambda g, x=x, down=down: ctx.exact(
                    np.asarray(H(g)).view(np.uint8), x[down].view(np.uint8)))
    for dt in (np.float16, ml_dtypes.bfloat16):
        x = data(np.float32, 70001, seed=12).astype(dt)
        dx = B.dev(x)
        chk("%s argsort by |x| n=%d" % (np.dtype(dt).name, len(x)),
            lambda dx=dx: by_magnitude_up(dx),
            lambda g, x=x: ctx.exact(H(g), magnitude_orders(x)[0]))
    x = data(np.float64, 300007, seed=13)
    x = x[~np.isnan(x)]
    n = len(x)
    idx = np.arange(n, dtype=np.int64)
    dx, di = B.dev(x), B.dev(idx)
    chk("compute.merge_sort pairs n=%d" % n, lambda: merge_sort_into(
        dx, B.empty((n,), np.float64), di, B.empty((n,), np.int64)),
        lambda g: ctx.exact(H(g[1]), np.argsort(x, kind="stable")))
    # 4-byte items move with their keys at every pass (the 8-byte ones
    # above as positions, gathered by the last pass).
    x32 = x.astype(np.float32)
    i32 = np.arange(n, dtype=np.int32)[::-1].copy()
    dx32, di32 = B.dev(x32), B.dev(i32)
    chk("compute.merge_sort f32 pairs, int32 items n=%d" % n,
        lambda: merge_sort_into(dx32, B.empty((n,), np.float32), di32,
                                B.empty((n,), np.int32)),
        lambda g: ctx.exact(H(g[1]), i32[np.argsort(x32, kind="stable")]))
    chk("compute.merge_sort GREATER n=%d" % n, lambda: merge_sort_into(
        dx, B.empty((n,), np.float64), op=fuse.OpKind.GREATER),
        lambda g: ctx.exact(np.asarray(H(g)).view(np.uint8),
                            x[stable_down(x)].view(np.uint8)))


def unique_by_key_into(keys, items, out_keys, out_items, count, op=None,
                       n=None):
    """fuse.compute.unique_by_key (op: OpKind.EQUAL_TO by default)."""
    import fuse.compute as fc
    fc.unique_by_key(d_in_keys=keys, d_in_items=items, d_out_keys=out_keys,
                     d_out_items=out_items, d_out_num_selected=count,
                     op=fuse.OpKind.EQUAL_TO if op is None else op,
                     num_items=len(keys) if n is None else n)
    return out_keys, out_items, count


def runs_reference(k, same=None):
    """The positions unique_by_key keeps: the first, and each whose key op
    does not call equal to the one before it."""
    k = np.asarray(k)
    if len(k) == 0:
        return np.zeros(0, np.int64)
    eq = (k[:-1] == k[1:]) if same is None else same(k[:-1], k[1:])
    return np.flatnonzero(np.r_[True, ~eq])


def compute_unique_checks(B, numeric, ctx):
    """unique_by_key on B's arrays, against runs_reference."""
    H = B.host
    rng = np.random.default_rng(4)
    k = np.repeat(rng.integers(0, 50, 40000), rng.integers(1, 6, 40000))
    k = k.astype(np.int32)
    items = np.arange(len(k), dtype=np.int64)
    keep = runs_reference(k)
    dk, di = B.dev(k), B.dev(items)

    def verify(g):
        ok, oi, c = g
        c = int(np.asarray(H(c))[0])
        if c != len(keep):
            raise ctx.Mismatch("count %d, expected %d" % (c, len(keep)))
        ctx.exact(np.asarray(H(ok))[:c], k[keep])
        ctx.exact(np.asarray(H(oi))[:c], items[keep])
    ctx.run_check("%s compute.unique_by_key n=%d" % (B.name, len(k)),
                  lambda: unique_by_key_into(
                      dk, di, B.empty((len(k),), np.int32),
                      B.empty((len(k),), np.int64),
                      B.empty((1,), np.int64)),
                  verify if numeric else None)
