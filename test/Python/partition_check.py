"""GPU checks of fuse.topk, fuse.partition and
fuse.compute.three_way_partition (and its object form), run by
gpu_check.py; the data, the traced functions and the references are
shared with the CPU tests (test_partition.py).

The references are NumPy's stable sort and boolean masks, themselves
checked against plain Python loops by test_partition.py. topk: the first
k positions of a stable sort, descending (NaN first, every NaN whatever
its sign bit, equal elements in index order) for the largest, ascending
for the smallest; the values are x at those positions, bit for bit.
Sizes 0, 1, 31 and 1000003, k = 0, 1, 5 and n (a runtime argument, and a
constant k), float32/float64 with NaN of both signs, infinities and both
zeros, signed and unsigned integers at the ends of their ranges with
ties. partition: the kept elements in order, then the others in order,
and the count, for one array and for a (key, index) pair.
three_way_partition: the three parts in input order and the two counts,
overlapping predicates (the first wins), an iterator input, a d_out of
another dtype (the copy path), cuda.compute's keyword form, and the
object form with the caller's temporary storage (no output allocated,
the counts written on the device)."""

import numpy as np

import fuse
import fuse.compute as fc
import sort_check
from check_util import Mismatch, checker

SIZES = [0, 1, 31, 1000003]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.uint32,
          np.uint64]


# ---- the traced functions (one pipeline each per signature) ----------------

@fuse.jit
def top_largest(x, k):
    return fuse.topk(x, k)


@fuse.jit
def top_smallest(x, k):
    return fuse.topk(x, k, largest=False)


@fuse.jit
def top5(x):
    """A constant k: the result's length is known while tracing."""
    return fuse.topk(x, 5)


@fuse.jit
def part_above_one(x):
    return fuse.partition(x, lambda a: a > 1)


@fuse.jit
def part_pairs(x):
    """A (key, position) pair partitioned by the key."""
    return fuse.partition((x, fuse.iota(x.shape[0])), lambda a, i: a > 1)


# ---- data and references ----------------------------------------------------

def data(dt, n, seed=0):
    """sort_check's data (ties; floats with NaN, infinities and both
    zeros; integers at both ends of their range), floats also with NaNs
    whose sign bit is set (x86 makes those: inf - inf)."""
    x = sort_check.data(dt, n, seed)
    if x.dtype.kind == "f":
        rng = np.random.default_rng(seed + 7)
        x[rng.random(n) < 0.05] = -np.abs(np.array(np.nan, x.dtype))
    return x


def order_down(x):
    """The positions of a stable descending sort: NaNs first (any sign),
    equal elements in index order (the reverse of NumPy's stable
    ascending order of the reversed array)."""
    return sort_check.stable_down(x)


def topk_reference(x, k, largest=True):
    """(values, int64 indices) of torch.topk(x, k, largest) under fuse's
    rules (stable; NaN larger than every number)."""
    order = order_down(x) if largest else np.argsort(x, kind="stable")
    idx = np.asarray(order[:k], np.int64)
    return x[idx], idx


def partition_reference(x, keep):
    """(x[keep] then x[~keep], keep.sum())."""
    keep = np.asarray(keep, bool)
    return np.concatenate([x[keep], x[~keep]]), int(keep.sum())


def three_way_reference(x, first, second):
    """The three parts of three_way_partition (an element both predicates
    select is in the first part) and the two counts."""
    a = np.asarray(first(x), bool)
    b = ~a & np.asarray(second(x), bool)
    c = ~a & ~b
    return x[a], x[b], x[c], int(a.sum()), int(b.sum())


def same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, want.dtype, want.shape))
    if got.tobytes() != want.tobytes():
        bad = np.flatnonzero(got.view(np.uint8) != want.view(np.uint8))
        i = bad[0] // want.dtype.itemsize
        raise Mismatch("%s: %d of %d differ (first at %d: %r, expected %r)"
                       % (what, len(set(bad // want.dtype.itemsize)),
                          want.size, i, got[i], want[i]))


def check_topk(got, x, k, largest, host=np.asarray):
    v, i = got
    wv, wi = topk_reference(x, k, largest)
    same_bits(host(i), wi, "indices")
    same_bits(host(v), wv, "values")


def check_partition(got, x, keep, host=np.asarray):
    *parts, count = got
    want, wc = partition_reference(x, keep)
    count = np.asarray(host(count))
    if count.dtype != np.int64 or count.shape != () or count != wc:
        raise Mismatch("count %r (%s), expected %d" % (count, count.dtype,
                                                       wc))
    same_bits(host(parts[0]), want, "partitioned")
    if len(parts) == 2:
        pos = np.arange(len(x), dtype=np.int64)
        same_bits(host(parts[1]), partition_reference(pos, keep)[0],
                  "positions")


def three_way_into(B, x, first, second, n=None, dtype=None, keywords=False,
                   d_in=None):
    """fuse.compute.three_way_partition of x (or of the iterator d_in)
    into outputs of n elements (x's length) of dtype (x's) and an int64
    count pair, positional or with cuda.compute's keywords; returns
    (first, second, unselected, counts)."""
    n = len(x) if n is None else n
    dt = x.dtype if dtype is None else dtype
    outs = [B.empty((n,), dt) for _ in range(3)]
    c = B.dev(np.full(2, -1, np.int64))
    src = B.dev(x) if d_in is None else d_in
    if keywords:
        fc.three_way_partition(
            d_in=src, d_first_part_out=outs[0], d_second_part_out=outs[1],
            d_unselected_out=outs[2], d_num_selected_out=c,
            select_first_part_op=first, select_second_part_op=second,
            num_items=len(x))
    else:
        fc.three_way_partition(src, outs[0], outs[1], outs[2], c, first,
                               second, len(x))
    return outs[0], outs[1], outs[2], c


def same_bits_any_nan(got, want, what):
    """same_bits, except that a NaN matches any NaN: for values the device
    computed or converted (x * x, float32 to float64), whose NaNs are the
    GPU's canonical one where NumPy keeps the operand's sign."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape == want.shape and got.dtype == want.dtype:
        nan_got, nan_want = np.isnan(got), np.isnan(want)
        if (nan_got != nan_want).any():
            i = np.flatnonzero(nan_got != nan_want)[0]
            raise Mismatch("%s: NaN at %d differs (%r, expected %r)"
                           % (what, i, got[i], want[i]))
        got, want = got[~nan_got], want[~nan_want]
    same_bits(got, want, what)


def check_three_way(got, x, first, second, host=np.asarray, dtype=None,
                    nan_bits=True):
    """nan_bits=False: the parts' values were computed or converted on the
    device, so NaNs compare as NaN (same_bits_any_nan)."""
    a, b, c, counts = (np.asarray(host(g)) for g in got)
    wa, wb, wc, na, nb = three_way_reference(x, first, second)
    if list(counts) != [na, nb]:
        raise Mismatch("counts %r, expected [%d, %d]" % (list(counts), na,
                                                          nb))
    dt = x.dtype if dtype is None else np.dtype(dtype)
    cmp = same_bits if nan_bits else same_bits_any_nan
    cmp(a[:na], wa.astype(dt), "first part")
    cmp(b[:nb], wb.astype(dt), "second part")
    cmp(c[:len(wc)], wc.astype(dt), "unselected")


def below(v):
    return lambda a: a < v


# ---- the checks on device arrays -------------------------------------------

def partition_checks(B, numeric, ctx, sizes=SIZES):
    """topk (largest and smallest, k = 0, 1, 5 and n, a runtime k; a
    constant k), partition of one array and of a pair, for every dtype and
    size. ctx: gpu_check's run_check."""
    H = B.host

    chk = checker(B, numeric, ctx)

    for dt in DTYPES:
        dn = np.dtype(dt).name
        for n in sizes:
            x = data(dt, n)
            dx = B.dev(x)
            for k in sorted({0, min(1, n), min(5, n), n}):
                for largest, f in ((True, top_largest),
                                   (False, top_smallest)):
                    chk("topk %s n=%d k=%d largest=%s" % (dn, n, k, largest),
                        lambda f=f, dx=dx, k=k: f(dx, k),
                        lambda g, x=x, k=k, largest=largest: check_topk(
                            g, x, k, largest, H))
            if n >= 5:
                chk("topk %s n=%d constant k=5" % (dn, n),
                    lambda dx=dx: top5(dx),
                    lambda g, x=x: check_topk(g, x, 5, True, H))
            chk("partition %s n=%d" % (dn, n),
                lambda dx=dx: part_above_one(dx),
                lambda g, x=x: check_partition(g, x, x > 1, H))
            chk("partition of a pair %s n=%d" % (dn, n),
                lambda dx=dx: part_pairs(dx),
                lambda g, x=x: check_partition(g, x, x > 1, H))


def compute_checks(B, numeric, ctx):
    """three_way_partition on B's arrays: dtypes and sizes, overlapping
    predicates, the keyword form, an iterator input, a d_out of another
    dtype, and the object form with temporary storage."""
    H = B.host

    chk = checker(B, numeric, ctx, "compute.three_way_partition ")

    first, second = below(2), below(10)
    for dt in (np.float32, np.int32, np.uint64):
        for n in SIZES:
            x = data(dt, n, seed=3)
            chk("%s n=%d" % (np.dtype(dt).name, n),
                lambda x=x: three_way_into(B, x, first, second),
                lambda g, x=x: check_three_way(g, x, first, second, H))
    x = data(np.float32, 100003, seed=4)
    n = len(x)
    chk("keywords n=%d" % n,
        lambda: three_way_into(B, x, first, second, keywords=True),
        lambda g: check_three_way(g, x, first, second, H))
    sq = fc.TransformIterator(B.dev(x), lambda a: a * a)
    chk("of x * x (an iterator) n=%d" % n,
        lambda: three_way_into(B, x, first, second, d_in=sq),
        lambda g: check_three_way(g, x * x, first, second, H,
                                  nan_bits=False))
    chk("into float64 outputs n=%d" % n,
        lambda: three_way_into(B, x, first, second, dtype=np.float64),
        lambda g: check_three_way(g, x, first, second, H, np.float64,
                                  nan_bits=False))
    _object_form(B, numeric, ctx, x)


def _object_form(B, numeric, ctx, x):
    """make_three_way_partition: temp_storage None asks the bytes, then the
    call with storage of that size writes the parts straight into the
    outputs and the counts on the device; on the GPU no output is
    allocated."""
    H = B.host
    n = len(x)
    dx = B.dev(x)
    first, second = below(2), below(10)

    def run():
        outs = [B.empty((n,), np.float32) for _ in range(3)]
        c = B.dev(np.full(2, -1, np.int64))
        p = fc.make_three_way_partition(dx, *outs, c, first, second)
        nbytes = p(None, dx, *outs, c, first, second, n)
        t = B.empty((max(int(nbytes), 1),), np.uint8)
        allocs = getattr(ctx, "CountAllocs", None)
        if allocs is None or isinstance(dx, np.ndarray):
            r = p(t, dx, *outs, c, first, second, n)
            made = 0
        else:
            with allocs() as count:
                r = p(t, dx, *outs, c, first, second, n)
            made = count.n
        return nbytes, r, made, (outs[0], outs[1], outs[2], c)

    def verify(res):
        nbytes, r, made, got = res
        if not isinstance(nbytes, int) or nbytes < 1:
            raise Mismatch("the query answered %r" % (nbytes,))
        if r is not None or made:
            raise Mismatch("returned %r, %d outputs allocated" % (r, made))
        check_three_way(got, x, first, second, H)
    ctx.run_check("%s compute.make_three_way_partition with temp_storage "
                  "n=%d" % (B.name, n), run,
                  verify if numeric else None)
