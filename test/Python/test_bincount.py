"""np.bincount and fuse.bincount inside @fuse.jit on NumPy arrays (the CPU
backend), against NumPy: the counts exactly (values and int64 dtype) for
every integer dtype and bool at sizes 0, 1, 31 and 1000003, minlength
below, at and above the data's length, weights= (float64 results, the same
bits on two runs, NumPy's bits where its sums are exact), a computed value,
a bincount of a bincount's counts, two bincounts in one function, after a
filter; NumPy's errors with NumPy's messages. The data and functions are
histogram_check.py's (the same checks on the GPU)."""

import numpy as np
import pytest

import fuse
from check_util import same as same_as
from histogram_check import (BINCOUNT_DTYPES, BINCOUNT_WEIGHTS, SIZES,
                             bincount, bincount_data, bincount_fuse,
                             bincount_min, bincount_staged,
                             bincount_staged_reference, bincount_weighted,
                             bincount_weights, check_bincount_weighted, same)


@pytest.mark.parametrize("dt", BINCOUNT_DTYPES,
                         ids=[np.dtype(d).name for d in BINCOUNT_DTYPES])
def test_counts_match_numpy(dt):
    for n in SIZES:
        x = bincount_data(dt, n)
        keep = x.copy()
        got, want = bincount(x), np.bincount(x)
        assert same(got, want), (n, got.shape, want.shape)
        np.testing.assert_array_equal(x, keep)


def test_minlength():
    x = bincount_data(np.int32, 31, wide=False)
    top = int(x.max())
    for data in (x, x[:0], x[:1]):
        for m in (0, 1, 3, top, top + 1, top + 2, 5000):
            assert same(bincount_min(m)(data),
                        np.bincount(data, minlength=m)), (len(data), m)
    for m in (np.int64(4), np.uint16(2000), np.array(1500)):
        f = fuse.jit(lambda a: np.bincount(a, minlength=m))
        assert same(f(x), np.bincount(x, minlength=m))


WEIGHTS = BINCOUNT_WEIGHTS + [np.int64, np.uint8, np.uint32, np.float16]


@pytest.mark.parametrize("wdt", WEIGHTS,
                         ids=[np.dtype(d).name for d in WEIGHTS])
def test_weights_match_numpy(wdt):
    for n in SIZES:
        x, w = bincount_data(np.int32, n), bincount_weights(wdt, n)
        check_bincount_weighted(bincount_weighted(x, w), x, w, same_as)


def test_weights_of_an_empty_input_are_float64():
    """NumPy returns int64 zeros for an empty x whatever the weights;
    fuse's result keeps the weighted dtype, float64 (documented)."""
    x, w = np.zeros(0, np.int8), np.zeros(0, np.float32)
    f = fuse.jit(lambda a, b: np.bincount(a, weights=b, minlength=3))
    got = f(x, w)
    assert got.dtype == np.float64 and got.tolist() == [0.0, 0.0, 0.0]
    assert np.bincount(x, w, 3).dtype == np.int64


def test_weighted_sums_are_deterministic():
    x = bincount_data(np.int64, 1000003)
    w = bincount_weights(np.float64, 1000003)
    a, b = bincount_weighted(x, w), bincount_weighted(x, w)
    assert np.array_equal(a.view(np.int64), b.view(np.int64))
    check_bincount_weighted(a, x, w, same_as)


def test_fuse_bincount_is_np_bincount():
    assert "bincount" in fuse.__all__
    x, w = bincount_data(np.uint16, 1001), bincount_weights(np.float32, 1001)
    got = bincount_fuse(x, w)
    assert same(got[0], np.bincount(x, w, 1000))
    assert same(got[1], np.bincount(x, minlength=3))


def test_computed_and_dependent_bincounts():
    for n in (0, 1, 31, 1000003):
        x = bincount_data(np.int32, n)
        got, want = bincount_staged(x), bincount_staged_reference(x)
        assert same(got[0], want[0]) and same(got[1], want[1]), n


def test_two_bincounts_and_other_results():
    @fuse.jit
    def f(x, y, w):
        return (np.bincount(x), x.sum(), np.bincount(y, weights=w,
                                                      minlength=4))
    x, y = bincount_data(np.uint8, 1001), bincount_data(np.int64, 31)
    w = bincount_weights(np.int32, 31)
    c, s, d = f(x, y, w)
    assert same(c, np.bincount(x)) and s == x.sum()
    assert same(d, np.bincount(y, w, 4))


def test_after_a_filter():
    f = fuse.jit(lambda x: np.bincount(fuse.filter(x, lambda a: a > 500)))
    x = bincount_data(np.int16, 10007)
    assert same(f(x), np.bincount(x[x > 500]))
    assert same(f(x[x <= 500]), np.bincount(x[:0]))


def test_lengths_are_runtime_values():
    """Data with another maximum reuses the pipelines (the length is an
    argument of the counting pipeline)."""
    x = bincount_data(np.int32, 31, wide=False)
    bincount(x)
    compiles = fuse.stats["compiles"]
    for top in (0, 5, 70000):
        y = x.copy()
        y[3] = top
        y[y > top] = top
        assert same(bincount(y), np.bincount(y))
    assert fuse.stats["compiles"] == compiles


def test_lower_shows_the_counting_pipeline():
    ir = bincount.lower(np.arange(3, dtype=np.int32))
    assert "fuse.histogram" in ir and "bins(" in ir


# ---- errors: NumPy's types and messages ----------------------------------------

def numpy_error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the error NumPy raises)
        return e
    raise AssertionError("NumPy raised nothing")


def assert_raises_like_numpy(call, numpy_call):
    want = numpy_error(numpy_call)
    with pytest.raises(type(want)) as got:
        call()
    assert str(got.value) == str(want)


def test_negative_values():
    for x in (np.array([0, -1, 3]), np.array([5, -128], np.int8),
              np.array([3, 2 ** 63], np.uint64),
              np.concatenate([bincount_data(np.int64, 1000003), [-7]])):
        assert_raises_like_numpy(lambda: bincount(x),
                                 lambda: np.bincount(x))
    # Negative values are found before the weights' length, as in NumPy.
    x, w = np.array([0, -1, 3]), np.ones(2)
    assert_raises_like_numpy(lambda: bincount_weighted(x, w),
                             lambda: np.bincount(x, w))


def test_weights_of_another_length():
    x = bincount_data(np.int32, 31)
    for w in (np.ones(30), np.ones(32), np.ones(0)):
        assert_raises_like_numpy(lambda: bincount_weighted(x, w),
                                 lambda: np.bincount(x, w))


def test_minlength_errors():
    x = np.array([1, 2])
    for m in (-1, None, True, 1.5):
        f = fuse.jit(lambda a: np.bincount(a, minlength=m))
        assert_raises_like_numpy(lambda: f(x),
                                 lambda: np.bincount(x, minlength=m))
    f = fuse.jit(lambda a, m: np.bincount(a, minlength=m))
    with pytest.raises(TypeError, match="minlength must be an integer known "
                       "when tracing"):
        f(x, 3)


def test_input_errors():
    for x in (np.array([1.0, 2.0]), np.array([1], np.float32),
              np.zeros(0), np.ones((2, 3), np.int32), np.int64(3), 3):
        assert_raises_like_numpy(lambda: bincount(x),
                                 lambda: np.bincount(x))
    x = np.array([0, 1])
    for w in (np.ones((1, 2)), 1.0):
        assert_raises_like_numpy(lambda: bincount_weighted(x, w),
                                 lambda: np.bincount(x, w))
    with pytest.raises(TypeError, match="dtype complex128 is not supported"):
        bincount_weighted(x, np.ones(2, np.complex128))
