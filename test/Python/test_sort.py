"""fuse.sort and fuse.argsort on NumPy arrays (the CPU backend) against
NumPy's stable sort: sizes 0, 1, 31 and 1000003, ties, NaN, -0.0 and +0.0,
signed and unsigned integers at the ends of their ranges, both orders,
and the inputs left as they were. The data and the functions are
sort_check.py's (the same checks on the GPU)."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc
import sort_check
from sort_check import (DTYPES, SIZES, argsort_down, argsort_up,
                        by_magnitude_down, by_magnitude_up, by_residue, data,
                        magnitude_orders, merge_sort_into, radix_sort_into,
                        runs_reference, same_values, sort_down, sort_up,
                        stable_down, uniq, uniq_index_counts,
                        unique_by_key_into, unique_reference)


def same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_sort_and_argsort_match_numpy(dt, n):
    x = data(dt, n)
    keep = x.copy()
    up = np.argsort(x, kind="stable")
    down = stable_down(x)
    # Argsort checks stability (ties and both zeros keep input order);
    # the sorted keys are compared bit for bit (-0.0 stays -0.0).
    np.testing.assert_array_equal(argsort_up(x), up)
    np.testing.assert_array_equal(argsort_down(x), down)
    same_bits(sort_up(x), x[up])
    same_bits(sort_down(x), x[down])
    same_bits(x, keep)                  # the input is not sorted in place


def test_argsort_dtype_and_computed_keys():
    @fuse.jit
    def by_square(x):
        return fuse.argsort(x * x), fuse.sort(x * x).sum()
    x = np.array([3, -1, 2, 1, -3, 0], np.float32)
    i, s = by_square(x)
    assert i.dtype == np.int64
    np.testing.assert_array_equal(i, np.argsort(x * x, kind="stable"))
    assert s == np.float32((x * x).sum())


def test_bool_keys_sort_false_first():
    @fuse.jit
    def f(b):
        return fuse.argsort(b), fuse.argsort(b, descending=True)
    b = np.array([True, False, True, False, False, True])
    up, down = f(b)
    np.testing.assert_array_equal(up, np.argsort(b, kind="stable"))
    np.testing.assert_array_equal(down, stable_down(b))


@pytest.mark.parametrize("bad, exc, msg", [
    (lambda x: fuse.sort(x), ValueError, "rank 1, got rank 2"),
    (lambda x: fuse.argsort(x), ValueError, "rank 1, got rank 2"),
    (lambda x: fuse.sort(x.sum(axis=0), descending="yes"), TypeError,
     "descending must be True or False"),
])
def test_errors(bad, exc, msg):
    f = fuse.jit(bad)
    with pytest.raises(exc, match=msg):
        f(np.zeros((3, 4), np.float32))


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_unique_matches_numpy(dt, n):
    x = data(dt, n)
    keep = x.copy()
    assert same_values(uniq(x), unique_reference(x))
    got = uniq_index_counts(x)
    want = np.unique(x, return_index=True, return_counts=True)
    assert len(got) == 3
    for g, w in zip(got, want):
        assert same_values(g, w)
    same_bits(x, keep)


def test_unique_collapses_nans_and_zeros():
    x = np.array([np.nan, 1.0, -0.0, np.nan, 0.0, 1.0, -np.inf], np.float64)
    got = fuse.jit(lambda a: fuse.unique(a))(x)
    assert same_values(got, np.array([-np.inf, 0.0, 1.0, np.nan]))


@pytest.mark.parametrize("flags", [
    (False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8,
                                np.uint64])
@pytest.mark.parametrize("n", [0, 1, 31, 1000003])
def test_unique_inverse(flags, dt, n):
    """return_inverse in NumPy's order of results, with and without the
    index and the counts: values[inverse] is x (NaN for NaN, either zero
    for a zero)."""
    index, counts = flags
    rng = np.random.default_rng(n)
    x = rng.integers(0, 50, n).astype(dt)
    if np.dtype(dt).kind == "f" and n > 10:
        x[rng.integers(0, n, 5)] = np.nan
        x[rng.integers(0, n, 5)] = -0.0
    f = fuse.jit(lambda a: np.unique(a, return_index=index,
                                     return_inverse=True,
                                     return_counts=counts))
    got = f(x)
    want = np.unique(x, return_index=index, return_inverse=True,
                     return_counts=counts)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert same_values(g, w.reshape(-1))
    inv = got[2 if index else 1]
    assert inv.dtype == np.int64
    np.testing.assert_array_equal(got[0][inv], x)


@pytest.mark.parametrize("kw, msg", [
    ({"equal_nan": False}, "equal_nan=False"),
])
def test_unique_unsupported_arguments(kw, msg):
    f = fuse.jit(lambda a: np.unique(a, **kw))
    with pytest.raises(TypeError, match=msg):
        f(np.ones(4, np.float32))


def test_unique_needs_rank_1():
    with pytest.raises(TypeError, match="1-d arrays"):
        fuse.jit(lambda a: np.unique(a))(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="rank 1, got rank 2"):
        fuse.jit(lambda a: fuse.unique(a))(np.ones((2, 3), np.float32))


def test_unique_counts_alone_and_index_alone():
    x = np.array([2, 2, 0, 5, 0, 2, 9], np.int64)
    v, c = fuse.jit(lambda a: np.unique(a, return_counts=True))(x)
    np.testing.assert_array_equal(v, [0, 2, 5, 9])
    np.testing.assert_array_equal(c, [2, 3, 1, 1])
    assert c.dtype == np.int64
    v, i = fuse.jit(lambda a: fuse.unique(a, return_index=True))(x)
    np.testing.assert_array_equal(i, [2, 0, 3, 6])


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_compute_radix_sort_matches_numpy(dt):
    x = data(dt, 1000003 if dt == np.float32 else 31)
    keep = x.copy()
    idx = np.arange(len(x), dtype=np.int64)
    up = np.argsort(x, kind="stable")
    same_bits(radix_sort_into(x, np.empty_like(x)), x[up])
    k, v = radix_sort_into(x, np.empty_like(x), idx, np.empty_like(idx),
                           descending=True)
    np.testing.assert_array_equal(v, stable_down(x))
    same_bits(k, x[stable_down(x)])
    same_bits(x, keep)


def test_compute_radix_sort_iterator_keys_and_fewer_items():
    x = np.array([4, -1, 3, 2, 9, 0], np.float32)
    out = np.full(6, 7, np.float32)
    radix_sort_into(x, out, negate=True, n=4)
    np.testing.assert_array_equal(out, [-4, -3, -2, 1, 7, 7])


def test_compute_radix_sort_errors():
    x = np.ones(4, np.float32)
    asc = fc.SortOrder.ASCENDING
    with pytest.raises(TypeError, match="must be a fuse.compute.SortOrder"):
        fc.radix_sort(d_in_keys=x, d_out_keys=x.copy(), num_items=4,
                      order="ascending")
    with pytest.raises(ValueError, match="give both d_in_values"):
        fc.radix_sort(d_in_keys=x, d_out_keys=x.copy(), d_in_values=x,
                      num_items=4, order=asc)
    with pytest.raises(TypeError, match="only the keys' full width"):
        fc.radix_sort(d_in_keys=x, d_out_keys=x.copy(), num_items=4,
                      order=asc, begin_bit=4)
    with pytest.raises(TypeError, match="a sort does not convert"):
        fc.radix_sort(d_in_keys=x, d_out_keys=np.empty(4, np.float64),
                      num_items=4, order=asc)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_compute_unique_by_key_matches_runs(dt, n):
    rng = np.random.default_rng(n)
    k = np.sort(data(dt, n))          # long runs of equal keys, NaN too
    items = rng.integers(-9, 9, n).astype(np.int16)
    out_k, out_i = np.zeros(n, dt), np.zeros(n, np.int16)
    count = np.zeros(1, np.int64)
    unique_by_key_into(k, items, out_k, out_i, count)
    keep = runs_reference(k)          # NaN == NaN is false: each its own
    assert count[0] == len(keep)
    same_bits(out_k[:len(keep)], k[keep])
    np.testing.assert_array_equal(out_i[:len(keep)], items[keep])


def test_compute_unique_by_key_custom_op_and_fewer_items():
    k = np.array([1, 1, 2, 2, 2, 1, 3, 3, 9, 9], np.float32)
    v = np.arange(10, dtype=np.int32)
    ok, ov = np.full(10, -1, np.float32), np.full(10, -1, np.int32)
    c = np.zeros(1, np.int64)
    unique_by_key_into(k, v, ok, ov, c, op=lambda a, b: abs(a - b) < 1.5,
                       n=8)
    assert c[0] == 2
    np.testing.assert_array_equal(ov[:2], [0, 6])
    np.testing.assert_array_equal(ok[:2], [1, 3])
    assert (ov[2:] == -1).all()


def test_compute_unique_by_key_errors():
    k = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="op must return booleans"):
        unique_by_key_into(k, k, k.copy(), k.copy(), np.zeros(1, np.int64),
                           op=lambda a, b: a + b)
    with pytest.raises(ValueError, match="has 2 elements but 4 were "
                       "selected"):
        unique_by_key_into(np.arange(4, dtype=np.float32), k,
                           np.zeros(2, np.float32), np.zeros(4, np.float32),
                           np.zeros(1, np.int64))


def rle_reference(x):
    """(first element of each run, run length) by a plain loop: equal as
    ==, NaN equal to NaN."""
    vals, counts = [], []
    for v in x.tolist():
        if vals and (vals[-1] == v or (vals[-1] != vals[-1] and v != v)):
            counts[-1] += 1
        else:
            vals.append(v)
            counts.append(1)
    return np.array(vals, x.dtype), np.array(counts, np.int64)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8,
                                np.uint64])
@pytest.mark.parametrize("n", [0, 1, 31, 1000003])
def test_run_length_encode(dt, n):
    rng = np.random.default_rng(n + 1)
    x = np.repeat(rng.integers(0, 4, n), rng.integers(1, 4, n))[:n].astype(dt)
    if np.dtype(dt).kind == "f" and n > 10:
        x[5:9] = np.nan
        x[9:11] = [-0.0, 0.0]
    v, c = fuse.jit(lambda a: fuse.run_length_encode(a))(x)
    wv, wc = rle_reference(x)
    sv, sc = sort_check.rle_reference(x)     # the GPU check's reference
    assert same_values(sv, wv) and np.array_equal(sc, wc)
    assert same_values(v, wv) and c.dtype == np.int64
    np.testing.assert_array_equal(c, wc)
    assert c.sum() == n


def test_run_length_encode_needs_rank_1():
    with pytest.raises(ValueError, match="rank 1, got rank 2"):
        fuse.jit(lambda a: fuse.run_length_encode(a))(np.ones((2, 3)))


# ---- comparator sorts (fuse.sort/argsort less=, compute.merge_sort) ----------

@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_comparator_sort_matches_numpy(dt, n):
    x = data(dt, n)
    if np.dtype(dt).kind == "f":
        up, down = magnitude_orders(x)
        np.testing.assert_array_equal(by_magnitude_up(x), up)
        same_bits(by_magnitude_down(x), x[down])
    else:
        np.testing.assert_array_equal(by_residue(x),
                                      np.argsort(x % 7, kind="stable"))


def test_comparator_sort_of_halves_and_not_an_order():
    import ml_dtypes
    x = data(np.float32, 4099, seed=3)
    x = x[~np.isnan(x)]
    for dt in (np.float16, ml_dtypes.bfloat16):
        h = x.astype(dt)
        got = by_magnitude_up(h)
        np.testing.assert_array_equal(
            got, np.argsort(np.abs(h.astype(np.float32)), kind="stable"))

    # Not a strict weak order: the result is still a permutation of the
    # input, the same on every call.
    @fuse.jit
    def anyhow(x):
        return fuse.sort(x, less=lambda a, b: a != b)
    y = data(np.int32, 1001)
    first = anyhow(y)
    np.testing.assert_array_equal(np.sort(first), np.sort(y))
    np.testing.assert_array_equal(anyhow(y), first)


def test_comparator_sort_errors():
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="comparator must return a boolean"):
        fuse.jit(lambda x: fuse.sort(x, less=lambda a, b: a - b))(x)
    with pytest.raises(TypeError, match="may use only its arguments"):
        fuse.jit(lambda x: fuse.sort(x, less=lambda a, b: a < x.sum()))(x)
    # Booleans: true before false.
    b = np.array([False, True, True, False, True])
    got = fuse.jit(lambda b: fuse.argsort(b, less=lambda p, q: p & ~q))(b)
    np.testing.assert_array_equal(got, [1, 2, 4, 0, 3])


@pytest.mark.parametrize("n", SIZES)
def test_compute_merge_sort_matches_numpy(n):
    x = data(np.float64, n, seed=2)
    x = x[~np.isnan(x)]
    idx = np.arange(len(x), dtype=np.int64)
    keep = x.copy()
    up = np.argsort(x, kind="stable")
    k, v = merge_sort_into(x, np.empty_like(x), idx, np.empty_like(idx))
    np.testing.assert_array_equal(v, up)
    np.testing.assert_array_equal(k, x[up])
    k = merge_sort_into(x, np.empty_like(x), op=fuse.OpKind.GREATER)
    np.testing.assert_array_equal(k, x[stable_down(x)])
    same_bits(x, keep)
    # A function of the keys, on keys an iterator computes.
    neg = fc.TransformIterator(x, lambda a: -a)
    k = merge_sort_into(neg, np.empty_like(x),
                        op=lambda a, b: abs(a) < abs(b))
    np.testing.assert_array_equal(k, (-x)[np.argsort(np.abs(x),
                                                     kind="stable")])


def test_compute_merge_sort_fewer_items_and_errors():
    x = np.array([4, -1, 3, 2, 9, 0], np.int32)
    out = np.full(6, 7, np.int32)
    merge_sort_into(x, out, n=4)
    np.testing.assert_array_equal(out, [-1, 2, 3, 4, 7, 7])
    with pytest.raises(ValueError, match="give both d_in_items and "
                       "d_out_items"):
        fc.merge_sort(x, x, x.copy(), None, fuse.OpKind.LESS, 6)
    with pytest.raises(TypeError, match="a sort does not convert"):
        merge_sort_into(x, np.empty(6, np.int64))
    with pytest.raises(TypeError, match="comparator must return a boolean"):
        merge_sort_into(x, x.copy(), op=lambda a, b: a + b)
