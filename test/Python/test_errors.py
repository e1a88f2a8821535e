"""Misuse gives clear Python exceptions before anything runs."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind

from workloads import jit_dot, jit_sumsq


def test_unsupported_dtype_names_argument():
    with pytest.raises(TypeError, match="argument 'x'.*complex64"):
        jit_sumsq(np.ones(4, np.complex64))


def test_not_an_array():
    with pytest.raises(TypeError, match="argument 'x'.*list"):
        jit_sumsq([1.0, 2.0])


def test_size_mismatch_names_both_arguments():
    with pytest.raises(ValueError, match="'x'.*5.*'y'.*6|'y'.*6.*'x'.*5"):
        jit_dot(np.ones(5, np.float32), np.ones(6, np.float32))


def test_wrong_arity():
    with pytest.raises(TypeError, match="jit_dot"):
        jit_dot(np.ones(3, np.float32))


def test_max_of_empty_is_an_error_like_numpy():
    @fuse.jit
    def f(x):
        return x.max()
    with pytest.raises(ValueError, match="zero-size array"):
        f(np.zeros(0, np.float32))
    assert f(np.array([3, -2], np.int32)) == 3


def test_python_control_flow_on_symbols():
    @fuse.jit
    def f(x):
        return x if x > 0 else -x
    with pytest.raises(TypeError, match="fuse.where"):
        f(np.ones(3))


def test_len_of_symbolic_array():
    @fuse.jit
    def f(x):
        return x * len(x)
    with pytest.raises(TypeError, match="x.shape"):
        f(np.ones(3))


def test_bad_axis():
    @fuse.jit
    def f(x):
        return x.sum(axis=2)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        f(np.ones((2, 3)))


def test_non_contiguous_input_is_copied():
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    v = x[:, ::2].T          # neither C- nor F-contiguous in the original
    got = jit_sumsq(v.ravel()[::1])
    assert got == (v.astype(np.float64) ** 2).sum()
    got2 = jit_sumsq(x[::3, 1])
    assert got2 == (x[::3, 1].astype(np.float64) ** 2).sum()


def test_big_endian_input():
    x = np.arange(5, dtype=">f4")
    assert jit_sumsq(x) == 30.0


def test_filter_predicate_must_be_boolean():
    @fuse.jit
    def f(x):
        return fuse.filter(x, lambda a: a * 2)
    with pytest.raises(TypeError, match="booleans"):
        f(np.ones(3))


def test_combiner_must_not_read_arrays():
    @fuse.jit
    def f(x, y):
        return fuse.reduce(x, lambda a, b: a + b + y, init=0.0)
    with pytest.raises(TypeError, match="combiner"):
        f(np.ones(3), np.ones(3))


def test_sizes_not_provably_equal():
    @fuse.jit
    def f(x):
        return fuse.filter(x, lambda a: a > 0) + x
    with pytest.raises(ValueError, match="cannot be proven equal"):
        f(np.ones(3))


def test_explicit_api_errors():
    x = np.ones(10, np.float32)
    out = np.empty(1, np.float32)
    with pytest.raises(ValueError, match="d_out: has 0 elements"):
        fc.reduce_into(x, np.empty(0, np.float32), OpKind.PLUS, 10, 0)
    with pytest.raises(ValueError, match="d_in: has 10 elements but "
                       "num_items is 11"):
        fc.reduce_into(x, out, OpKind.PLUS, 11, 0)
    with pytest.raises(ValueError, match="num_items: must be >= 0"):
        fc.reduce_into(x, out, OpKind.PLUS, -1, 0)
    with pytest.raises(TypeError, match="OpKind or a function"):
        fc.reduce_into(x, out, "plus", 10, 0)
    with pytest.raises(ValueError, match="not a binary operator"):
        fc.reduce_into(x, out, OpKind.NEGATE, 10, 0)
    with pytest.raises(TypeError, match="d_in: expected a NumPy array"):
        fc.reduce_into([1, 2], out, OpKind.PLUS, 2, 0)
    with pytest.raises(ValueError, match="read-only"):
        ro = np.empty(1, np.float32)
        ro.flags.writeable = False
        fc.reduce_into(x, ro, OpKind.PLUS, 10, 0)
    with pytest.raises(ValueError, match="init_value is required"):
        fc.exclusive_scan(x, np.empty(10, np.float32), OpKind.PLUS, None, 10)
    with pytest.raises(TypeError, match="ZipIterator"):
        fc.reduce_into(fc.ZipIterator(x, x), out, OpKind.PLUS, 10, 0)
    with pytest.raises(ValueError, match="d_out: has 3 elements but 5 were"):
        fc.select(np.ones(5), np.empty(3), np.empty(1, np.int64),
                  lambda a: a > 0, 5)
