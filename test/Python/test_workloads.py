"""Every WORKLOADS pipeline, both front ends, sizes 0, 1, 31, 1000003,
checked against float64 NumPy references."""

import numpy as np
import pytest

import workloads as W
from conftest import rand, sum_rtol

SIZES = [0, 1, 31, 1000003]
SHAPES = [(0, 4), (1, 1), (31, 17), (1, 1000003), (1000003, 1)]
FRONTS = ["jit", "cc"]


def impl(name, front):
    return getattr(W, "%s_%s" % (front, name))


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("n", SIZES)
def test_sumsq(front, n):
    x = rand(n)
    got = impl("sumsq", front)(x)
    assert np.asarray(got).dtype == np.float32
    np.testing.assert_allclose(got, W.ref_sumsq(x), rtol=sum_rtol(n))


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("n", SIZES)
def test_dot(front, n):
    x, y = rand(n, seed=1), rand(n, seed=2)
    got = impl("dot", front)(x, y)
    ref = W.ref_dot(x, y)
    # A dot product cancels: bound the error by the sum of |x*y|.
    scale = (np.abs(x.astype(np.float64) * y)).sum()
    assert abs(got - ref) <= sum_rtol(n) * scale + 1e-30


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("n", SIZES)
def test_chain(front, n):
    x = rand(n)
    got = impl("chain", front)(x)
    assert got.dtype == np.float32 and got.shape == (n,)
    np.testing.assert_allclose(got, W.ref_chain(x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("n", SIZES)
def test_scan(front, n):
    x = rand(n)
    got = impl("scan", front)(x)
    ref = W.ref_scan(x)
    assert got.shape == (n,)
    # Prefix sums of positive terms: error relative to the running sum.
    np.testing.assert_allclose(got, ref, rtol=sum_rtol(n))


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("n", SIZES)
def test_select(front, n):
    x = rand(n)
    y, count = impl("select", front)(x)
    ry, rc = W.ref_select(x)
    assert count == rc
    assert isinstance(count, int)
    np.testing.assert_array_equal(y, ry)   # exact


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_rows(front, shape):
    X = rand(shape)
    got = impl("softmax_rows", front)(X)
    assert got.shape == shape and got.dtype == np.float32
    np.testing.assert_allclose(got, W.ref_softmax_rows(X),
                               rtol=sum_rtol(shape[1]), atol=1e-7)


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("n", SIZES)
def test_variance(front, n):
    x = rand(n)
    with np.errstate(all="ignore"):
        got = impl("variance", front)(x)
    ref = W.ref_variance(x)
    if n == 0:
        assert np.isnan(got)
    else:
        np.testing.assert_allclose(got, ref, rtol=sum_rtol(n), atol=1e-7)


@pytest.mark.parametrize("front", FRONTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_logsumexp_rows(front, shape):
    X = rand(shape)
    got = impl("logsumexp_rows", front)(X)
    assert got.shape == (shape[0],) and got.dtype == np.float32
    np.testing.assert_allclose(got, W.ref_logsumexp_rows(X),
                               rtol=sum_rtol(shape[1]), atol=1e-6)


@pytest.mark.parametrize("front", FRONTS)
def test_sumsq_small_back_to_back(front):
    x = rand(4096)
    f = impl("sumsq", front)
    for _ in range(50):
        got = f(x)
    np.testing.assert_allclose(got, W.ref_sumsq(x), rtol=sum_rtol(4096))
