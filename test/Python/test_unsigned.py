"""Unsigned integers follow NumPy: comparisons, max/min (elementwise,
reductions, scans), sums, division, remainder, shifts and conversions use
the unsigned operations on values above the signed range, and results come
back with NumPy's dtypes. NumPy is the reference throughout. The GPU trace
is checked for the unsigned ops in its IR, and compiled by fuse-compile
where it and the CUDA toolkit are present (no GPU needed)."""

import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import fuse
import fuse.gpu as gpu
from fuse._jit import trace

# Values on both sides of the signed range of each width.
VALUES = {
    np.uint8: [0, 1, 7, 127, 128, 200, 255],
    np.uint16: [0, 1, 7, 32767, 32768, 40000, 65535],
    np.uint32: [0, 1, 7, 2**31 - 1, 2**31, 3_000_000_000, 2**32 - 1],
    np.uint64: [0, 1, 7, 2**63 - 1, 2**63, 2**63 + 5, 2**64 - 1],
}
UNSIGNED = list(VALUES)


def _x(dt):
    return np.array(VALUES[dt], dt)


def _y(dt):
    # Divisors and shift counts, with a 0 and counts at/above the width.
    bits = np.dtype(dt).itemsize * 8
    return np.array([3, 0, 1, bits - 1, bits, 5, bits + 3], dt)


def _same(got, ref, what):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, "%s: dtype %s, NumPy %s" % (
        what, got.dtype, ref.dtype)
    assert got.shape == ref.shape, what
    assert np.array_equal(got, ref, equal_nan=True), \
        "%s: got %s, NumPy %s" % (what, got, ref)


def _check(fn, names, *args):
    """fn(*args) through fuse and NumPy; fn returns a tuple named by
    `names`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # NumPy's division-by-zero
        ref = fn(*args)
    got = fuse.jit(fn)(*args)
    if not isinstance(ref, tuple):
        ref, got, names = (ref,), (got,), [names]
    assert len(got) == len(ref)
    for g, r, n in zip(got, ref, names):
        _same(g, r, n)


def test_reported_max_of_uint32():
    f = fuse.jit(lambda x: x.max())
    r = f(np.array([1, 3000000000, 7], np.uint32))
    assert r == 3000000000 and r.dtype == np.uint32


def test_reported_scan_max_of_uint8():
    f = fuse.jit(lambda x: fuse.scan(x, op="max"))
    _same(f(np.array([1, 200, 7], np.uint8)),
          np.array([1, 200, 200], np.uint8), "scan max")


@pytest.mark.parametrize("dt", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_elementwise(dt):
    names = ["<", "<=", ">", ">=", "==", "!=", "np.maximum", "np.minimum",
             "fuse.maximum", "//", "%", "/", ">>", "<<", "+", "-", "*",
             "abs", "-x", "~", "x > 100", "x // 3", "x % 7"]

    def fn(x, y):
        return (x < y, x <= y, x > y, x >= y, x == y, x != y,
                np.maximum(x, y), np.minimum(x, y),
                fuse.maximum(x, y) if not isinstance(x, np.ndarray)
                else np.maximum(x, y),
                x // y, x % y, x / y, x >> y, x << y, x + y, x - y, x * y,
                abs(x), -x, ~x, x > 100, x // 3, x % 7)
    x = _x(dt)
    _check(fn, names, x, _y(dt))
    # Both operands above the signed range.
    _check(fn, names, x, x[::-1].copy())


@pytest.mark.parametrize("dt", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_conversions(dt):
    names = ["f32", "f64", "i64", "u8", "bool", "mean", "np.sqrt"]

    def fn(x):
        return (x.astype(np.float32), x.astype(np.float64),
                x.astype(np.int64), x.astype(np.uint8), x.astype(np.bool_),
                x.mean(), np.sqrt(x.astype(np.float64)))
    _check(fn, names, _x(dt))


@pytest.mark.parametrize("dt", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_reductions(dt):
    names = ["max", "min", "sum", "prod", "np.max", "np.amin", "max rows",
             "min cols", "sum rows", "np.maximum.reduce"]
    x = _x(dt)
    m = np.stack([x, x[::-1], np.roll(x, 3)])

    def fn(x, m):
        return (x.max(), x.min(), x.sum(), x.prod(), np.max(x), np.amin(x),
                m.max(axis=1), m.min(axis=0), m.sum(axis=1),
                np.maximum.reduce(m, axis=1))
    _check(fn, names, x, m)
    # The sum of the largest values wraps in uint64, as in NumPy.
    _check(lambda x: x.sum(), "sum of max",
           np.full(3, np.iinfo(dt).max, dt))


@pytest.mark.parametrize("dt", UNSIGNED, ids=lambda d: np.dtype(d).name)
def test_scans(dt):
    names = ["scan max", "scan min", "scan add", "exclusive max",
             "np.cumsum", "np.maximum.accumulate", "scan max rows"]
    x = _x(dt)
    m = np.stack([x, x[::-1]])

    def ref(x, m):
        ex = np.zeros_like(x)
        ex[1:] = np.maximum.accumulate(x)[:-1]
        return (np.maximum.accumulate(x), np.minimum.accumulate(x),
                np.cumsum(x), ex, np.cumsum(x), np.maximum.accumulate(x),
                np.maximum.accumulate(m, axis=1))

    def fn(x, m):
        return (fuse.scan(x, op="max"), fuse.scan(x, op="min"),
                fuse.scan(x, op="add"),
                fuse.scan(x, op="max", exclusive=True, init=dt(0)),
                np.cumsum(x), np.maximum.accumulate(x),
                fuse.scan(m, op="max", axis=1))
    got = fuse.jit(fn)(x, m)
    for g, r, n in zip(got, ref(x, m), names):
        _same(g, r, n)


def test_reduce_with_init_and_combiner():
    x = _x(np.uint32)
    f = fuse.jit(lambda x: (fuse.reduce(x, "max", init=np.uint32(5)),
                            fuse.reduce(x, lambda a, b: fuse.maximum(a, b),
                                        init=np.uint32(0)),
                            fuse.scan(x, lambda a, b: fuse.minimum(a, b),
                                      init=np.uint32(2**32 - 1))))
    a, b, c = f(x)
    _same(a, np.uint32(2**32 - 1), "reduce max init")
    _same(b, np.uint32(2**32 - 1), "reduce combiner")
    _same(c, np.minimum.accumulate(x), "scan combiner")


def test_mixed_signed_unsigned_promotion():
    u32 = np.array([3_000_000_000, 1], np.uint32)
    i32 = np.array([-5, 7], np.int32)
    u64 = np.array([2**63 + 5, 1], np.uint64)
    i64 = np.array([-5, 7], np.int64)
    u8 = np.array([200, 1], np.uint8)
    i8 = np.array([-5, 7], np.int8)
    _check(lambda a, b: (a + b, a < b, np.maximum(a, b), a // b),
           ["+", "<", "maximum", "//"], u32, i32)       # -> int64
    _check(lambda a, b: (a + b, a < b, a * b), ["+", "<", "*"],
           u64, i64)                                      # -> float64
    _check(lambda a, b: (a * b, a < b, np.minimum(a, b)),
           ["*", "<", "minimum"], u8, i8)                 # -> int16
    _check(lambda a, b: (a + b, a > b), ["+", ">"], u8,
           np.array([3, 4], np.uint64))


def test_bitwise_of_uint64_and_int64_is_refused():
    u64 = np.array([1], np.uint64)
    i64 = np.array([1], np.int64)
    for fn in (lambda a, b: a & b, lambda a, b: a >> b):
        with pytest.raises(TypeError, match="float64"):
            fuse.jit(fn)(u64, i64)


def test_python_integers_follow_nep50():
    u8 = np.array([200, 0], np.uint8)
    # Out of range: NumPy raises, a cast would wrap silently.
    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        fuse.jit(lambda x: x + 300)(u8)
    with pytest.raises(OverflowError, match="-1 out of bounds for uint32"):
        fuse.jit(lambda x: x - (-1))(np.array([1], np.uint32))
    # Comparisons with them are exact, as in NumPy 2.
    _check(lambda x: (x < 300, x == -1, x > -1, 300 > x, x != 256),
           ["< 300", "== -1", "> -1", "300 >", "!= 256"], u8)
    # Values of uint64 beyond int64.
    _check(lambda x: (x + (2**63 + 5), x < 2**63 + 1),
           ["+ big", "< big"], np.array([1, 2**63], np.uint64))
    # A Python int argument is range-checked before each run.
    f = fuse.jit(lambda x, s: x + s)
    _same(f(u8, 50), u8 + 50, "weak argument")
    with pytest.raises(OverflowError, match="argument 's'"):
        f(u8, 300)
    with pytest.raises(OverflowError, match="argument 's'"):
        f(u8, -1)


def test_unsigned_results_from_compute():
    x = _x(np.uint64)
    out = np.empty(1, np.uint64)
    fuse.compute.reduce_into(x, out, fuse.OpKind.MAXIMUM, x.size,
                             np.uint64(0))
    assert out[0] == 2**64 - 1
    fuse.compute.reduce_into(x, out, fuse.OpKind.MINIMUM, x.size,
                             np.uint64(2**64 - 1))
    assert out[0] == 0
    y = np.empty(x.size, np.uint64)
    fuse.compute.inclusive_scan(x, y, fuse.OpKind.MAXIMUM, None, x.size)
    _same(y, np.maximum.accumulate(x), "inclusive_scan max")
    d = np.array([3, 200, 1, 250], np.uint8)
    o = np.empty(4, np.bool_)
    fuse.compute.binary_transform(d, np.array([100, 100, 100, 100], np.uint8),
                                  o, fuse.OpKind.GREATER, 4)
    _same(o, d > 100, "binary_transform >")


# ---- the GPU trace -----------------------------------------------------------

def _gpu_ir(fn, *arrays):
    return trace(fn, ["x", "y", "z"][:len(arrays)], arrays,
                 [False] * len(arrays), gpu=True).ir


def _fuse_compile(tmp_path, ir, name):
    fc = gpu.find_fuse_compile()
    if not fc or not (shutil.which("ptxas") or os.path.exists(
            "/usr/local/cuda/bin/ptxas")):
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    src = tmp_path / (name + ".mlir")
    src.write_text(ir)
    r = subprocess.run([fc, str(src), "--emit=ptx", "-o",
                        str(tmp_path / (name + ".ptx"))],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + "\n" + ir


GPU_CASES = {
    "reduce": (lambda x: (x.max(), x.min(axis=1), x.sum(axis=0)),
               (np.zeros((2, 3), np.uint32),),
               ["fuse.reduce umax", "fuse.reduce umin", "arith.extui"]),
    "scan": (lambda x: (fuse.scan(x, op="max"), fuse.scan(x, op="min")),
             (np.zeros(3, np.uint8),),
             ["fuse.scan inclusive umax", "fuse.scan inclusive umin"]),
    "elementwise": (lambda x, y: (x // y, x % y, x >> y, x < y,
                                  np.maximum(x, y), x.astype(np.float32),
                                  x / y),
                    (np.zeros(3, np.uint64),) * 2,
                    ["arith.divui", "arith.remui", "arith.shrui",
                     "arith.cmpi ult", "arith.maxui", "arith.uitofp"]),
}


@pytest.mark.parametrize("case", sorted(GPU_CASES))
def test_gpu_trace_uses_unsigned_ops(case, tmp_path):
    fn, arrays, expect = GPU_CASES[case]
    ir = _gpu_ir(fn, *arrays)
    for op in expect:
        assert op in ir, "%s missing:\n%s" % (op, ir)
    for op in ("fuse.reduce max", "fuse.reduce min", "scan inclusive max",
               "scan inclusive min", "divsi", "floordivsi", "remsi",
               "shrsi", "maxsi", "minsi", "sitofp", "extsi", "cmpi slt",
               "cmpi sgt"):
        assert op not in ir, "%s in:\n%s" % (op, ir)
    _fuse_compile(tmp_path, ir, case)


def test_gpu_compile_only_returns_unsigned_arrays(monkeypatch):
    """Up to the launch with StandIn arrays (host memory posing as CUDA
    arrays, __cuda_array_interface__): the unsigned dtypes are taken and the
    outputs allocated with them."""
    fc = gpu.find_fuse_compile()
    if not fc or not (shutil.which("ptxas") or os.path.exists(
            "/usr/local/cuda/bin/ptxas")):
        pytest.skip("fuse-compile or the CUDA toolkit is not here")
    monkeypatch.setattr(gpu, "_compile_only", True)
    f = fuse.jit(lambda x: (x.max(), fuse.scan(x, op="min"), x // 3))
    r = f(gpu.StandIn(_x(np.uint16)))
    assert [o.dtype for o in r] == [np.dtype(np.uint16)] * 3
    assert [o.shape for o in r] == [(), (7,), (7,)]


@pytest.mark.parametrize("dt", UNSIGNED + [np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_dlpack_and_cuda_array_interface_dtypes(dt):
    """The GPU argument readers map unsigned and bool dtypes to themselves
    (DLPack's kDLUInt / kDLBool codes; the interface's typestr). NumPy's
    own DLPack export stands in for a CUDA producer's: the dtype decoding
    is the same."""
    a = np.zeros(3, dt)
    assert gpu._from_dlpack(a, "x").dtype == np.dtype(dt)
    assert gpu.device_array(gpu.StandIn(a), "x").dtype == np.dtype(dt)


def test_out_of_range_inits_raise():
    x = np.array([1, 200, 7], np.uint8)
    with pytest.raises(OverflowError, match="-1 out of bounds for uint8"):
        fuse.jit(lambda x: fuse.reduce(x, "max", init=-1))(x)
    _same(fuse.jit(lambda x: fuse.reduce(x, "add", init=3))(x),
          np.sum(x, initial=3), "reduce add init")
    out = np.empty(1, np.uint32)
    with pytest.raises(OverflowError, match="h_init"):
        fuse.compute.reduce_into(x.astype(np.uint32), out,
                                 fuse.OpKind.MINIMUM, 3, -1)
