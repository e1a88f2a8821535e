"""The per-call path of GPU pipelines, without a GPU.

A stand-in for PyTorch (FakeTorch: tensors in host memory, streams as
integers) takes the same fast path as torch.Tensor (fuse._launch); the
compiled entry is replaced by an emulator that reads its C arguments the
way the real entry does (pointer and dimensions per tensor, scalars by
value, output pointers, filter count pointers, the stream) and computes
the results with the CPU backend. Checked here: the results of a cache hit
against NumPy references, the marshalling of every argument, stream=
(accepted kinds, validation, the default current stream), the argument
errors on the hit path, and that a hit does no file, module or tool work.
Compiling needs fuse-compile and the CUDA toolkit (skipped without them);
gpu_check.py runs the real thing on a GPU."""

import builtins
import contextlib
import ctypes
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind, _cache, _cpu, _jit, _launch
import fuse.gpu as gpu

import workloads as W
from conftest import rand, sum_rtol


def _toolkit():
    fc_ = gpu.find_fuse_compile()
    ptxas = shutil.which("ptxas") or any(
        d and os.path.exists(os.path.join(d, "bin", "ptxas"))
        for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"))
    if not fc_ or not ptxas:
        pytest.skip("fuse-compile or the CUDA toolkit is not here")


# ---- a stand-in for PyTorch ----------------------------------------------------

class _DType:
    def __init__(self, name, np_dtype):
        self.name, self.np = name, np.dtype(np_dtype)

    def __repr__(self):
        return "torch." + self.name


class _Device:
    def __init__(self, kind="cuda", index=0):
        self.type, self.index = kind, index


_BUFFERS = {}   # data pointer -> the tensor's NumPy array (the emulator's)


class Tensor:
    """A CUDA tensor in host memory: the attributes fuse reads."""
    is_cuda = True

    def __init__(self, a, dtype, device=0, requires_grad=False):
        self._a, self.dtype = a, dtype
        self.device = _Device("cuda", device)
        self.requires_grad = requires_grad
        if a.size:
            _BUFFERS[a.ctypes.data] = a

    shape = property(lambda self: self._a.shape)

    def dim(self):
        return self._a.ndim

    def get_device(self):
        return self.device.index

    def is_contiguous(self):
        return self._a.flags.c_contiguous

    def data_ptr(self):
        return self._a.ctypes.data if self._a.size else 0

    def reshape(self, *shape):
        return Tensor(self._a.reshape(*shape), self.dtype, self.device.index)

    def __getitem__(self, k):
        return Tensor(self._a[k], self.dtype, self.device.index)

    def __setitem__(self, k, v):
        self._a[k] = v._a if isinstance(v, Tensor) else v

    def numpy(self):
        return self._a.copy()

    @property
    def __cuda_array_interface__(self):
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on "
                               "Variable that requires grad")
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str,
                "data": (self.data_ptr(), False),
                "strides": None if a.flags.c_contiguous else a.strides,
                "version": 3}


Tensor.__module__ = "torch"


class Stream:
    _next = [0x5000]

    def __init__(self, device=0, handle=None):
        if handle is None:
            Stream._next[0] += 0x10
            handle = Stream._next[0]
        self.cuda_stream, self.device_index = handle, device


class ExternalStream(Stream):
    def __init__(self, handle, device=None):
        super().__init__(0 if device is None else device, handle)


def make_fake_torch():
    """The module (one per process, as PyTorch: fuse keeps its dtypes)."""
    t = types.ModuleType("torch")
    t.__version__ = "fake"
    t.Tensor = Tensor
    for name, d in (("float32", np.float32), ("float64", np.float64),
                    ("float16", np.float16), ("complex64", np.complex64),
                    ("int8", np.int8),
                    ("int16", np.int16), ("int32", np.int32),
                    ("int64", np.int64), ("uint8", np.uint8),
                    ("uint16", np.uint16), ("uint32", np.uint32),
                    ("uint64", np.uint64), ("bool", np.bool_)):
        setattr(t, name, _DType(name, d))
    current = {0: 0, 1: 0}

    def empty(shape, dtype, device):
        a = np.empty(shape, dtype.np)
        if a.size:
            a.reshape(-1).view(np.uint8)[...] = 0xA5   # poison: unwritten shows
        return Tensor(a, dtype, device.index)

    def empty_like(x):
        t.likes += 1
        return empty(x.shape, x.dtype, x.device)

    @contextlib.contextmanager
    def stream(s):
        old = current[s.device_index]
        current[s.device_index] = s.cuda_stream
        try:
            yield
        finally:
            current[s.device_index] = old

    t.empty = empty
    t.empty_like = empty_like
    t.likes = 0
    t.device = _Device
    t.cuda = types.SimpleNamespace(
        Stream=Stream, ExternalStream=ExternalStream, stream=stream,
        default_stream=lambda d=0: Stream(d, 0),
        current_stream=lambda d=0: Stream(d, current[d]))
    t._C = types.SimpleNamespace(
        _cuda_getCurrentRawStream=lambda d: current[d])
    t.current = current
    return t


FAKE_TORCH = make_fake_torch()


def dev(torch, a, device=0):
    a = np.ascontiguousarray(a)
    return Tensor(a.copy(), getattr(torch, a.dtype.name), device)


# ---- the emulated entry -----------------------------------------------------------

_SCALARS = {"f32": np.float32, "f64": float, "i64": int, "index": int,
            "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": bool}


def emulated_load(launches):
    """Launcher._load for the emulator: a C function pointer with the
    entry's argument types (ctypes converts the arguments as for the real
    entry) that reads them like the entry (pointer and dims per tensor,
    scalars, outputs, filter counts, stream), runs the traced function
    with the CPU backend on the host buffers and writes the results where
    the real entry would."""
    def load(self):
        entry = self.compiled.entry
        fn = self.pipeline.source

        def call(*cargs):
            try:
                emulate(entry, self.pipeline, fn, cargs)
                return 0
            except BaseException as e:         # noqa: BLE001
                errors.append(e)
                return 8                        # FUSE_ERROR_INTERNAL

        def emulate(entry, pipeline, fn, cargs):
            assert len(cargs) == len(self.argtypes)
            i, inputs = 0, []
            for a in entry["args"]:
                if a["kind"] == "tensor":
                    ptr, dims = cargs[i] or 0, tuple(
                        cargs[i + 1:i + 1 + a["rank"]])
                    i += 1 + a["rank"]
                    arr = np.empty(dims, np.float32) if 0 in dims else \
                        _BUFFERS[ptr]
                    assert arr.shape == dims, (arr.shape, dims)
                    inputs.append((arr, dims))
                else:
                    inputs.append((_SCALARS[a["dtype"]](cargs[i]), None))
                    i += 1
            outs = cargs[i:i + len(entry["results"])]
            i += len(entry["results"])
            nf = sum(1 for r in entry["results"] if r.get("filter"))
            counts = cargs[i:i + nf]
            stream = cargs[i + nf] or 0
            assert i + nf + 1 == len(cargs)
            launches.append({"stream": stream, "dims": [d for _, d in inputs
                                                        if d is not None],
                             "outs": [o or 0 for o in outs]})
            res = fn(*[a for a, _ in inputs])
            res = list(res) if isinstance(res, tuple) else [res]
            k = 0
            for r, g in zip(res, pipeline.gpu_results):
                if g[0] != "ir":
                    continue
                data = np.asarray(r).ravel()
                if data.size:
                    buf = _BUFFERS[outs[g[1]]].reshape(-1)
                    assert buf.size >= data.size
                    buf[:data.size] = data
                if entry["results"][g[1]].get("filter"):
                    ctypes.c_int64.from_address(counts[k]).value = data.size
                    k += 1
        errors = []
        proto = ctypes.CFUNCTYPE(ctypes.c_int32, *self.argtypes)
        cfn = proto(call)
        self._keep = cfn

        def checked(*cargs):
            st = cfn(*cargs)
            if errors:
                raise errors.pop()
            return st
        self._fn = checked
        return checked
    return load


@pytest.fixture
def torch(monkeypatch):
    _toolkit()
    t = FAKE_TORCH
    t.current.clear()
    t.current.update({0: 0, 1: 0})
    monkeypatch.setattr(t, "empty", t.empty)
    monkeypatch.setitem(sys.modules, "torch", t)
    monkeypatch.setattr(gpu, "_compile_only", False)
    monkeypatch.setattr(gpu, "runtime", lambda: None)
    launches = []
    monkeypatch.setattr(_launch.Launcher, "_load", emulated_load(launches))
    t.launches = launches
    # GPU traces remember their function, traced for the CPU backend on
    # the emulator's first call (for @fuse.jit and fuse.compute alike).
    real_trace = _jit.trace

    def trace(fn, names, arrays, weaks, gpu=False, fastmath=""):
        p = real_trace(fn, names, arrays, weaks, gpu=gpu, fastmath=fastmath)
        if gpu:
            cpu = {}

            def source(*vals):
                arrs = [_jit.as_input_array(v, n)[0]
                        for v, n in zip(vals, names)]
                k = tuple((a.dtype.str, a.ndim) for a in arrs)
                if k not in cpu:
                    cpu[k] = real_trace(fn, names, arrs, weaks,
                                        fastmath=fastmath)
                return cpu[k].run(arrs)
            p.source = source
        return p
    monkeypatch.setattr(_jit, "trace", trace)
    monkeypatch.setattr(fc, "trace", trace)
    # fuse.compute's trace cache would keep Launchers loaded by an earlier
    # test's emulator.
    monkeypatch.setattr(fc, "_TRACES", {})
    yield t


def jit(fn):
    return fuse.jit(fn)


def host(t):
    return t.numpy() if isinstance(t, Tensor) else np.asarray(t)


# ---- results of cache hits --------------------------------------------------------

def test_hits_match_numpy(torch):
    sumsq = jit(lambda x: (x * x).sum())
    chain = jit(lambda x: fuse.relu(1.5 * x + 0.25) * 0.5 + x)
    dot = jit(lambda x, y: (x * y).sum())
    softmax = jit(W.jit_softmax_rows.fn)
    for n in (1000, 4096, 31):
        for seed in range(3):        # the first call compiles, later ones hit
            x, y = rand(n, seed=seed), rand(n, seed=seed + 7)
            dx, dy = dev(torch, x), dev(torch, y)
            s = sumsq(dx)
            assert s.shape == () and host(s).dtype == np.float32
            np.testing.assert_allclose(host(s), W.ref_sumsq(x),
                                       rtol=sum_rtol(n))
            np.testing.assert_allclose(host(chain(dx)), W.ref_chain(x),
                                       rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(host(dot(dx, dy)), W.ref_dot(x, y),
                                       rtol=sum_rtol(n), atol=1e-6)
            X = rand((n // 31, 31), seed=seed)
            np.testing.assert_allclose(host(softmax(dev(torch, X))),
                                       W.ref_softmax_rows(X), rtol=1e-5,
                                       atol=1e-7)
    assert len(sumsq._launchers) == 1 and len(softmax._launchers) == 1
    # The launches got the arrays' dimensions (the emulator checks each
    # against its buffer).
    dims = [d["dims"] for d in torch.launches]
    assert [(1000,)] in dims and [(1000,), (1000,)] in dims
    assert dims[-1] == [(1, 31)]


def test_filter_scalars_and_sizes(torch):
    select = jit(W.jit_select.fn)
    shift = jit(lambda x, a, n: (x * a, fuse.iota(n, np.float32) * 2,
                                 x.shape[0]))
    for seed in range(3):
        x = rand(777, seed=seed)
        y, count = select(dev(torch, x))
        ry, rc = W.ref_select(x)
        assert isinstance(count, int) and count == rc
        np.testing.assert_array_equal(host(y), ry)
        z, r, n = shift(dev(torch, x), 2.5, 300 + seed)
        assert n == 777
        np.testing.assert_allclose(host(z), x * 2.5, rtol=1e-6)
        np.testing.assert_array_equal(
            host(r), np.arange(300 + seed, dtype=np.float32) * 2)
    assert len(select._launchers) == 1 and len(shift._launchers) == 1


def test_histogram_counts_sized_while_running(torch):
    """np.histogram with an edge array: the counts' size, len(edges) - 1,
    is known only while running; the launcher takes it from the output the
    manifest's size expression allocated. histogram_even writes its counts
    into d_histogram (direct), leaving the rest."""
    from histogram_check import by_edges, cub_even_model, even_data, same
    x = even_data(np.float32, 1001, 7, (-1.5, 2.25))
    for edges in (np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0.5]),
                  np.array([-2.0, 3.0]), np.array([-1.0, 0.0, 0.5, 2.0])):
        c, e = by_edges(dev(torch, x), dev(torch, edges))
        want = np.histogram(x, edges)
        assert same(host(c), want[0]) and same(host(e), want[1])
    assert len(by_edges._launchers) == 1
    h = dev(torch, np.full(12, 7, np.int32))
    fc.histogram_even(dev(torch, x), h, 11, -1.0, 1.0, len(x))
    want = cub_even_model(x, 11, -1.0, 1.0).astype(np.int32)
    assert same(host(h)[:10], want) and (host(h)[10:] == 7).all()


def test_unsigned_and_bool_on_the_hit_path(torch):
    f = jit(lambda x, b: (x.max(), x // 3, (~b).sum()))
    for seed in range(2):
        rng = np.random.default_rng(seed)
        x = rng.integers(0, 2 ** 32 - 1, 1000, dtype=np.uint32,
                         endpoint=True)
        x[-1] = 2 ** 32 - 1
        b = rng.random(1000) < 0.3
        m, q, c = f(dev(torch, x), dev(torch, b))
        assert host(m) == x.max() and host(m).dtype == np.uint32
        np.testing.assert_array_equal(host(q), x // 3)
        assert host(c) == (~b).sum()


def test_outputs_like_an_input(torch):
    """An output of an input's shape and dtype is made by empty_like; one
    of another dtype (a comparison's bool, an int32 input's float64) or
    another shape by empty, with the right dtype either way."""
    f = jit(lambda x, y: (x * 2.0, x > 0.5, y * 0.5, x.sum(axis=1)))
    X = rand((40, 3), seed=1)
    Y = np.arange(120, dtype=np.int32).reshape(40, 3)
    for call in range(3):         # the first compiles, later ones hit
        before = torch.likes
        a, b, c, d = f(dev(torch, X), dev(torch, Y))
        np.testing.assert_allclose(host(a), X * 2.0, rtol=1e-6)
        np.testing.assert_array_equal(host(b), X > 0.5)
        np.testing.assert_allclose(host(c), Y * 0.5)
        np.testing.assert_allclose(host(d), X.sum(axis=1), rtol=1e-6)
        assert (host(b).dtype, host(c).dtype) == (np.bool_, np.float64)
        assert torch.likes - before == (call > 0)  # a; not b, c, d
    assert len(f._launchers) == 1


# ---- stream= ------------------------------------------------------------------------

def test_default_stream_is_the_current_one(torch):
    sumsq = jit(lambda x: (x * x).sum())
    dx = dev(torch, rand(100))
    sumsq(dx)
    assert torch.launches[-1]["stream"] == 0          # legacy default: NULL
    s = torch.cuda.Stream(0)
    with torch.cuda.stream(s):
        sumsq(dx)
    assert torch.launches[-1]["stream"] == s.cuda_stream


@pytest.mark.parametrize("kind", ["torch", "external", "int", "zero",
                                  "protocol", "numpy-int"])
def test_stream_kinds(torch, kind):
    seen = []
    real = torch.empty
    torch.empty = lambda *a, **k: seen.append(
        torch.current[0]) or real(*a, **k)
    sumsq = jit(lambda x: (x * x).sum())
    x = rand(100)
    dx = dev(torch, x)
    sumsq(dx)
    del seen[:]
    s, want = {
        "torch": (torch.cuda.Stream(0), None),
        "external": (torch.cuda.ExternalStream(0x7777, device=0), 0x7777),
        "int": (0x1234, 0x1234), "zero": (0, 0),
        "protocol": (types.SimpleNamespace(
            __cuda_stream__=lambda: (0, 0x4321)), 0x4321),
        "numpy-int": (np.uint64(0x2468), 0x2468)}[kind]
    if want is None:
        want = s.cuda_stream
    r = sumsq(dx, stream=s)
    assert torch.launches[-1]["stream"] == want
    np.testing.assert_allclose(host(r), W.ref_sumsq(x), rtol=1e-5)
    # The output was allocated with the stream current (PyTorch's
    # allocator ties it to that stream).
    assert seen == [want]
    assert torch.current[0] == 0                       # restored


@pytest.mark.parametrize("bad,exc,msg", [
    (True, TypeError, "bool"),
    ("0x10", TypeError, "str"),
    (1.5, TypeError, "float"),
    (object(), TypeError, "object"),
    (-1, ValueError, "2\\*\\*64"),
    (2 ** 64, ValueError, "2\\*\\*64"),
])
def test_bad_streams(torch, bad, exc, msg):
    sumsq = jit(lambda x: (x * x).sum())
    dx = dev(torch, rand(100))
    sumsq(dx)
    n = len(torch.launches)
    with pytest.raises(exc, match=msg):
        sumsq(dx, stream=bad)
    with pytest.raises(exc, match=msg):
        fc.unary_transform(dx, dev(torch, rand(100)), lambda a: a * 2, 100,
                           stream=bad)
    assert len(torch.launches) == n                    # nothing launched


def test_stream_of_another_device(torch):
    sumsq = jit(lambda x: (x * x).sum())
    dx = dev(torch, rand(100))
    with pytest.raises(ValueError, match="device 1.*device 0"):
        sumsq(dx, stream=torch.cuda.Stream(1))


def test_compute_takes_a_stream(torch):
    x = rand(1000)
    dx, out = dev(torch, x), dev(torch, np.zeros(1000, np.float32))
    s = torch.cuda.Stream(0)
    fc.unary_transform(dx, out, lambda a: a * 2, 1000, stream=s)
    assert torch.launches[-1]["stream"] == s.cuda_stream
    np.testing.assert_array_equal(host(out), x * 2)
    r = dev(torch, np.zeros(1, np.float32))
    fc.reduce_into(fc.TransformIterator(dx, lambda a: a * a), r,
                   OpKind.PLUS, 1000, np.float32(0), stream=0x99)
    assert torch.launches[-1]["stream"] == 0x99
    np.testing.assert_allclose(host(r)[0], W.ref_sumsq(x), rtol=1e-5)


def test_cpu_calls_refuse_a_stream():
    x = rand(10)
    with pytest.raises(ValueError, match="stream= is for calls on CUDA"):
        W.jit_sumsq(x, stream=0)
    with pytest.raises(TypeError, match="stream"):
        W.jit_sumsq(x, stream="default")
    assert W.jit_sumsq(x, stream=None) == pytest.approx(W.ref_sumsq(x),
                                                        rel=1e-5)
    out = np.empty(10, np.float32)
    with pytest.raises(ValueError, match="stream= is for calls on CUDA"):
        fc.unary_transform(x, out, lambda a: a, 10, stream=0)


def test_a_parameter_named_stream_is_the_function_s():
    f = fuse.jit(lambda x, stream: x * stream)
    np.testing.assert_allclose(f(np.ones(3, np.float32), stream=2.0),
                               np.full(3, 2.0, np.float32))


# ---- errors on the hit path ----------------------------------------------------------

def test_errors_after_warm_up(torch):
    dot = jit(lambda x, y: (x * y).sum())
    dot(dev(torch, rand(10)), dev(torch, rand(10)))
    n = len(torch.launches)
    with pytest.raises(ValueError, match="size mismatch.*'x'.*10.*'y'.*9"):
        dot(dev(torch, rand(10)), dev(torch, rand(9)))
    with pytest.raises(TypeError, match="argument 'y'.*complex64"):
        dot(dev(torch, rand(10)), dev(torch, rand(10).astype(np.complex64)))
    with pytest.raises(TypeError, match="argument 'x'.*not C-contiguous"):
        dot(dev(torch, rand(20))[::2], dev(torch, rand(10)))
    with pytest.raises(TypeError, match="argument 'y'.*host"):
        dot(dev(torch, rand(10)), rand(10))
    g = dev(torch, rand(10))
    g.requires_grad = True
    with pytest.raises(TypeError, match="argument 'x'.*requires grad"):
        dot(g, dev(torch, rand(10)))
    with pytest.raises(TypeError, match="device 1 but argument 'x' on "
                       "device 0"):
        dot(dev(torch, rand(10)), dev(torch, rand(10), device=1))
    assert len(torch.launches) == n


def test_arrays_of_another_device_than_the_runtimes(torch, monkeypatch):
    """Arrays (and fuse.compute outputs) on a device other than the one the
    runtime runs on raise before anything launches, also after a hit on
    the runtime's device (the signature's device is part of the key)."""
    monkeypatch.setattr(gpu, "runtime_device", lambda: 0)
    dot = jit(lambda x, y: (x * y).sum())
    got = dot(dev(torch, rand(10)), dev(torch, rand(10)))
    assert np.allclose(host(got), (rand(10) * rand(10)).sum(), rtol=1e-5)
    n = len(torch.launches)
    with pytest.raises(TypeError, match="argument 'x' is on CUDA device 1, "
                       "but the fuse runtime runs on device 0"):
        dot(dev(torch, rand(10), device=1), dev(torch, rand(10), device=1))
    out = dev(torch, np.zeros(10, np.float32), device=1)
    with pytest.raises(TypeError, match="d_out is on CUDA device 1"):
        fc.unary_transform(dev(torch, rand(10)), out, lambda a: a * 2, 10)
    assert len(torch.launches) == n


def test_generated_checks(torch):
    """The checks a hit runs (generated from the trace's) raise the
    generic messages: a max over an empty row, a Python int outside the
    dtype it is combined with."""
    softmax = jit(W.jit_softmax_rows.fn)
    softmax(dev(torch, rand((3, 4))))
    n = len(torch.launches)
    with pytest.raises(ValueError, match="zero-size"):
        softmax(dev(torch, np.zeros((3, 0), np.float32)))
    add = jit(lambda x, a: x + a)
    x = np.arange(10, dtype=np.uint8)
    np.testing.assert_array_equal(host(add(dev(torch, x), 3)), x + 3)
    n = len(torch.launches)
    with pytest.raises(OverflowError, match="300 out of bounds for uint8"):
        add(dev(torch, x), 300)
    assert len(torch.launches) == n
    np.testing.assert_array_equal(host(add(dev(torch, x), 255)),
                                  x + np.uint8(255))


# ---- a hit does no file, module or tool work --------------------------------------

@contextlib.contextmanager
def no_io(monkeypatch):
    """Every way to the file system, a tool, a compile or a trace
    raises, and no module is imported."""
    def boom(*a, **k):
        raise AssertionError("a cache hit touched %r" % (a[:1],))
    with monkeypatch.context() as m:
        for mod, name in ((builtins, "open"), (os, "open"), (os, "stat"),
                          (os, "listdir"), (os, "scandir"), (os, "rename"),
                          (os.path, "exists"), (os.path, "isdir"),
                          (os.path, "isfile"), (subprocess, "run"),
                          (subprocess, "Popen"), (ctypes, "CDLL"),
                          (gpu, "_compile"), (gpu, "load"),
                          (gpu, "find_fuse_compile"), (_cache, "lookup"),
                          (_cpu, "load"), (_cpu, "_build"), (_jit, "trace")):
            m.setattr(mod, name, boom)
        loaded = set(sys.modules)
        yield
        assert set(sys.modules) == loaded, "a cache hit imported a module"


def test_hit_does_no_io_fast_path(torch, monkeypatch):
    sumsq = jit(lambda x: (x * x).sum())
    softmax = jit(W.jit_softmax_rows.fn)
    x, X = rand(4096), rand((64, 64))
    dx, dX = dev(torch, x), dev(torch, X)
    sumsq(dx)
    softmax(dX)
    sumsq(dx, stream=5)
    with no_io(monkeypatch):
        s = sumsq(dx)
        sm = softmax(dX)
        s2 = sumsq(dx, stream=torch.cuda.Stream(0))
    np.testing.assert_allclose(host(s), W.ref_sumsq(x), rtol=1e-5)
    np.testing.assert_allclose(host(s2), W.ref_sumsq(x), rtol=1e-5)
    np.testing.assert_allclose(host(sm), W.ref_softmax_rows(X), rtol=1e-5,
                               atol=1e-7)


def test_hit_does_no_io_cpu_path(monkeypatch):
    x = rand(1000)
    W.jit_sumsq(x)
    W.jit_chain(x)
    with no_io(monkeypatch):
        s = W.jit_sumsq(x)
        c = W.jit_chain(x)
    assert s == pytest.approx(W.ref_sumsq(x), rel=sum_rtol(1000))
    np.testing.assert_allclose(c, W.ref_chain(x), rtol=1e-6, atol=1e-7)


def test_hit_does_no_io_standin(monkeypatch):
    _toolkit()
    monkeypatch.setattr(gpu, "_compile_only", True)
    f = fuse.jit(lambda x, y: ((x * y).sum(), x + y))
    a, b = gpu.StandIn(rand(300)), gpu.StandIn(rand(300, seed=1))
    f(a, b)
    hits = gpu.stats["memory_hits"]
    with no_io(monkeypatch):
        s, z = f(a, b)
    assert s.shape == () and z.shape == (300,)
    assert gpu.stats["memory_hits"] == hits + 1
