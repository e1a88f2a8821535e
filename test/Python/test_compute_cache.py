"""fuse.compute's trace cache: calls of one structure (the algorithm, its
operators and iterators, d_out's dtype, the inputs' types) trace once and
reuse the Pipeline (and on the GPU its Launcher); whatever a traced
function bakes in (its code, closure values, defaults, the globals it
reads) is in the key, so a changed value traces again and never gives a
stale result; values the key cannot hold (an array in a closure) make the
call trace every time."""

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind
from fuse._fnkey import fn_key

from conftest import rand

OFFSET = 5.0


@pytest.fixture
def traces(monkeypatch):
    """Counts fuse.compute's traces, with an empty cache."""
    monkeypatch.setattr(fc, "_TRACES", {})
    real = fc.trace
    seen = []

    def trace(*a, **k):
        seen.append(1)
        return real(*a, **k)
    monkeypatch.setattr(fc, "trace", trace)
    return seen


def test_same_structure_traces_once(traces):
    x = rand(1000, seed=1)
    out = np.zeros(1, np.float32)
    sq = fc.TransformIterator(x, lambda a: a * a)
    for n in (1000, 999, 17):
        fc.reduce_into(sq, out, OpKind.PLUS, n, np.float32(0.5))
        ref = 0.5 + np.sum(x[:n].astype(np.float64) ** 2)
        assert abs(out[0] - ref) <= 1e-5 * ref
    assert len(traces) == 1
    # Another h_init dtype, d_out dtype or operator: a trace each.
    fc.reduce_into(sq, out, OpKind.PLUS, 10, np.float64(0))
    fc.reduce_into(sq, np.zeros(1, np.float64), OpKind.PLUS, 10,
                   np.float64(0))
    fc.reduce_into(sq, out, OpKind.MAXIMUM, 10, np.float32(-1))
    assert len(traces) == 4
    fc.reduce_into(sq, out, OpKind.MAXIMUM, 10, np.float32(-1))
    assert len(traces) == 4


def test_closure_and_defaults_are_keyed(traces):
    x = rand(100, seed=2)
    o = np.zeros(100, np.float32)
    for k in (2.0, 3.0, 2.0):
        fc.unary_transform(x, o, lambda a: a * k, 100)
        np.testing.assert_allclose(o, x * np.float32(k), rtol=1e-6)
    for k in (4.0, 5.0):
        fc.unary_transform(x, o, lambda a, k=k: a + k, 100)
        np.testing.assert_allclose(o, x + np.float32(k), rtol=1e-6)
    assert len(traces) == 4     # 2.0 again is a hit


def test_global_value_is_keyed(traces):
    global OFFSET
    x = rand(100, seed=3)
    o = np.zeros(100, np.float32)

    def shift(a):
        return a + OFFSET
    try:
        for v in (5.0, 7.0):
            OFFSET = v
            fc.unary_transform(x, o, shift, 100)
            np.testing.assert_allclose(o, x + np.float32(v), rtol=1e-6)
    finally:
        OFFSET = 5.0
    assert len(traces) == 2


def test_unkeyable_values_trace_every_call(traces):
    x = rand(100, seed=4)
    o = np.zeros(100, np.float32)
    box = np.array([1.0], np.float32)

    def add_box(a):
        return a + float(box[0])
    for v in (1.0, 2.0):
        box[0] = v
        fc.unary_transform(x, o, add_box, 100)
        np.testing.assert_allclose(o, x + np.float32(v), rtol=1e-6)
    assert len(traces) == 2
    assert fn_key(add_box) is None


def test_iterator_structures(traces):
    x = rand(50, seed=5)
    o = np.zeros(50, np.float32)
    counting = fc.CountingIterator(np.float32(3))
    fc.binary_transform(x, counting, o, OpKind.PLUS, 50)
    np.testing.assert_allclose(o, x + 3 + np.arange(50), rtol=1e-6)
    constant = fc.ConstantIterator(np.float32(3))
    fc.binary_transform(x, constant, o, OpKind.PLUS, 50)
    np.testing.assert_allclose(o, x + 3, rtol=1e-6)
    fc.binary_transform(x, fc.TransformIterator(x, fuse.OpKind.NEGATE), o,
                        OpKind.PLUS, 50)
    np.testing.assert_allclose(o, 0, atol=0)
    assert len(traces) == 3
