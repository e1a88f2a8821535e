"""fuse.searchsorted and np.searchsorted inside @fuse.jit on NumPy arrays
(the CPU backend) against NumPy: sorted arrays of 0, 1, 31 and 1000003
elements with ties, NaN, infinities, both zeros and integers at the ends of
their ranges, both sides, fusion with maps and a reduction, a sorter,
needles of any rank and a scalar, dtype promotion, and the errors. The
data and functions are searchsorted_check.py's (the same checks on the
GPU)."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind
from searchsorted_check import (cases, compute_search, fused_reference,
                                ss_count, ss_fused, ss_left, ss_right,
                                ss_sorter)

CASES = list(cases())


@pytest.mark.parametrize("name, a, v", CASES, ids=[c[0] for c in CASES])
def test_both_sides_match_numpy(name, a, v):
    keep_a, keep_v = a.copy(), v.copy()
    got = ss_left(a, v)
    assert got.dtype == np.int64 and got.shape == v.shape
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side="left"))
    np.testing.assert_array_equal(ss_right(a, v),
                                  np.searchsorted(a, v, side="right"))
    np.testing.assert_array_equal(a, keep_a)
    np.testing.assert_array_equal(v, keep_v)


def test_fused_with_maps_and_a_reduction():
    rng = np.random.default_rng(0)
    a = np.sort(rng.normal(size=1000).astype(np.float32))
    v = rng.normal(size=100003).astype(np.float32)
    want = fused_reference(a, v)
    np.testing.assert_array_equal(ss_fused(a, v), want[0])
    assert ss_count(a, v) == want[1]


def test_sorter_reads_the_array_through_it():
    rng = np.random.default_rng(1)
    u = rng.integers(-50, 50, 1001).astype(np.int32)
    s = np.argsort(u, kind="stable")
    v = rng.integers(-60, 60, 333).astype(np.int32)
    np.testing.assert_array_equal(ss_sorter(u, v, s),
                                  np.searchsorted(u, v, sorter=s))


def test_nan_needles_and_nan_elements():
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    v = np.array([np.nan, np.inf, 0.0, -0.0, -np.inf, 3.0])
    np.testing.assert_array_equal(ss_left(a, v), np.searchsorted(a, v))
    np.testing.assert_array_equal(ss_right(a, v),
                                  np.searchsorted(a, v, side="right"))


def test_unsigned_compare_as_unsigned():
    a = np.array([0, 1, 2**31, 2**32 - 2, 2**32 - 1], np.uint32)
    v = np.array([2**32 - 1, 2**31 + 1, 0, 3], np.uint32)
    np.testing.assert_array_equal(ss_right(a, v),
                                  np.searchsorted(a, v, side="right"))
    b = np.array([0, 2**63, 2**64 - 1], np.uint64)
    w = np.array([2**63 - 1, 2**63, 2**64 - 1], np.uint64)
    np.testing.assert_array_equal(ss_left(b, w), np.searchsorted(b, w))


def test_needles_of_rank_2_and_a_scalar():
    @fuse.jit
    def f(a, v):
        return np.searchsorted(a, v), np.searchsorted(a, 2.5, side="right")
    a = np.array([1.0, 2.0, 2.5, 2.5, 4.0], np.float32)
    v = np.arange(12, dtype=np.float32).reshape(3, 4) / 2
    p, s = f(a, v)
    np.testing.assert_array_equal(p, np.searchsorted(a, v))
    assert s.shape == () and s == np.searchsorted(a, np.float32(2.5), "right")


def test_common_dtype_of_array_and_needles():
    @fuse.jit
    def f(a, v):
        return fuse.searchsorted(a, v)
    a = np.array([1, 2, 3, 5], np.int32)
    v = np.array([2.5, 0.5, 5.0, 5.5], np.float64)
    np.testing.assert_array_equal(f(a, v), np.searchsorted(a, v))


def test_errors():
    f = fuse.jit(lambda a, v: fuse.searchsorted(a, v))
    with pytest.raises(ValueError, match="must have rank 1, got rank 2"):
        f(np.ones((2, 2), np.float32), np.ones(3, np.float32))
    g = fuse.jit(lambda a, v: fuse.searchsorted(a, v, side="middle"))
    with pytest.raises(ValueError, match="side must be 'left' or 'right'"):
        g(np.ones(4, np.float32), np.ones(3, np.float32))


@pytest.mark.parametrize("which, side", [("lower_bound", "left"),
                                         ("upper_bound", "right")])
@pytest.mark.parametrize("half", [False, True])
@pytest.mark.parametrize("out_dtype", [np.int64, np.uint64])
def test_compute_bounds_match_numpy(which, side, half, out_dtype):
    rng = np.random.default_rng(3)
    a = np.sort(rng.integers(-100, 100, 1001)).astype(np.float64)
    a[-5:] = np.nan
    v = rng.integers(-110, 110, 300).astype(np.float64)
    v[::17] = np.nan
    out = np.full(310, 7, out_dtype)
    compute_search(which, a, v, out, m=900, n=290, half=half)
    want = np.searchsorted(a[:900], v[:290] * 0.5 if half else v[:290],
                           side=side)
    np.testing.assert_array_equal(out[:290], want.astype(out_dtype))
    assert (out[290:] == 7).all()       # nothing past num_values written


def test_compute_bound_errors():
    a = np.arange(10, dtype=np.float32)
    v = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="expected int64 or uint64"):
        fc.lower_bound(d_data=a, num_items=10, d_values=v, num_values=4,
                       d_out=np.empty(4, np.int32))
    with pytest.raises(ValueError, match="has 10 elements but num_items"):
        fc.lower_bound(d_data=a, num_items=11, d_values=v, num_values=4,
                       d_out=np.empty(4, np.int64))
    with pytest.raises(TypeError, match="comp must be None or OpKind.LESS"):
        fc.upper_bound(d_data=a, num_items=10, d_values=v, num_values=4,
                       d_out=np.empty(4, np.int64), comp=OpKind.GREATER)
    with pytest.raises(TypeError, match="must be an array"):
        fc.upper_bound(d_data=fc.CountingIterator(0), num_items=10,
                       d_values=v, num_values=4,
                       d_out=np.empty(4, np.int64))
