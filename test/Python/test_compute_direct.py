"""fuse.compute on CUDA arrays writes straight into d_out.

On the PyTorch stand-in of test_launch.py (tensors in host memory, the
entry emulated through ctypes): every algorithm with a d_out that can take
the result (contiguous, the result's dtype, large enough, overlapping no
input) gets d_out's own pointer as the entry's output, allocates nothing
and copies nothing, and d_out holds the NumPy reference; the cases that
keep an allocated output and a copy into d_out (select into a d_out of
another dtype or smaller than num_items, a d_out over an input) still give
the same results and errors as before."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind
from fuse import _launch

from conftest import rand, sum_rtol
from test_launch import Tensor, dev, host, torch  # noqa: F401 (fixture)


@pytest.fixture
def watch(torch, monkeypatch):   # noqa: F811 (the fixture above)
    """Counts the outputs fuse allocates (torch.empty) and the copies into
    tensors (Tensor.__setitem__) of one call."""
    seen = {"allocs": [], "copies": []}
    real_empty = torch.empty

    def empty(*a, **k):
        seen["allocs"].append(a[0] if a else k.get("shape"))
        return real_empty(*a, **k)
    monkeypatch.setattr(torch, "empty", empty)
    real_set = Tensor.__setitem__

    def setitem(self, k, v):
        seen["copies"].append(k)
        real_set(self, k, v)
    monkeypatch.setattr(Tensor, "__setitem__", setitem)

    def reset():
        seen["allocs"].clear()
        seen["copies"].clear()
    seen["reset"] = reset
    return seen


def direct(torch, watch, d_out):   # noqa: F811
    """The last launch wrote into d_out itself: its pointer was the
    entry's output, nothing was allocated or copied."""
    assert torch.launches[-1]["outs"] == [d_out.data_ptr()]
    assert watch["allocs"] == [] and watch["copies"] == []


def copied(torch, watch, d_out):   # noqa: F811
    """The last launch wrote into an output fuse allocated, then copied."""
    assert torch.launches[-1]["outs"] != [d_out.data_ptr()]
    assert len(watch["allocs"]) == 1 and len(watch["copies"]) >= 1


def poisoned(n, dtype=np.float32):
    a = np.empty(n, dtype)
    a.view(np.uint8)[...] = 0x7B
    return a


# ---- every algorithm on the direct path -------------------------------------

@pytest.mark.parametrize("n", [0, 1, 1000])
def test_reduce_into_direct(torch, watch, n):   # noqa: F811
    x = rand(n)
    dx = dev(torch, x)
    for op, init, ref in (
            (OpKind.PLUS, np.float32(0.5), 0.5 + x.astype(np.float64).sum()),
            (OpKind.MAXIMUM, np.float32(-np.inf),
             x.max() if n else -np.inf),
            (lambda a, b: fuse.minimum(a, b), np.float32(np.inf),
             x.min() if n else np.inf)):
        if n == 0 and op is OpKind.MAXIMUM:
            continue      # max of nothing raises ValueError, as in NumPy
        out = dev(torch, poisoned(3))
        watch["reset"]()
        fc.reduce_into(dx, out, op, n, init)
        direct(torch, watch, out)
        got = host(out)
        np.testing.assert_allclose(got[0], ref, rtol=sum_rtol(n))
        np.testing.assert_array_equal(got[1:].view(np.uint8), 0x7B)


def test_reduce_into_a_0d_and_int_out(torch, watch):   # noqa: F811
    x = np.arange(1, 101, dtype=np.int32)
    out = dev(torch, np.zeros((), np.int64))
    fc.reduce_into(fc.TransformIterator(dev(torch, x), lambda a: a * 3),
                   out, OpKind.PLUS, 100, 7)
    direct(torch, watch, out)
    assert host(out) == 7 + 3 * x.sum()


@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (31, 17)])
def test_segmented_reduce_direct(torch, watch, shape):   # noqa: F811
    R, C = shape
    X = rand(shape)
    dX = dev(torch, X)
    for op, init, ref in (
            (OpKind.PLUS, 0, X.astype(np.float64).sum(axis=1)),
            (OpKind.MAXIMUM, -np.inf, X.max(axis=1) if R else
             np.zeros(0))):
        if R == 0 and op is OpKind.MAXIMUM:
            continue      # max over empty rows raises ValueError
        out = dev(torch, poisoned(R + 2))
        watch["reset"]()
        fc.segmented_reduce(dX, out, op, init, R, C)
        direct(torch, watch, out)
        got = host(out)
        np.testing.assert_allclose(got[:R], ref, rtol=sum_rtol(C))
        np.testing.assert_array_equal(got[R:].view(np.uint8), 0x7B)


@pytest.mark.parametrize("n", [0, 1, 777])
def test_scans_direct(torch, watch, n):   # noqa: F811
    x = np.random.default_rng(n).integers(-50, 50, n).astype(np.int32)
    dx = dev(torch, x)
    out = dev(torch, poisoned(n + 4, np.int32))
    fc.inclusive_scan(dx, out, OpKind.PLUS, None, n)
    direct(torch, watch, out)
    got = host(out)
    np.testing.assert_array_equal(got[:n], np.cumsum(x, dtype=np.int32))
    np.testing.assert_array_equal(got[n:].view(np.uint8), 0x7B)
    out = dev(torch, poisoned(n, np.int32))
    watch["reset"]()
    fc.exclusive_scan(fc.TransformIterator(dx, lambda a: a * a), out,
                      OpKind.PLUS, np.int32(5), n)
    direct(torch, watch, out)
    ref = 5 + np.concatenate([[0], np.cumsum(x * x)[:-1]]) if n else \
        np.zeros(0)
    np.testing.assert_array_equal(host(out), ref.astype(np.int32))
    # A float scan into a 2-d d_out (contiguous: the flat buffer).
    y = rand(n)
    out = dev(torch, np.zeros((1, n), np.float32))
    watch["reset"]()
    fc.inclusive_scan(fc.TransformIterator(dev(torch, y), lambda a: a * a),
                      out, OpKind.PLUS, None, n)
    direct(torch, watch, out)
    np.testing.assert_allclose(host(out)[0], np.cumsum(
        y.astype(np.float64) ** 2), rtol=sum_rtol(n))


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_transforms_direct(torch, watch, n):   # noqa: F811
    x, y = rand(n), rand(n, seed=1)
    dx, dy = dev(torch, x), dev(torch, y)
    out = dev(torch, poisoned(n + 1))
    fc.unary_transform(dx, out, lambda a: fuse.relu(1.5 * a + 0.25) * 0.5
                       + a, n)
    direct(torch, watch, out)
    got = host(out)
    np.testing.assert_allclose(got[:n], np.maximum(1.5 * x + 0.25, 0) * 0.5
                               + x, rtol=1e-6, atol=1e-7)
    assert got[n:].view(np.uint8).tolist() == [0x7B] * 4
    out = dev(torch, poisoned(n))
    watch["reset"]()
    fc.binary_transform(dx, dy, out, OpKind.MULTIPLIES, n)
    direct(torch, watch, out)
    np.testing.assert_array_equal(host(out), x * y)
    # The result converted to d_out's dtype in the pipeline: still direct.
    out = dev(torch, np.zeros(n, np.int32))
    watch["reset"]()
    fc.unary_transform(dx, out, lambda a: a * 100, n)
    direct(torch, watch, out)
    np.testing.assert_array_equal(host(out), (x * np.float32(100)).astype(
        np.int32))


def test_binary_transform_rows_direct(torch, watch):   # noqa: F811
    R, C = 13, 29
    X = rand((R, C))
    dX = dev(torch, X)
    m = dev(torch, np.zeros(R, np.float32))
    fc.segmented_reduce(dX, m, OpKind.MAXIMUM, -np.inf, R, C)
    direct(torch, watch, m)
    e = dev(torch, np.zeros((R, C), np.float32))
    fc.binary_transform(dX, fc.RowIterator(m, C), e,
                        lambda a, b: fuse.exp(a - b), R * C)
    direct(torch, watch, e)
    np.testing.assert_allclose(host(e), np.exp(X - X.max(axis=1,
                                                         keepdims=True)),
                               rtol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_select_direct(torch, watch, n):   # noqa: F811
    x = rand(n, seed=3)
    out = dev(torch, poisoned(n + 2))
    count = np.zeros(1, np.int64)
    fc.select(dev(torch, x), out, count, lambda a: a > 0, n)
    direct(torch, watch, out)
    kept = x[x > 0]
    assert count[0] == kept.size
    got = host(out)
    np.testing.assert_array_equal(got[:kept.size], kept)
    # Past the kept values d_out is as it was.
    np.testing.assert_array_equal(got[kept.size:].view(np.uint8), 0x7B)
    # A count on the device is written (the only copy of the call).
    dcount = dev(torch, np.zeros(1, np.int64))
    watch["reset"]()
    fc.select(dev(torch, x), out, dcount, lambda a: a > 0, n)
    assert torch.launches[-1]["outs"] == [out.data_ptr()]
    assert watch["allocs"] == [] and len(watch["copies"]) == 1
    assert host(dcount)[0] == kept.size


def test_offset_and_stream(torch, watch):   # noqa: F811
    """A d_out that is a slice of a larger tensor (another pointer than
    its base's) and a call on a stream."""
    x = rand(500)
    base = dev(torch, np.zeros(510, np.float32))
    out = base[7:507]
    s = torch.cuda.Stream(0)
    watch["reset"]()
    fc.unary_transform(dev(torch, x), out, OpKind.NEGATE, 500, stream=s)
    direct(torch, watch, out)
    assert torch.launches[-1]["stream"] == s.cuda_stream
    got = host(base)
    np.testing.assert_array_equal(got[7:507], -x)
    assert not got[:7].any() and not got[507:].any()


# ---- the fallback: an output fuse allocates, then a copy into d_out ---------

def test_select_into_another_dtype_copies(torch, watch):   # noqa: F811
    x = rand(300, seed=5)
    out = dev(torch, np.zeros(300, np.float64))
    count = np.zeros(1, np.int64)
    fc.select(dev(torch, x), out, count, lambda a: a > 0, 300)
    copied(torch, watch, out)
    kept = x[x > 0]
    assert count[0] == kept.size
    np.testing.assert_array_equal(host(out)[:kept.size],
                                  kept.astype(np.float64))
    assert not host(out)[kept.size:].any()


def test_select_into_a_smaller_d_out_copies(torch, watch):   # noqa: F811
    x = np.where(np.arange(100) % 4 == 0, 1.0, -1.0).astype(np.float32)
    out = dev(torch, np.zeros(30, np.float32))      # 25 kept, capacity 100
    count = np.zeros(1, np.int64)
    fc.select(dev(torch, x), out, count, lambda a: a > 0, 100)
    copied(torch, watch, out)
    assert count[0] == 25
    np.testing.assert_array_equal(host(out), [1.0] * 25 + [0.0] * 5)
    small = dev(torch, np.zeros(10, np.float32))
    with pytest.raises(ValueError, match="has 10 elements but 25 were "
                       "selected"):
        fc.select(dev(torch, x), small, count, lambda a: a > 0, 100)


def test_in_place_copies(torch, watch):   # noqa: F811
    """A d_out over an input: the entry would reject the overlap (or race
    with its own reads), so the result goes through an output of fuse's
    and is copied, as before: the same values as from a separate d_out."""
    x = rand(1000)
    dx = dev(torch, x)
    fc.unary_transform(dx, dx, lambda a: a * 2 + 1, 1000)
    copied(torch, watch, dx)
    np.testing.assert_array_equal(host(dx), x * 2 + 1)
    xi = np.arange(50, dtype=np.int32)
    dxi = dev(torch, xi)
    watch["reset"]()
    fc.inclusive_scan(dxi, dxi, OpKind.PLUS, None, 50)
    copied(torch, watch, dxi)
    np.testing.assert_array_equal(host(dxi), np.cumsum(xi))
    # d_out over the first row of the matrix it reduces.
    R, C = 8, 16
    X = rand((R, C))
    dX = dev(torch, X)
    m = dX.reshape(-1)[:R]
    watch["reset"]()
    fc.segmented_reduce(dX, m, OpKind.MAXIMUM, -np.inf, R, C)
    copied(torch, watch, m)
    np.testing.assert_array_equal(host(m), X.max(axis=1))
    # d_out partly over a RowIterator's values.
    vals = dev(torch, np.arange(10, dtype=np.float32))
    out = vals[5:]
    watch["reset"]()
    fc.unary_transform(fc.RowIterator(vals, 1), out, OpKind.IDENTITY, 5)
    copied(torch, watch, out)
    np.testing.assert_array_equal(host(vals), [0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
    # reduce_into into an element of its own input.
    x = rand(64, seed=9)
    dx = dev(torch, x)
    watch["reset"]()
    fc.reduce_into(dx, dx[3:4], OpKind.PLUS, 64, np.float32(0))
    assert len(watch["allocs"]) == 1
    np.testing.assert_allclose(host(dx)[3], x.astype(np.float64).sum(),
                               rtol=sum_rtol(64))


def test_errors_unchanged(torch, watch):   # noqa: F811
    x = rand(100)
    dx = dev(torch, x)
    n = len(torch.launches)
    with pytest.raises(TypeError, match="d_out: the array is not "
                       "C-contiguous"):
        fc.unary_transform(dx, dev(torch, np.zeros(200, np.float32))[::2],
                           OpKind.NEGATE, 100)
    with pytest.raises(ValueError, match="d_out: has 99 elements but 100 "
                       "are needed"):
        fc.unary_transform(dx, dev(torch, np.zeros(99, np.float32)),
                           OpKind.NEGATE, 100)
    with pytest.raises(TypeError, match="d_out: a NumPy array lives on the "
                       "host"):
        fc.unary_transform(dx, np.zeros(100, np.float32), OpKind.NEGATE, 100)
    with pytest.raises(TypeError, match="d_out.*complex64"):
        fc.unary_transform(dx, dev(torch, np.zeros(100, np.complex64)),
                           OpKind.NEGATE, 100)
    assert len(torch.launches) == n


def test_launcher_helpers():
    """The pieces of the launcher's choice: the WRITTEN result, byte
    ranges that overlap (empty ones never do), a manifest dtype's element
    size (8 where unknown: overlap tests err towards the copy)."""
    assert _launch.WRITTEN is not None and repr(_launch.WRITTEN) == \
        "fuse._launch.WRITTEN"
    assert _launch._overlap((100, 8), (104, 4))
    assert not _launch._overlap((100, 8), (108, 4))
    assert not _launch._overlap((100, 0), (100, 4))
    assert _launch._itemsize("f32") == 4 and _launch._itemsize("index") == 8
    assert _launch._itemsize("i1") == 1 and _launch._itemsize("x") == 8
