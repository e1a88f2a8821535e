"""fuse.jit(fastmath=...): the flags reach the float arithmetic and math
functions of the traced IR (and only those), bad flags are refused, and the
flagged pipelines still compute their results on the CPU backend."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import fuse
import fuse.gpu as gpu
from fuse._ir import fastmath_flags
from fuse._jit import trace


def _softmax(X):
    e = fuse.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _ref_softmax(X):
    e = np.exp(X.astype(np.float64) - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


X = np.random.default_rng(7).uniform(-1, 1, (53, 37)).astype(np.float32)


def test_default_has_no_flags():
    ir = fuse.jit(_softmax).lower(X)
    assert "fastmath" not in ir
    assert "arith.divf" in ir and "math.exp" in ir


@pytest.mark.parametrize("spec, text", [
    ("arcp", "arcp"),
    ("afn,arcp", "arcp,afn"),          # MLIR's order
    (["afn", " arcp"], None),          # list items are not stripped: refused
    (("contract", "afn"), "contract,afn"),
    ("fast", "fast"),
    ("arcp,fast", "fast"),
    ("", None),
])
def test_flags_reach_float_ops(spec, text):
    if isinstance(spec, list):
        with pytest.raises(ValueError, match="unknown flag ' arcp'"):
            fuse.jit(fastmath=spec)(_softmax)
        return
    ir = fuse.jit(fastmath=spec)(_softmax).lower(X)
    if text is None:
        assert "fastmath" not in ir
        return
    flag = "fastmath<%s>" % text
    for op in ("arith.subf", "math.exp", "arith.divf"):
        lines = [l for l in ir.splitlines() if op in l]
        assert lines and all(flag in l for l in lines), (op, ir)
    # Reductions, broadcasts and sizes carry no flags.
    assert not any("fastmath" in l for l in ir.splitlines()
                   if "fuse.reduce" in l or "tensor.dim" in l)


def test_integer_and_compare_ops_unflagged():
    @fuse.jit(fastmath="fast")
    def f(x, n):
        k = (n * 3 + 1).astype(np.float32)
        return fuse.where(x > 0, x * k, -x)

    ir = f.lower(X[0], np.int32(2))
    assert "arith.muli" in ir and "arith.cmpf" in ir
    for l in ir.splitlines():
        if "arith.muli" in l or "arith.addi" in l or "arith.cmpf" in l:
            assert "fastmath" not in l, l
        if "arith.mulf" in l or "arith.negf" in l:
            assert "fastmath<fast>" in l, l


@pytest.mark.parametrize("bad, err, msg", [
    ("arcp,quick", ValueError, "unknown flag 'quick'"),
    (["arcp", 3], TypeError, "must be strings"),
    (7, TypeError, "expected a string"),
])
def test_bad_flags_refused(bad, err, msg):
    with pytest.raises(err, match=msg):
        fuse.jit(fastmath=bad)


@pytest.mark.parametrize("spec", ["arcp", "afn", "arcp,afn,contract", "fast"])
def test_flagged_results_on_cpu(spec):
    got = fuse.jit(fastmath=spec)(_softmax)(X)
    assert np.max(np.abs(got - _ref_softmax(X))) < 1e-6


def test_flagged_and_plain_are_separate_pipelines():
    plain, fast = fuse.jit(_softmax), fuse.jit(fastmath="arcp")(_softmax)
    assert plain.lower(X) != fast.lower(X)
    np.testing.assert_allclose(plain(X), fast(X), rtol=1e-6, atol=1e-7)


def test_gpu_trace_takes_the_reciprocal(tmp_path):
    """The GPU trace carries the flag to fuse-compile: with arcp the
    softmax's row kernels take rcp.rn.f32 and no per-element div.rn.f32
    (compile only; skipped without fuse-compile and the CUDA toolkit)."""
    fc = gpu.find_fuse_compile()
    if not fc or not (shutil.which("ptxas") or os.path.exists(
            "/usr/local/cuda/bin/ptxas")):
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    for spec, rcp in (("arcp", True), (None, False)):
        p = trace(_softmax, ["X"], [X], [False], gpu=True,
                  fastmath=fastmath_flags(spec))
        src = tmp_path / "sm.mlir"
        src.write_text(p.ir)
        ptx = tmp_path / "sm.ptx"
        subprocess.run([fc, str(src), "--emit=ptx", "-o", str(ptx)],
                       check=True, capture_output=True)
        text = ptx.read_text()
        assert ("rcp.rn.f32" in text) == rcp, spec
        assert ("div.rn.f32" in text) == (not rcp), spec
