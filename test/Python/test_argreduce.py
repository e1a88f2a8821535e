"""fuse.argmax / fuse.argmin (and np.argmax / np.argmin on symbolic
arrays) and tuple reductions with function combiners
(fuse.reduce((x, y), fn, init=(...))) on NumPy arrays (the CPU backend)
against NumPy: combiner_check.py's checks as gpu_check runs them, at the
small sizes, then the cases they do not take: axes, keepdims, the
flattened index of 2-d arrays, booleans, NaN first, infinities and
integer extremes as the extreme, broadcasting tuple members, and the
errors."""

import numpy as np
import pytest

import fuse
import gpu_check
import combiner_check as R
from test_gpu_check_edges import NumpyBackend

CPU = NumpyBackend()


def test_gpu_check_sections_pass_on_the_cpu(capsys):
    passed, failed = gpu_check.passed, gpu_check.failed
    R.combiner_checks(CPU, True, gpu_check, sizes=[1, 31, 1025])
    out = capsys.readouterr().out
    ok, bad = gpu_check.passed - passed, gpu_check.failed - failed
    assert bad == 0 and ok == len(R.DTYPES) * 3 * 2 * 5 + 3 * 2 + 4 * 3 + \
        3 * 6 + 3, out


def test_affine_references_are_the_loop():
    a, b = R.affine_data(200)
    A, B, As, Bs = 1, 0, [], []
    for ai, bi in zip(a.tolist(), b.tolist()):
        A, B = (ai * A) % 2**32, (ai * B + bi) % 2**32
        As.append(A)
        Bs.append(B)
    assert R.affine_ref(a, b) == (A, B)
    sa, sb = R.affine_scan_ref(a, b)
    assert sa.tolist() == As and sb.tolist() == Bs
    ea, eb = R.affine_scan_ref(a, b, exclusive=True)
    assert ea.tolist() == [1] + As[:-1] and eb.tolist() == [0] + Bs[:-1]


def test_running_argmax_reference():
    x = np.array([3, 1, 3, 5, 5, 2, 7], np.int32)
    m, p = R.running_argmax_ref(x)
    assert m.tolist() == [3, 3, 3, 5, 5, 5, 7]
    assert p.tolist() == [0, 0, 0, 3, 3, 3, 6]


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_axes_and_keepdims(axis, keepdims):
    x = np.random.default_rng(1).integers(-3, 3, (7, 9)).astype(np.float32)
    x[2, 4] = np.nan
    x[5, 1] = np.nan
    for name in ("argmax", "argmin"):
        def traced(lib):
            fn = getattr(lib, name)
            return fuse.jit(lambda v: fn(v, axis=axis, keepdims=keepdims))
        f, g = traced(fuse), traced(np)
        want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
        for fn in (f, g):
            got = np.asarray(fn(x))
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("x", [
    np.array([1, 3, 3, 2], np.int8),
    np.array([-np.inf, -np.inf, 0.0], np.float32),
    np.array([np.inf, 1.0, np.inf], np.float64),
    np.array([np.nan, np.nan, 1.0], np.float64),
    np.array([-0.0, 0.0, -0.0], np.float32),
    np.array([2**64 - 1, 0, 2**64 - 1], np.uint64),
    np.array([-2**63, 2**63 - 1, -2**63], np.int64),
    np.array([False, True, True], np.bool_),
    np.array([False, False], np.bool_),
])
def test_first_extreme(x):
    assert fuse.jit(lambda v: fuse.argmax(v))(x) == np.argmax(x)
    assert fuse.jit(lambda v: fuse.argmin(v))(x) == np.argmin(x)


def test_tuple_reduction_broadcasts_and_keeps_dtypes():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    w = np.array([1, 2, 3, 4], np.int32)

    @fuse.jit
    def f(x, w):
        # a (sum of x * w, count of positive w) pair over rows; w and
        # w > 0 broadcast along the rows
        return fuse.reduce((x * w, w > 0), lambda a, e: (a[0] + e[0],
                                                         a[1] + e[1]),
                           init=(np.float64(0), np.int64(0)), axis=1)
    s, c = f(x, w)
    assert s.dtype == np.float64 and c.dtype == np.int64
    np.testing.assert_array_equal(s, (x * w).sum(axis=1))
    np.testing.assert_array_equal(c, [4, 4, 4])


def test_tuple_reduction_of_nothing_is_init():
    @fuse.jit
    def f(x):
        return fuse.reduce((x, x), lambda a, e: (a[0] + e[0], a[1] * e[1]),
                           init=(np.float32(5), np.float32(2)))
    s, p = f(np.zeros(0, np.float32))
    assert s == 5 and p == 2


def test_errors():
    z = np.zeros(0, np.float32)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty "
                       "sequence"):
        fuse.jit(lambda v: fuse.argmax(v))(z)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty "
                       "sequence"):
        fuse.jit(lambda x: fuse.argmin(x, axis=1))(np.zeros((3, 0)))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        fuse.jit(lambda x: fuse.argmax(x, axis=2))(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="axis must be an int or None"):
        fuse.jit(lambda x: fuse.argmax(x, axis=(0, 1)))(np.zeros((3, 2)))
    with pytest.raises(TypeError, match=r"np\.argmax\(\.\.\., out="):
        fuse.jit(lambda x: np.argmax(x, out=x))(np.zeros(3))
    x = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="needs init: a tuple of 2 values"):
        fuse.jit(lambda x: fuse.reduce((x, x), lambda a, e: a))(x)
    with pytest.raises(TypeError, match="takes a function combiner"):
        fuse.jit(lambda x: fuse.reduce((x, x), "add", init=(0, 0)))(x)
    with pytest.raises(ValueError, match="returned 1 values, expected 2"):
        fuse.jit(lambda x: fuse.reduce((x, x), lambda a, e: a[0],
                                       init=(0, 0)))(x)
