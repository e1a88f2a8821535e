"""Integer and float floor division, remainder and shifts follow NumPy,
including the cases where LLVM's operations are undefined or trap:
division by zero (0 for integers), INT_MIN // -1 (wraps), shift counts
outside [0, bits) (0, or -1 for a negative value shifted right). Float
`//` and `%` are NumPy's (1.0 // 0.1 is 9.0; the remainder takes the
divisor's sign; signed zeros)."""

import warnings

import numpy as np
import pytest

import fuse

SIGNED = [np.int8, np.int16, np.int32, np.int64]


def _check(fn, names, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = fn(*args)
    got = fuse.jit(fn)(*args)
    for g, r, n in zip(got, ref, names):
        assert g.dtype == r.dtype, "%s: %s, NumPy %s" % (n, g.dtype, r.dtype)
        assert np.array_equal(g, r, equal_nan=g.dtype.kind == "f"), \
            "%s: got %s, NumPy %s" % (n, g, r)
        if g.dtype.kind == "f":
            assert np.array_equal(np.signbit(g), np.signbit(r)), \
                "%s: signs %s, NumPy %s" % (n, g, r)


def _divmod_shift(x, y):
    return x // y, x % y, y // x, y % x, x >> y, x << y


NAMES = ["x // y", "x % y", "y // x", "y % x", "x >> y", "x << y"]


@pytest.mark.parametrize("dt", SIGNED, ids=lambda d: np.dtype(d).name)
def test_signed(dt):
    info = np.iinfo(dt)
    bits = np.dtype(dt).itemsize * 8
    x = np.array([info.min, info.min, info.max, -7, 7, -7, 7, 0, 5, -5, -1,
                  3], dt)
    y = np.array([-1, 0, 0, 2, -2, -2, 3, 0, bits, bits + 1, bits - 1, -1],
                 dt)
    _check(_divmod_shift, NAMES, x, y)


@pytest.mark.parametrize("dt", [np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_float(dt):
    x = np.array([1.0, -1.0, 0.0, -0.0, 5.5, -5.5, np.inf, -np.inf, np.nan,
                  1e-30, 7.0, 3.0, -3.0], dt)
    y = np.array([0.1, 0.1, -1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 1.0, 1e30, 0.0,
                  -0.0, 1.5], dt)
    _check(lambda x, y: (x // y, x % y, y // x, y % x), NAMES[:4], x, y)
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(4096) * 100).astype(dt)
    y = (rng.standard_normal(4096) * 3).astype(dt)
    _check(lambda x, y: (x // y, x % y), NAMES[:2], x, y)


def test_weak_scalars_and_divmod():
    x = np.array([-7, 7, 0, 9], np.int32)
    _check(lambda x: (x // 2, x % 2, x // -2, x % -2, 7 // x, 7 % x,
                      *divmod(x, 3)),
           ["//2", "%2", "//-2", "%-2", "7//", "7%", "divmod q", "divmod r"],
           x)
