"""fuse.prefix inside @fuse.jit on NumPy arrays (the CPU backend) against
NumPy slicing: counts inside the array, below 0 and past its end (clamped),
0, an empty array, steps over the prefix returned (a map, a scan, a
filter), a count that fuse.compute.select wrote to d_num_selected_out
(the device chain's shape, here on the host), and the errors. The GPU
form (the count on the device) is temp_storage_check.py's chain."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc


@fuse.jit
def steps(x, n):
    p = fuse.prefix(x, n)
    return p.sum(), p * 2.0, fuse.scan(p), fuse.filter(p, lambda a: a > 0)


def count(n):
    return np.array(n, dtype=np.int64)


@pytest.mark.parametrize("size, n", [(1000003, 700001), (1000003, 1000003),
                                     (31, 4), (31, -7), (31, 0), (31, 1000),
                                     (1, 1), (0, 5)])
def test_steps_match_numpy_slices(size, n):
    x = np.random.default_rng(size).normal(size=size).astype(np.float32)
    keep = x.copy()
    s, d, c, k = steps(x, count(n))
    want = x[:max(0, min(n, size))]
    assert d.shape == want.shape and c.shape == want.shape
    np.testing.assert_allclose(s, want.astype(np.float64).sum(),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(d, want * np.float32(2))
    np.testing.assert_allclose(c, np.cumsum(want.astype(np.float64)),
                               rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(k, want[want > 0])
    np.testing.assert_array_equal(x, keep)


@fuse.jit
def kept_sum(buf, n):
    return fuse.prefix(buf, n).sum()


def test_a_selected_count_sizes_a_later_pipeline():
    x = np.random.default_rng(5).normal(size=100003).astype(np.float32)
    out = np.zeros_like(x)
    num = np.zeros(1, np.int64)
    fc.select(x, out, num, lambda a: a > 0.5, x.size)
    kept = x[x > 0.5]
    assert num[0] == kept.size
    np.testing.assert_allclose(kept_sum(out, num.reshape(())),
                               kept.astype(np.float64).sum(), rtol=1e-5)


@fuse.jit
def prefix_of(x, n):
    return fuse.prefix(x, n)


@pytest.mark.parametrize("x, n, err, text", [
    (np.zeros((2, 3), np.float32), count(1), ValueError,
     "x must have rank 1, got rank 2"),
    (np.zeros(4, np.float32), np.array(1, np.int32), TypeError,
     "n must be a 0-d int64 array"),
    (np.zeros(4, np.float32), np.ones(1, np.int64), TypeError,
     "n must be a 0-d int64 array"),
    (np.zeros(4, np.float32), np.array(1.0), TypeError,
     "n must be a 0-d int64 array"),
])
def test_errors(x, n, err, text):
    with pytest.raises(err, match=text):
        prefix_of(x, n)


def test_a_number_is_not_a_count_in_memory():
    @fuse.jit
    def f(x):
        return fuse.prefix(x, np.int64(3))

    with pytest.raises(TypeError, match="not the number"):
        f(np.zeros(4, np.float32))


@fuse.jit
def positives_prefix_sum(x):
    # A count computed in the pipeline (a reduction: on the GPU a device
    # word too) sizes the prefix.
    n = (x > 0).astype(np.int64).sum()
    return fuse.prefix(x, n).sum()


def test_a_count_computed_in_the_pipeline():
    x = np.random.default_rng(9).normal(size=1001).astype(np.float32)
    k = int((x > 0).sum())
    np.testing.assert_allclose(positives_prefix_sum(x),
                               x[:k].astype(np.float64).sum(), rtol=1e-5,
                               atol=1e-4)


# -- the GPU trace (IR only; temp_storage_check.py runs it on a GPU) ----------
class _Dev:
    """A device array as the GPU trace sees one (not a NumPy array)."""

    def __init__(self, dtype, ndim):
        self.dtype, self.ndim = np.dtype(dtype), ndim


def test_gpu_trace_keeps_a_device_count_in_memory():
    from fuse._jit import trace
    ir = trace(lambda b, n: fuse.prefix(b, n).sum(), ["b", "n"],
               [_Dev(np.float32, 1), _Dev(np.int64, 0)], [False, False],
               gpu=True).ir
    assert "%arg1: tensor<i64>" in ir
    assert "fuse.prefix %arg0, %arg1 : tensor<?xf32>, tensor<i64>" in ir
    # A number stays a value passed by value, and is no count in memory.
    with pytest.raises(TypeError, match="n must be an array"):
        trace(lambda b, n: fuse.prefix(b, n), ["b", "n"],
              [_Dev(np.float32, 1), np.array(3, np.int64)], [False, False],
              gpu=True)


def test_gpu_trace_refuses_a_device_value_as_a_size():
    from fuse._jit import trace
    with pytest.raises(TypeError, match="a size must be known on the host"):
        trace(lambda n: fuse.iota(n), ["n"], [_Dev(np.int64, 0)], [False],
              gpu=True)
