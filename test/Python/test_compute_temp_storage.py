"""fuse.compute's object form (make_reduce_into, make_inclusive_scan,
make_exclusive_scan, make_select, make_segmented_reduce, make_radix_sort,
make_merge_sort, make_histogram_even, make_lower_bound, make_upper_bound),
called as
cuda.compute's are, with temp_storage first, on NumPy arrays: the CPU
backend runs, temp_storage None asks the bytes (1 on the CPU, where the
storage is not used), and the call gives the plain algorithm's results.
GPU runs of the capture-safe form: temp_storage_check.py."""

import numpy as np
import pytest

import fuse.compute as fc
from fuse import OpKind

from conftest import rand, sum_rtol


def storage(reducer_bytes):
    return np.empty(reducer_bytes, np.uint8)


def test_reduce_into():
    x = rand(1000003, seed=1)
    out = np.zeros(1, np.float32)
    sq = fc.TransformIterator(x, lambda a: a * a)
    red = fc.make_reduce_into(sq, out, OpKind.PLUS, np.float32(0))
    nbytes = red(None, sq, out, x.size, np.float32(0))
    assert nbytes == 1
    assert out[0] == 0          # the query runs nothing
    assert red(storage(nbytes), sq, out, x.size, np.float32(0)) is None
    ref = np.sum(x.astype(np.float64) ** 2)
    assert abs(out[0] - ref) <= sum_rtol(x.size) * ref
    plain = np.zeros(1, np.float32)
    fc.reduce_into(sq, plain, OpKind.PLUS, x.size, np.float32(0))
    assert out[0] == plain[0]


@pytest.mark.parametrize("n", [0, 1, 31, 1000])
def test_scans(n):
    x = np.random.default_rng(n).integers(-100, 100, n).astype(np.int32)
    inc, exc = np.empty(n, np.int32), np.empty(n, np.int32)
    si = fc.make_inclusive_scan(x, inc, OpKind.PLUS, None)
    si(storage(si(None, x, inc, n, None)), x, inc, n, None)
    np.testing.assert_array_equal(inc, np.cumsum(x, dtype=np.int32))
    se = fc.make_exclusive_scan(x, exc, OpKind.PLUS, np.int32(7))
    se(storage(se(None, x, exc, n, np.int32(7))), x, exc, n, np.int32(7))
    np.testing.assert_array_equal(
        exc, (7 + np.concatenate([[0], np.cumsum(x)[:-1]]))[:n].astype(
            np.int32))


def test_select():
    x = rand(1000, seed=2)
    out, count = np.zeros(1000, np.float32), np.zeros(1, np.int64)
    sel = fc.make_select(x, out, count, lambda a: a > 0)
    sel(storage(sel(None, x, out, count, 1000)), x, out, count, 1000)
    kept = x[x > 0]
    assert count[0] == kept.size
    np.testing.assert_array_equal(out[:kept.size], kept)


def test_segmented_reduce():
    X = rand((13, 17), seed=3)
    out = np.zeros(13, np.float32)
    red = fc.make_segmented_reduce(X, out, OpKind.MAXIMUM, np.float32(-np.inf))
    red(storage(red(None, X, out, 13, 17, np.float32(-np.inf))), X, out, 13,
        17, np.float32(-np.inf))
    np.testing.assert_array_equal(out, X.max(axis=1))


def test_errors():
    x = rand(10, seed=4)
    out = np.zeros(1, np.float32)
    red = fc.make_reduce_into(x, out, OpKind.PLUS, np.float32(0))
    with pytest.raises(TypeError, match="temp_storage: expected a CUDA "
                       "array or None"):
        red([1, 2], x, out, 10, np.float32(0))
    with pytest.raises(TypeError, match="cond must be a function"):
        fc.make_select(x, out, out, 3)
    with pytest.raises(ValueError, match="d_out: has 1 elements but 10"):
        sc = fc.make_inclusive_scan(x, out, OpKind.PLUS, None)
        sc(None, x, out, 10, None)


@pytest.mark.parametrize("n", [0, 1, 31, 1000])
def test_radix_and_merge_sorts(n):
    rng = np.random.default_rng(n)
    k = rng.integers(-50, 50, n).astype(np.int32)
    v = np.arange(n, dtype=np.int64)
    ok, ov = np.empty(n, np.int32), np.empty(n, np.int64)
    rs = fc.make_radix_sort(d_in_keys=k, d_out_keys=ok, d_in_values=v,
                            d_out_values=ov, order=fc.SortOrder.DESCENDING)
    args = dict(d_in_keys=k, d_out_keys=ok, d_in_values=v, d_out_values=ov,
                num_items=n)
    nbytes = rs(temp_storage=None, **args)
    assert nbytes == 1
    assert rs(temp_storage=storage(nbytes), **args) is None
    order = np.argsort(-k.astype(np.int64), kind="stable")
    np.testing.assert_array_equal(ok, k[order])
    np.testing.assert_array_equal(ov, order)
    keys_only = np.empty(n, np.int32)
    ms = fc.make_merge_sort(d_in_keys=k, d_out_keys=keys_only,
                            op=lambda a, b: abs(a) < abs(b))
    margs = dict(d_in_keys=k, d_in_values=None, d_out_keys=keys_only,
                 d_out_values=None, num_items=n,
                 op=lambda a, b: abs(a) < abs(b))
    ms(temp_storage=storage(ms(temp_storage=None, **margs)), **margs)
    np.testing.assert_array_equal(
        keys_only, k[np.argsort(np.abs(k), kind="stable")])


def test_histogram_even_and_binary_search_objects():
    x = rand(10007, seed=3)
    h = np.full(9, -1, np.int32)   # 8 bins; the last element stays
    kw = dict(d_samples=x, d_histogram=h,
              h_num_output_levels=np.array([9], np.int32),
              h_lower_level=np.array([-1.0], np.float32),
              h_upper_level=np.array([1.0], np.float32), num_samples=x.size)
    hist = fc.make_histogram_even(**kw)
    assert hist(temp_storage=None, **kw) == 1
    assert hist(temp_storage=storage(1), **kw) is None
    want = np.histogram(x, bins=8, range=(-1.0, 1.0))[0]
    np.testing.assert_array_equal(h[:8], want)
    assert h[8] == -1
    data = np.sort(rand(1000, seed=4))
    vals = rand(333, seed=5)
    lo, hi = np.empty(333, np.int64), np.empty(333, np.int64)
    for make, out, side in ((fc.make_lower_bound, lo, "left"),
                            (fc.make_upper_bound, hi, "right")):
        s = make(d_data=data, d_values=vals, d_out=out)
        s(d_data=data, num_items=data.size, d_values=vals,
          num_values=vals.size, d_out=out)
        np.testing.assert_array_equal(out, np.searchsorted(data, vals,
                                                           side=side))


@pytest.mark.parametrize("n", [0, 1, 31, 1000])
def test_unique_by_key(n):
    k = np.sort(np.random.default_rng(n).integers(0, 40, n)).astype(np.int32)
    items = np.arange(n, dtype=np.float32)
    ok, oi = np.zeros(n, np.int32), np.zeros(n, np.float32)
    cnt = np.zeros(1, np.int64)
    kw = dict(d_in_keys=k, d_in_items=items, d_out_keys=ok, d_out_items=oi,
              d_out_num_selected=cnt, op=OpKind.EQUAL_TO)
    u = fc.make_unique_by_key(**kw)
    nbytes = u(temp_storage=None, num_items=n, **kw)
    assert nbytes == 1 and cnt[0] == 0
    assert u(temp_storage=storage(nbytes), num_items=n, **kw) is None
    first = np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if n else \
        np.array([], np.int64)
    assert cnt[0] == first.size
    np.testing.assert_array_equal(ok[:first.size], k[first])
    np.testing.assert_array_equal(oi[:first.size], items[first])
