"""Operators, dtypes and ops of the two front ends against NumPy."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind

from conftest import rand


@fuse.jit
def arith(x, y):
    return (x + y, x - y, x * y, x / y, -x, abs(x), x < y, x >= y,
            x == y, fuse.where(x > y, x, y), fuse.minimum(x, y), x ** 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.int64, np.uint8])
def test_arith(dtype):
    x = (rand(37, seed=3) * 100).astype(dtype)
    y = (rand(37, seed=4) * 100).astype(dtype)
    y[y == 0] = 1
    with np.errstate(all="ignore"):
        ref = (x + y, x - y, x * y, x / y, -x, abs(x), x < y, x >= y, x == y,
               np.where(x > y, x, y), np.minimum(x, y), x ** 2)
        got = arith(x, y)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype, (g.dtype, r.dtype)
        np.testing.assert_allclose(g, r, rtol=1e-6)


def test_weak_python_scalars_and_promotion():
    @fuse.jit
    def f(x, a):
        return x * a, x * 2, x + np.float64(1)
    x = np.arange(5, dtype=np.float32)
    r1, r2, r3 = f(x, 0.5)
    assert r1.dtype == np.float32 and r2.dtype == np.float32
    assert r3.dtype == np.float64
    np.testing.assert_array_equal(r1, x * 0.5)
    xi = np.arange(5, dtype=np.int32)
    r1, r2, _ = f(xi, 0.5)
    assert r1.dtype == np.float64 and r2.dtype == np.int32


def test_reductions_axes_and_dtypes():
    @fuse.jit
    def f(X):
        return (X.sum(), X.sum(axis=0), X.max(axis=1), X.min(axis=(0, 1)),
                X.prod(axis=1), X.mean(axis=0), X.sum(axis=-1, keepdims=True))
    X = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    ref = (X.sum(), X.sum(axis=0), X.max(axis=1), X.min(axis=(0, 1)),
           X.prod(axis=1), X.mean(axis=0), X.sum(axis=-1, keepdims=True))
    for g, r in zip(f(X), ref):
        assert np.asarray(g).dtype == np.asarray(r).dtype
        np.testing.assert_allclose(g, r)


def test_scan_variants():
    @fuse.jit
    def f(x, X):
        return (fuse.scan(x, exclusive=True), fuse.scan(x, op="max"),
                fuse.scan(x, op=lambda a, b: a * 0.5 + b, init=1.0),
                fuse.scan(X, axis=0), fuse.scan(X))
    x = rand(100, np.float64)
    X = rand((5, 7), np.float64)
    e, m, c, s0, s1 = f(x, X)
    np.testing.assert_allclose(e, np.concatenate([[0], np.cumsum(x)[:-1]]))
    np.testing.assert_array_equal(m, np.maximum.accumulate(x))
    ref, acc = [], 1.0
    for v in x:
        acc = acc * 0.5 + v
        ref.append(acc)
    np.testing.assert_allclose(c, ref)
    np.testing.assert_allclose(s0, np.cumsum(X, axis=0))
    np.testing.assert_allclose(s1, np.cumsum(X, axis=1))


def test_filter_map_gather_iota_reduce_lambda():
    @fuse.jit
    def f(x, idx):
        i = fuse.iota(x.shape[0])
        kept, pos = fuse.filter((x, i), lambda a, j: (a > 0) & (j % 1 == 0)
                                if False else a > 0)
        s, d = fuse.map(lambda a, b: (a + b, a - b), x, 1.0)
        g = fuse.gather(x, idx)
        # Combiners must be associative (fuse regroups them); max is.
        r = fuse.reduce(x, lambda a, b: fuse.maximum(a, b), init=-1e9)
        return kept, pos, s, d, g, r, x.shape[0] * 2
    x = rand(50, np.float64, seed=9)
    idx = np.array([3, 0, 49, 50, -1], np.int64)
    kept, pos, s, d, g, r, n2 = f(x, idx)
    np.testing.assert_array_equal(kept, x[x > 0])
    np.testing.assert_array_equal(pos, np.nonzero(x > 0)[0])
    np.testing.assert_array_equal(s, x + 1)
    np.testing.assert_array_equal(d, x - 1)
    # Out-of-range indices read 0 (documented).
    np.testing.assert_array_equal(g, [x[3], x[0], x[49], 0, 0])
    assert r == x.max()
    assert n2 == 100


def test_row_broadcast_explicit_and_numpy_ufuncs():
    @fuse.jit
    def f(X, v):
        return X - X.mean(axis=1)[:, None] + v, fuse.sqrt(fuse.exp(X))
    X = rand((6, 9), np.float64)
    v = rand(9, np.float64, seed=5)
    a, b = f(X, v)
    np.testing.assert_allclose(a, X - X.mean(axis=1)[:, None] + v)
    np.testing.assert_allclose(b, np.sqrt(np.exp(X)))


def test_explicit_iterators():
    out = np.empty(1, np.int64)
    fc.reduce_into(fc.CountingIterator(np.int64(5)), out,
                   lambda a, b: a + b, 10, 0)
    assert out[0] == sum(range(5, 15))
    ex = np.empty(10, np.float32)
    fc.exclusive_scan(fc.ConstantIterator(np.float32(2)), ex, OpKind.PLUS,
                      np.float32(1), 10)
    np.testing.assert_array_equal(ex, 1 + 2 * np.arange(10))
    v = rand(20, np.float64)
    p = np.empty(4)
    fc.unary_transform(fc.PermutationIterator(v, np.array([5, 1, 19, 0])),
                       p, OpKind.NEGATE, 4)
    np.testing.assert_array_equal(p, -v[[5, 1, 19, 0]])
    b = np.empty(20)
    fc.binary_transform(v, fc.CountingIterator(np.float64(0)), b,
                        OpKind.MULTIPLIES, 20)
    np.testing.assert_array_equal(b, v * np.arange(20))
    m = np.empty(1)
    fc.reduce_into(v, m, OpKind.MAXIMUM, 20, -np.inf)
    assert m[0] == v.max()
    mi = np.empty(20, np.int32)
    fc.inclusive_scan(np.arange(20, dtype=np.int32), mi, OpKind.PLUS,
                      None, 20)
    np.testing.assert_array_equal(mi, np.cumsum(np.arange(20)))


def test_import_without_gpu_and_clear_error():
    assert hasattr(fuse, "gpu")
    if not fuse.gpu.available():
        with pytest.raises(fuse.gpu.GPUUnavailableError):
            fuse.gpu.runtime()
