"""Boolean arrays in and out follow NumPy: `~ & | ^` are logical, `+ *`
are or/and, sum counts in int64, max/min/any/all are or/and, `// % << **`
compute in int8; booleans come back as bool arrays. On the GPU, where
kernels cannot read or write i1 tensors, the trace stores them as bytes."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import fuse
import fuse.gpu as gpu
from fuse._jit import trace

A = np.array([True, False, True, False, True])
B = np.array([True, True, False, False, False])


def _same(got, ref, what):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, "%s: dtype %s, NumPy %s" % (
        what, got.dtype, ref.dtype)
    assert np.array_equal(got, ref, equal_nan=got.dtype.kind == "f"), \
        "%s: got %s, NumPy %s" % (what, got, ref)


def test_reported_invert_of_a_comparison():
    x = np.array([0.1, 0.7, 0.5, 0.2], np.float32)
    f = fuse.jit(lambda a: ~(a >= 0.5))
    _same(f(x), ~(x >= 0.5), "~(a >= 0.5)")
    assert "arith.constant true : i1" not in f.lower(x)


def test_reported_opkind_not_on_bool():
    out = np.empty(A.size, np.bool_)
    for op in (fuse.OpKind.LOGICAL_NOT, fuse.OpKind.BIT_NOT):
        fuse.compute.unary_transform(A, out, op, A.size)
        _same(out, ~A, str(op))


OPS = {
    "~": lambda a, b: ~a, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b, "+": lambda a, b: a + b,
    "*": lambda a, b: a * b, "<": lambda a, b: a < b,
    "==": lambda a, b: a == b, "//": lambda a, b: a // b,
    "%": lambda a, b: a % b, "<<": lambda a, b: a << b,
    "**2": lambda a, b: a ** 2, "/": lambda a, b: a / b,
    "+1": lambda a, b: a + 1, "abs": lambda a, b: abs(a),
    "np.maximum": lambda a, b: np.maximum(a, b),
    "np.minimum": lambda a, b: np.minimum(a, b),
    "np.logical_not": lambda a, b: np.logical_not(a),
    "np.logical_and": lambda a, b: np.logical_and(a, b),
    "np.where": lambda a, b: np.where(a, 1, 2),
    "sum": lambda a, b: a.sum(), "max": lambda a, b: a.max(),
    "min": lambda a, b: a.min(), "mean": lambda a, b: a.mean(),
    "any": lambda a, b: a.any(), "all": lambda a, b: a.all(),
    "np.any": lambda a, b: np.any(a), "np.all": lambda a, b: np.all(b),
    "np.cumsum": lambda a, b: np.cumsum(a),
    "scan max": lambda a, b: (np.maximum.accumulate(a)
                              if isinstance(a, np.ndarray)
                              else fuse.scan(a, op="max")),
    "float32": lambda a, b: a.astype(np.float32),
    "uint8": lambda a, b: a.astype(np.uint8),
    "returned": lambda a, b: a,
}


def test_operations_match_numpy():
    names = sorted(OPS)
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = [OPS[n](A, B) for n in names]
    got = fuse.jit(lambda a, b: tuple(OPS[n](a, b) for n in names))(A, B)
    for g, r, n in zip(got, ref, names):
        _same(g, r, n)


def test_reductions_of_constant_and_empty_inputs():
    f = fuse.jit(lambda a: (a.max(), a.min(), a.any(), a.all(), a.sum()))
    for a in (np.zeros(4, bool), np.ones(4, bool)):
        for g, r in zip(f(a), (a.max(), a.min(), a.any(), a.all(),
                               a.sum())):
            _same(g, r, str(a))
    e = np.zeros((3, 0), bool)
    g = fuse.jit(lambda a: (a.any(axis=1), a.all(axis=1)))(e)
    _same(g[0], e.any(axis=1), "any of empty rows")
    _same(g[1], e.all(axis=1), "all of empty rows")
    with pytest.raises(ValueError, match="zero-size"):
        fuse.jit(lambda a: a.max())(np.zeros(0, bool))


def test_negation_and_subtraction_are_refused_like_numpy():
    with pytest.raises(TypeError, match="~"):
        fuse.jit(lambda a: -a)(A)
    with pytest.raises(TypeError, match="subtraction of booleans"):
        fuse.jit(lambda a, b: a - b)(A, B)


def test_filter_and_gather_of_bools():
    x = np.array([1.0, -2.0, 3.0, -4.0, 5.0], np.float32)
    kept, xs = fuse.jit(lambda a, x: fuse.filter((a, x), lambda u, v: v > 0))(
        A, x)
    _same(kept, A[x > 0], "filter bools")
    idx = np.array([4, 0, 9, 1])
    g = fuse.jit(lambda a, i: fuse.gather(a, i))(A, idx)
    _same(g, np.array([A[4], A[0], False, A[1]]), "gather bools")


def test_bool_scalar_argument():
    x = np.array([1.0, -2.0], np.float32)
    f = fuse.jit(lambda x, s: fuse.where(s, x, -x))
    _same(f(x, True), x, "True")
    _same(f(x, np.bool_(False)), -x, "False")


# ---- the GPU trace -----------------------------------------------------------

def test_gpu_trace_stores_bools_as_bytes(tmp_path):
    fn = (lambda a, x: (a, x > 0, a & (x > 0), a.max(), a.any(), a.sum(),
                        fuse.scan(a, op="max"),
                        fuse.filter(a, lambda v: v)))
    ir = trace(fn, ["a", "x"], [A, np.zeros(5, np.float32)], [False] * 2,
               gpu=True).ir
    assert "tensor<?xi1>" not in ir and "tensor<i1>" not in ir, ir
    assert "fuse.reduce umax" in ir and "fuse.reduce or" in ir, ir
    fc = gpu.find_fuse_compile()
    if not fc or not (shutil.which("ptxas") or os.path.exists(
            "/usr/local/cuda/bin/ptxas")):
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    src = tmp_path / "b.mlir"
    src.write_text(ir)
    r = subprocess.run([fc, str(src), "--emit=ptx", "-o",
                        str(tmp_path / "b.ptx")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr + "\n" + ir


def test_gpu_compile_only_returns_bool_arrays(monkeypatch):
    fc = gpu.find_fuse_compile()
    if not fc or not (shutil.which("ptxas") or os.path.exists(
            "/usr/local/cuda/bin/ptxas")):
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    monkeypatch.setattr(gpu, "_compile_only", True)
    r = fuse.jit(lambda a, b: (a ^ b, a.all()))(gpu.StandIn(A),
                                                gpu.StandIn(B))
    assert [o.dtype for o in r] == [np.dtype(np.bool_)] * 2


def test_gpu_function_combiner_over_bools_is_refused():
    with pytest.raises(TypeError, match="booleans"):
        trace(lambda a: fuse.reduce(a, lambda s, v: s | v,
                                    init=np.bool_(False)),
              ["a"], [A], [False], gpu=True)
