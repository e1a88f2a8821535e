"""FUSE_GPU_TILE_OPTIONS: fuse-tile's options reach fuse-compile for GPU
compiles and the cache key (no GPU needed: compiles only, where fuse-compile
and the CUDA toolkit are present)."""

import os
import shutil

import pytest

import fuse.gpu as gpu
from fuse._cpu import CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _softmax_ir():
    with open(os.path.join(ROOT, "examples", "softmax_rows.mlir")) as f:
        return f.read()


def _toolkit():
    fc = gpu.find_fuse_compile()
    ptxas = shutil.which("ptxas") or any(
        d and os.path.exists(os.path.join(d, "bin", "ptxas"))
        for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"))
    if not fc or not ptxas:
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    return fc


def test_cache_key_names_tile_options(monkeypatch):
    ir = _softmax_ir()
    monkeypatch.delenv("FUSE_GPU_TILE_OPTIONS", raising=False)
    plain = gpu.cache_key(ir)
    monkeypatch.setenv("FUSE_GPU_TILE_OPTIONS", "long-row-items=0")
    zero = gpu.cache_key(ir)
    monkeypatch.setenv("FUSE_GPU_TILE_OPTIONS", "long-row-items=4")
    four = gpu.cache_key(ir)
    monkeypatch.setenv("FUSE_GPU_TILE_OPTIONS", "  ")
    blank = gpu.cache_key(ir)
    assert len({plain, zero, four}) == 3
    assert blank == plain


def test_tile_options_reach_fuse_compile(monkeypatch):
    fc = _toolkit()
    ir = _softmax_ir()
    monkeypatch.delenv("FUSE_GPU_TILE_OPTIONS", raising=False)
    lib_default, manifest = gpu._compile(fc, ir)
    monkeypatch.setenv("FUSE_GPU_TILE_OPTIONS", "long-row-items=0")
    lib_zero, manifest_zero = gpu._compile(fc, ir)
    # The kernels differ (the long rows' output walk), the entry does not.
    assert lib_default != lib_zero
    assert manifest == manifest_zero


def test_bad_tile_options_are_a_compile_error(monkeypatch):
    fc = _toolkit()
    monkeypatch.setenv("FUSE_GPU_TILE_OPTIONS", "no-such-option=1")
    with pytest.raises(CompileError, match="invalid tile options"):
        gpu._compile(fc, _softmax_ir())
