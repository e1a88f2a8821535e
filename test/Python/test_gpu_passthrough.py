"""Arguments returned unchanged on the GPU: the GPU trace copies them in a
map fused with the results of their shape (convert-fuse-to-gpu would copy
each in a kernel of its own; fuse-compile refuses a function with no fuse
ops, e.g. one that only returns its argument). Checks the traced IR and
that fuse-compile takes it (compile only, where fuse-compile and the CUDA
toolkit are present); gpu_check's edge checks run the calls on a GPU."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import fuse.gpu as gpu
from fuse._jit import trace

X = np.zeros(7, np.float32)


def _ir(fn, n):
    return trace(fn, ["x", "y"][:n], [X] * n, [False] * n, gpu=True).ir


def test_returned_argument_is_copied_by_a_map():
    ir = _ir(lambda x: x, 1)
    assert "fuse.map %arg0" in ir
    assert "return %arg0" not in ir
    # Beside a result of the same shape: one map yields both.
    ir = _ir(lambda x, y: (x, x * y), 2)
    assert ir.count("fuse.map") == 1
    assert "return %arg" not in ir


def test_cpu_trace_keeps_the_argument():
    """The CPU backend returns the argument itself (no copy kernel)."""
    ir = trace(lambda x: x, ["x"], [X], [False]).ir
    assert "fuse.map" not in ir and "return %arg0" in ir


def test_fuse_compile_takes_the_copy(tmp_path):
    fc = gpu.find_fuse_compile()
    if not fc or not (shutil.which("ptxas") or os.path.exists(
            "/usr/local/cuda/bin/ptxas")):
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    for i, (fn, n) in enumerate(((lambda x: x, 1),
                                 (lambda x, y: (x, x * y, y), 2))):
        src = tmp_path / ("p%d.mlir" % i)
        src.write_text(_ir(fn, n))
        r = subprocess.run([fc, str(src), "--emit=ptx", "-o",
                            str(tmp_path / ("p%d.ptx" % i))],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
