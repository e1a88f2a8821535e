"""NumPy functions and ufuncs called on symbolic arrays inside @fuse.jit:
those with an exact fuse equivalent are traced (results against NumPy on
the same inputs); the others raise a TypeError that names the call and,
where there is one, the fuse spelling."""

import numpy as np
import pytest

import fuse

X = (np.arange(12, dtype=np.int32).reshape(3, 4) - 5)
U = np.array([[1, 200, 7, 255], [0, 3, 128, 9], [5, 5, 5, 5]], np.uint8)
F = np.linspace(-2, 2, 12).reshape(3, 4).astype(np.float32)

TRACED = {
    "np.sum": lambda x: np.sum(x),
    "np.sum axis": lambda x: np.sum(x, axis=1),
    "np.sum keepdims": lambda x: np.sum(x, axis=0, keepdims=True),
    "np.max": lambda x: np.max(x), "np.amin": lambda x: np.amin(x, axis=1),
    "np.mean": lambda x: np.mean(x, axis=1),
    "np.prod": lambda x: np.prod(x, axis=0),
    "np.cumsum": lambda x: np.cumsum(x, axis=1),
    "np.cumprod": lambda x: np.cumprod(x, axis=0),
    "np.add.reduce": lambda x: np.add.reduce(x),
    "np.maximum.reduce": lambda x: np.maximum.reduce(x, axis=None),
    "np.maximum.accumulate": lambda x: np.maximum.accumulate(x, axis=1),
    "np.clip": lambda x: np.clip(x, 2, 100),
    "np.all": lambda x: np.all(x > 1, axis=1),
    "np.any": lambda x: np.any(x > 100),
    "np.where": lambda x: np.where(x > 3, x, 0),
    "np.abs": lambda x: np.abs(x), "np.negative": lambda x: np.negative(x),
    "np.maximum": lambda x: np.maximum(x, 3),
    "np.floor_divide": lambda x: np.floor_divide(x, 3),
    "np.remainder": lambda x: np.remainder(x, 3),
    "np.power": lambda x: np.power(x, 2), "np.square": lambda x: np.square(x),
    "np.equal": lambda x: np.equal(x, 3),
    "np.logical_xor": lambda x: np.logical_xor(x > 2, x < 5),
    "np.isnan": lambda x: np.isnan(x), "np.isfinite": lambda x: np.isfinite(x),
    "np.floor": lambda x: np.floor(x),
    "np.exp": lambda x: np.exp(x.astype(np.float32) / 64),
    "np.sqrt": lambda x: np.sqrt(np.abs(x).astype(np.float64)),
    "np.tanh": lambda x: np.tanh(x.astype(np.float32)),
    "np.ndim": lambda x: x * np.ndim(x),
    "NumPy scalar": lambda x: np.float32(2) * x,
    "0-d array": lambda x: x + np.asarray(3, x.dtype),
}


@pytest.mark.parametrize("a", [X, U, F], ids=["int32", "uint8", "float32"])
def test_traced_calls_match_numpy(a):
    names = sorted(TRACED)
    got = fuse.jit(lambda x: tuple(TRACED[n](x) for n in names))(a)
    for g, n in zip(got, names):
        r = TRACED[n](a)
        g, r = np.asarray(g), np.asarray(r)
        assert g.dtype == r.dtype, "%s: %s, NumPy %s" % (n, g.dtype, r.dtype)
        assert np.allclose(g.astype(float), r.astype(float), rtol=1e-6,
                           equal_nan=True), "%s: %s, NumPy %s" % (n, g, r)


def test_reported_calls():
    """np.cumsum, np.sort, np.argsort, np.exp and np.where inside
    @fuse.jit."""
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(fuse.jit(lambda x: np.cumsum(x))(x),
                                  np.cumsum(x))
    np.testing.assert_allclose(fuse.jit(lambda x: np.exp(x))(x), np.exp(x),
                               rtol=1e-6)
    np.testing.assert_array_equal(
        fuse.jit(lambda x: np.where(x > 0, x, 0))(x), np.where(x > 0, x, 0))
    np.testing.assert_array_equal(fuse.jit(lambda x: np.sort(x))(x),
                                  np.sort(x))
    y = np.array([2.0, 1.0, 2.0, 0.5, 1.0], np.float32)
    np.testing.assert_array_equal(
        fuse.jit(lambda x: np.argsort(x, kind="quicksort"))(y),
        np.argsort(y, kind="stable"))
    with pytest.raises(TypeError, match=r"np\.sort is supported on 1-d "
                       r"arrays along their axis \(got a 2-d array"):
        fuse.jit(lambda x: np.sort(x))(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("fn,pattern", [
    (lambda x: np.cumsum(x), r"np\.cumsum\(x\) of a rank-2 .*fuse\.scan"),
    (lambda x: np.argmax(x, out=x), r"np\.argmax\(\.\.\., out="),
    (lambda x: np.dot(x, x), r"np\.dot .*\(x \* y\)\.sum\(\)"),
    (lambda x: np.where(x > 0), r"np\.where with one argument.*fuse\.filter"),
    (lambda x: np.sum(x, dtype=np.float64), r"np\.sum\(\.\.\., dtype="),
    (lambda x: np.exp(x, out=x), r"np\.exp\(\.\.\., out="),
    (lambda x: np.add.outer(x, x), r"np\.add\.outer"),
    (lambda x: np.fmax(x, 1), r"np\.fmax .*fuse\.maximum"),
    (lambda x: np.linalg.norm(x), r"np\.linalg\.norm"),
    (lambda x: np.concatenate([x, x]), r"np\.concatenate"),
    (lambda x: np.mean(x, where=x > 0), r"np\.mean\(\.\.\., where="),
    (lambda x: np.asarray(x), r"cannot be converted to a NumPy array.*np\."),
])
def test_unsupported_calls_name_themselves(fn, pattern):
    with pytest.raises(TypeError, match=pattern):
        fuse.jit(fn)(F)
