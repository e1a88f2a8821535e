"""The per-call path of a GPU pipeline: a signature key computed from the
arguments' types and attributes (no __cuda_array_interface__ dict, no
tracing, no file, module or tool work), and a Launcher per key that holds
everything a call needs, computed once: the entry's ctypes function with
its argtypes set, the output dtypes and shape functions, and the plan that
shapes the results.

A cache hit of `@fuse.jit` on PyTorch or CuPy arrays is: fast_key (one
type look-up and a few attribute reads per argument), a dict look-up,
Launcher.__call__ (the traced size checks, output allocation through the
library, the stream, one ctypes call of the entry). docs/python.md,
"Per-call cost", has the measured numbers.

Argument modes: TORCH (torch.Tensor, exactly), CUPY (cupy.ndarray,
exactly), STANDIN (fuse.gpu.StandIn), DEV (a fuse.gpu.DeviceArray: any
other __cuda_array_interface__ or DLPack producer, introspected by the
generic path), SCALAR (Python and NumPy numbers, and 0-d NumPy arrays on
the generic path)."""

import ast
import ctypes
import sys

import numpy as np

from . import _types as T

TORCH, CUPY, STANDIN, DEV, SCALAR, HOST, OTHER = (
    "torch", "cupy", "standin", "dev", "scalar", "host", "other")

_KIND = {}          # type -> mode
_TORCH_DTYPES = {}  # torch dtype -> NumPy dtype (filled when torch is seen)


def _classify(t):
    """The mode of arguments of type t (memoised per type)."""
    k = OTHER
    mod = getattr(t, "__module__", "") or ""
    if t in (int, float, bool):
        k = SCALAR
    elif issubclass(t, np.generic):
        k = SCALAR if T.is_supported(np.dtype(t)) else OTHER
    elif issubclass(t, np.ndarray):
        k = HOST
    elif mod.startswith("torch"):
        torch = sys.modules.get("torch")
        if torch is not None and t is torch.Tensor:
            k = TORCH
            for name in ("float16", "float32", "float64", "int8", "int16",
                         "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64", "bool"):
                td = getattr(torch, name, None)
                if td is not None:
                    _TORCH_DTYPES[td] = np.dtype(name if name != "bool"
                                                 else np.bool_)
            bf16 = getattr(torch, "bfloat16", None)
            if bf16 is not None and T.BFLOAT16 is not None:
                _TORCH_DTYPES[bf16] = T.BFLOAT16
    elif mod.startswith("cupy"):
        cupy = sys.modules.get("cupy")
        if cupy is not None and t is cupy.ndarray:
            k = CUPY
    elif t is G.StandIn:
        k = STANDIN
    _KIND[t] = k
    return k


def mode_of(t):
    """The mode of arguments of type t (_classify, memoised)."""
    m = _KIND.get(t)
    return m if m is not None else _classify(t)


_I64_MIN, _I64_END = -2 ** 63, 2 ** 63


def fast_key(names, values):
    """The launch key of these arguments: per argument its mode, dtype and
    rank (a number's type), plus the device; None where the generic path
    must look (NumPy arrays, other array types, an unsupported dtype,
    non-contiguous or grad-requiring tensors, ints beyond int64, no device
    array at all). Raises TypeError for arrays on two devices."""
    key = []
    dev = None
    first = None
    for k, v in enumerate(values):
        t = type(v)
        m = mode_of(t)
        if m is SCALAR:
            if t is int and not _I64_MIN <= v < _I64_END:
                return None
            key.append(t)
            continue
        if m is TORCH:
            if not v.is_cuda or v.requires_grad or not v.is_contiguous():
                return None
            dt = _TORCH_DTYPES.get(v.dtype)
            if dt is None:
                return None
            d = v.get_device()
            key.append((TORCH, dt, v.dim()))
        elif m is CUPY:
            if not v.flags.c_contiguous or not T.is_supported(v.dtype):
                return None
            d = v.device.id
            key.append((CUPY, v.dtype, v.ndim))
        elif m is STANDIN:
            a = v.a
            if not T.is_supported(a.dtype):
                return None
            d = -1
            key.append((STANDIN, a.dtype, a.ndim))
        else:
            return None
        if dev is None:
            dev, first = d, k
        elif d != dev:
            raise TypeError(
                "argument %r is on device %d but argument %r on device %d: "
                "a GPU pipeline takes arrays of one device" % (
                    names[k], d, names[first], dev))
    if dev is None:
        return None
    key.append(dev)
    return tuple(key)


def modes_of(values):
    """The argument modes fast_key saw (values it returned a key for)."""
    return [_KIND[type(v)] for v in values]


# ---- streams -------------------------------------------------------------------

def stream_handle(stream):
    """The CUstream handle (an int, 0 for NULL) of a stream= argument: a
    torch.cuda.Stream, a cupy.cuda.Stream, an object with __cuda_stream__
    (the CUDA stream protocol) or an integer handle. None stays None (the
    library's current stream)."""
    if stream is None:
        return None
    if isinstance(stream, (bool, np.bool_)):
        raise TypeError("stream: expected a torch.cuda.Stream, a "
                        "cupy.cuda.Stream or an integer CUstream handle, got "
                        "a bool")
    if isinstance(stream, (int, np.integer)):
        h = int(stream)
        if not 0 <= h < 2 ** 64:
            raise ValueError("stream: an integer CUstream handle is a pointer "
                             "value in [0, 2**64), got %d" % h)
        return h
    h = getattr(stream, "cuda_stream", None)          # torch.cuda.Stream
    if h is None and type(stream).__module__.startswith("cupy"):
        h = getattr(stream, "ptr", None)               # cupy.cuda.Stream
    if h is None and hasattr(stream, "__cuda_stream__"):
        proto = stream.__cuda_stream__()
        if not (isinstance(proto, tuple) and len(proto) == 2):
            raise TypeError("stream: __cuda_stream__() must return (version, "
                            "handle), got %r" % (proto,))
        h = proto[1]
    if h is None or isinstance(h, bool) or not isinstance(
            h, (int, np.integer)):
        raise TypeError("stream: expected a torch.cuda.Stream, a "
                        "cupy.cuda.Stream, an object with __cuda_stream__ "
                        "or an integer CUstream handle, got %s"
                        % type(stream).__name__)
    return int(h)


def _stream_device(stream):
    """The device index a library stream object names, or None."""
    d = getattr(stream, "device_index", None)          # torch
    if d is None and type(stream).__module__.startswith("cupy"):
        d = getattr(stream, "device_id", None)          # cupy >= 13
    return None if d is None or d < 0 else int(d)


def resolve_stream(stream, mode, device):
    """(handle, context) for a given stream=: the CUstream handle the entry
    gets, and a context manager that makes it the current stream of the
    arrays' library (mode TORCH or CUPY), so that the outputs are allocated
    and any copies made on it too (None for other arrays). Raises TypeError
    for other objects, ValueError for handles out of range and for a
    stream of another device."""
    h = stream_handle(stream)
    sd = _stream_device(stream)
    if sd is not None and device is not None and device >= 0 and \
            sd != device:
        raise ValueError("stream: the stream is on device %d but the "
                         "arrays on device %d" % (sd, device))
    if mode is TORCH:
        torch = sys.modules["torch"]
        if isinstance(stream, torch.cuda.Stream):
            s = stream
        elif h == 0:
            s = torch.cuda.default_stream(device)
        else:
            s = torch.cuda.ExternalStream(h, device=device)
        return h, torch.cuda.stream(s)
    if mode is CUPY:
        cupy = sys.modules["cupy"]
        base = getattr(cupy.cuda.stream, "BaseStream", cupy.cuda.Stream)
        if isinstance(stream, base):
            return h, stream
        if h == 0:
            return h, cupy.cuda.Stream.null
        return h, cupy.cuda.ExternalStream(h)
    return h, None


def current_stream(mode, device):
    """The current stream of the library of arrays of this mode (0 for
    the legacy default stream, passed as NULL: the runtime's per-thread
    default stream, which synchronizes with it)."""
    return _current_stream_function(mode)(device)


def _current_stream_function(mode):
    """f(device) -> the library's current stream handle, as fast as the
    library allows: PyTorch's raw-stream query (what its own generated
    code calls) where it has one, else torch.cuda.current_stream."""
    if mode is TORCH:
        torch = sys.modules["torch"]
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return raw
        return lambda d: torch.cuda.current_stream(d).cuda_stream
    if mode is CUPY:
        cupy = sys.modules["cupy"]
        return lambda d: cupy.cuda.get_current_stream().ptr
    return lambda d: 0


# ---- size expressions ------------------------------------------------------------

def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


SIZE_FUNCS = {
    "min": min, "max": max, "div": _trunc_div,
    "ceildiv": lambda a, b: -((-a) // b), "floordiv": lambda a, b: a // b,
    "rem": lambda a, b: a - b * _trunc_div(a, b),
}


def size_function(expr):
    """A function (shapes, values) -> int of a manifest size expression
    (integers, inK_dD, inK, + - *, min max div ceildiv floordiv rem(a, b)):
    shapes[K] is tensor argument K's shape, values[K] scalar argument K."""
    def build(n):
        if isinstance(n, ast.Expression):
            return build(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and \
                not isinstance(n.value, bool):
            c = n.value
            return lambda S, V: c
        if isinstance(n, ast.Name):
            name = n.id
            if name.startswith("in") and "_d" in name:
                k, d = name[2:].split("_d", 1)
                if k.isdigit() and d.isdigit():
                    k, d = int(k), int(d)
                    return lambda S, V: S[k][d]
            elif name.startswith("in") and name[2:].isdigit():
                k = int(name[2:])
                return lambda S, V: int(V[k])
            raise ValueError("unknown name %r" % name)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            a = build(n.operand)
            return lambda S, V: -a(S, V)
        if isinstance(n, ast.BinOp) and type(n.op) in (ast.Add, ast.Sub,
                                                      ast.Mult):
            a, b = build(n.left), build(n.right)
            if isinstance(n.op, ast.Add):
                return lambda S, V: a(S, V) + b(S, V)
            if isinstance(n.op, ast.Sub):
                return lambda S, V: a(S, V) - b(S, V)
            return lambda S, V: a(S, V) * b(S, V)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in SIZE_FUNCS and len(n.args) == 2 and \
                not n.keywords:
            f = SIZE_FUNCS[n.func.id]
            a, b = build(n.args[0]), build(n.args[1])
            return lambda S, V: f(a(S, V), b(S, V))
        raise ValueError("unsupported size expression %r" % expr)
    return build(ast.parse(expr, mode="eval"))


# ---- the launcher ----------------------------------------------------------------

class _Written:
    """The result of an output the entry wrote into a caller's buffer
    (Launcher.__call__'s `out`): there is no array to return."""

    __slots__ = ()

    def __repr__(self):
        return "fuse._launch.WRITTEN"


WRITTEN = _Written()


def _itemsize(dtype):
    """Bytes of an element of a manifest dtype (f32, i64, index, i1, ...);
    8 for an unknown one (an upper bound: overlap tests stay safe)."""
    if dtype == "index":
        return 8
    bits = dtype[1:]
    if dtype[:1] in ("f", "i") and bits.isdigit():
        return max(int(bits) // 8, 1)
    return 8


def _overlap(a, b):
    """Whether byte ranges (ptr, nbytes) a and b share a byte."""
    return a[1] > 0 and b[1] > 0 and a[0] < b[0] + b[1] and \
        b[0] < a[0] + a[1]


# C type of a scalar argument by value, and the Python conversion of its
# value (manifest dtypes; `index` is int64_t).
_SCALAR_CTYPES = {
    "i1": (ctypes.c_bool, int), "i8": (ctypes.c_int8, int),
    "i16": (ctypes.c_int16, int), "i32": (ctypes.c_int32, int),
    "i64": (ctypes.c_int64, int), "index": (ctypes.c_int64, int),
    "f32": (ctypes.c_float, float), "f64": (ctypes.c_double, float)}


def _same_dims(view, rank, exprs):
    """Whether a result's view is its buffer's shape exactly: rank
    dimensions, each an argument dimension or a constant written so in
    the manifest."""
    if len(view) != rank or len(exprs) != rank:
        return False
    for v, e in zip(view, exprs):
        if not hasattr(v, "find"):
            return False
        r = v.find()
        if r.kind == "input":
            if e != "in%d_d%d" % r.src:
                return False
        elif r.kind == "const":
            if e != str(r.src):
                return False
        else:
            return False
    return True


def _dim_getter(sym, known, own):
    """f(shapes, values, counts) -> dimension `sym`'s size (Pipeline._size,
    a filter's count), or None: an `own` output's, read from its buffer."""
    r = sym.find()
    if r.kind == "input":
        i, d = r.src
        return lambda S, V, C: S[i][d]
    if r.kind == "const":
        c = r.src
        return lambda S, V, C: c
    if r.kind == "value":
        i = r.src
        return lambda S, V, C: int(V[i])
    if r.kind == "scalar" and r.src.ssa.startswith("%arg"):
        i = int(r.src.ssa[len("%arg"):])
        return lambda S, V, C: int(V[i])
    c = known.get(id(r))
    if c is not None or own:
        return None if c is None else lambda S, V, C: C[c]

    def unknown(S, V, C):
        raise NotImplementedError(
            "fuse GPU: a size computed while running is returned without "
            "the filter result it counts")
    return unknown


class Launcher:
    """A GPU pipeline's entry ready to call for one argument signature:
    the entry's ctypes function (argtypes set once, loaded at the first
    launch), each output's dtype and shape functions, the filter counts,
    and the plan that shapes the results as the CPU backend's.

    modes: each argument's mode (TORCH, CUPY, STANDIN, DEV or SCALAR);
    owner: the index of the argument whose library allocates the outputs
    (None: the caller passes `owner`); device: that array's device."""

    def __init__(self, pipeline, compiled, names, modes, owner=None,
                 device=None):
        entry = compiled.entry
        self.pipeline, self.compiled, self.names = pipeline, compiled, names
        if len(entry["args"]) != len(modes):
            raise G.GPUUnavailableError(
                "fuse GPU: cache entry %s takes %d arguments, got %d" % (
                    compiled.key, len(entry["args"]), len(modes)))
        self.checks = bool(pipeline.checks or pipeline.ranges or
                           pipeline.nonempty or pipeline.at_least)
        plan, argtypes = [], []
        self.itemsizes = {}     # tensor argument -> bytes of an element
        for k, (a, m) in enumerate(zip(entry["args"], modes)):
            if a["kind"] == "tensor":
                if m is SCALAR:
                    raise TypeError("fuse GPU: argument %r: expected %s"
                                    % (names[k], a["type"]))
                plan.append((k, m, a["rank"]))
                argtypes += [ctypes.c_void_p] + [ctypes.c_int64] * a["rank"]
                self.itemsizes[k] = _itemsize(a.get("dtype", ""))
            else:
                if m is not SCALAR:
                    raise TypeError("fuse GPU: argument %r: expected a "
                                    "scalar" % names[k])
                ct, conv = _SCALAR_CTYPES.get(a["dtype"], (None, None))
                if ct is None:
                    raise G.GPUUnavailableError(
                        "fuse GPU: cache entry %s: argument %d has the "
                        "scalar type %s, which Python cannot pass" % (
                            compiled.key, k, a["dtype"]))
                plan.append((k, m, conv))
                argtypes.append(ct)
        self.plan, self.nargs = plan, len(modes)
        self.dev_args = [k for k, m in enumerate(modes) if m is DEV]
        self.standin = STANDIN in modes
        ir = [j for j, g in enumerate(pipeline.gpu_results) if g[0] == "ir"]
        if len(ir) != len(entry["results"]):
            raise G.GPUUnavailableError(
                "fuse GPU: cache entry %s has %d results, the trace %d" % (
                    compiled.key, len(entry["results"]), len(ir)))
        self.omode = modes[owner] if owner is not None else None
        self.owner, self.device = owner, device
        outs = []
        self.out_dtypes = []    # NumPy dtype of each output
        for r, j in zip(entry["results"], ir):
            dt = np.dtype(pipeline.result_specs[j][0])
            self.out_dtypes.append(dt)
            if self.omode is TORCH:
                dt = G._torch_dtype(dt)
            outs.append((dt, [size_function(e) for e in r["size"]]))
            argtypes.append(ctypes.c_void_p)
        self.outs = outs
        self.size_exprs = [r["size"] for r in entry["results"]]
        self.filters = [i for i, r in enumerate(entry["results"])
                        if r.get("filter")]
        argtypes += [ctypes.c_void_p] * (len(self.filters) + 1)  # + stream
        self.argtypes = argtypes
        self._fn = None
        if self.omode is not None:
            self._current = _current_stream_function(self.omode)
        if self.omode is TORCH:
            torch = sys.modules["torch"]
            self._empty = torch.empty
            self._empty_like = torch.empty_like
            self._tdevice = torch.device("cuda", device)
        elif self.omode is CUPY:
            cupy = sys.modules["cupy"]
            self._empty = cupy.empty
            self._cdevice = cupy.cuda.Device(device)
        # Result shaping (as the CPU backend's results): per result, a
        # size, or an output with its logical dimensions.
        known = {}
        for i in self.filters:
            for s in pipeline.result_specs[ir[i]][2]:
                if hasattr(s, "find"):
                    known[id(s.find())] = i
        post = []
        for (dt, rank, view, kind), g in zip(pipeline.result_specs,
                                             pipeline.gpu_results):
            if g[0] == "size":
                post.append((True, _dim_getter(g[1], known, False), None,
                             None))
                continue
            syms = [s for s in view if hasattr(s, "find")]
            dims = [_dim_getter(s, known, True) for s in syms]
            full = None
            if len(view) != rank or len(syms) != len(view):
                # Dimensions of size 1 the view adds (keepdims, [:, None]).
                it = iter(range(len(syms)))
                full = [next(it) if hasattr(v, "find") else None
                        for v in view]
            post.append((False, g[1], dims, full))
        self.post = post
        self.structure = pipeline.structure
        # Simple results: every result an output in order, no filter, and
        # each output's buffer size expressions exactly its logical
        # dimensions (inK_dD of an argument dimension, or a constant):
        # the outputs are the results as they are.
        self.simple = not self.filters and all(
            g == ("ir", i) for i, g in enumerate(pipeline.gpu_results)) and \
            all(_same_dims(view, rank, self.size_exprs[i])
                for i, (dt, rank, view, kind) in
                enumerate(pipeline.result_specs))
        self.fast = self._generate(entry)

    def _load(self):
        G.runtime()
        lib = self.compiled.library()
        fn = lib[self.compiled.entry["symbol"]]   # a new function object
        fn.restype = ctypes.c_int32
        fn.argtypes = self.argtypes
        self._fn = fn
        return fn

    def run(self, values, stream=None, owner=None, hit=True, check=True,
            out=None):
        """The call with stream= as given (None: the library's current
        stream): a library stream is made current around the allocation
        and the launch. out: as __call__'s."""
        call = self.fast if self.fast is not None and hit and check and \
            not out else None
        if stream is None:
            if call is not None:
                return call(values)
            return self(values, None, owner, hit, check, out)
        h, ctx = self.resolve_stream(stream, owner)
        if ctx is None:
            return call(values, h) if call is not None else \
                self(values, h, owner, hit, check, out)
        with ctx:
            return call(values, h) if call is not None else \
                self(values, h, owner, hit, check, out)

    def resolve_stream(self, stream, owner=None):
        """stream= of a call (not None) as (handle, a context making it the
        library's current stream, or None): resolve_stream for the
        launcher's library, or `owner`'s."""
        if self.omode is None:
            mode, device = G.owner_mode(owner)
        else:
            mode, device = self.omode, self.device
        return resolve_stream(stream, mode, device)

    def _current_stream(self, owner):
        """The library's current stream, for a call without stream=."""
        return self._current(self.device) if self.omode is not None else \
            G.owner_stream(owner)

    def _elements(self, i, S, values):
        """Elements of output i for arguments of shapes S."""
        need = 1
        for f in self.outs[i][1]:
            need *= f(S, values)
        return need

    def _direct(self, i, d, S, values, taken):
        """Whether output i can be the caller's DeviceArray d: d has the
        output's dtype and at least its elements, and the bytes the entry
        writes there overlap no tensor argument and no other output given
        so (taken: their byte ranges). The entry rejects overlapping
        buffers, and an output over an input it still reads would be a
        race: those keep the allocation and the caller's copy."""
        if d.dtype != self.out_dtypes[i]:
            return None
        need = self._elements(i, S, values)
        have = 1
        for n in d.shape:
            have *= n
        if have < need:
            return None
        rng = (d.ptr, need * d.dtype.itemsize)
        for k, m, x in self.plan:
            if m is SCALAR or S[k] is None:
                continue
            v = values[k]
            p = v.ptr if m is DEV else (v.data_ptr() if m is TORCH else (
                v.data.ptr if m is CUPY else v.a.ctypes.data))
            n = self.itemsizes.get(k, 8)
            for e in S[k]:
                n *= e
            if _overlap(rng, (p, n)):
                return None
        if any(_overlap(rng, t) for t in taken):
            return None
        taken.append(rng)
        return d.ptr

    def _arguments(self, values):
        """The entry's leading C arguments (pointers and dimensions, scalars)
        and each argument's shape (None for scalars)."""
        S = [None] * self.nargs
        cargs = []
        for k, m, x in self.plan:
            v = values[k]
            if m is SCALAR:
                cargs.append(x(v))
                continue
            if m is TORCH:
                cargs.append(v.data_ptr())
                sh = v.shape
            elif m is CUPY:
                cargs.append(v.data.ptr)
                sh = v.shape
            elif m is STANDIN:
                a = v.a
                cargs.append(a.ctypes.data)
                sh = a.shape
            else:
                sh = v.shape
                if len(sh) != x:
                    raise TypeError("fuse GPU: argument %r: expected rank %d"
                                    % (self.names[k], x))
                cargs.append(v.ptr)
            S[k] = sh
            cargs.extend(sh)
        return S, cargs

    def __call__(self, values, stream=None, owner=None, hit=True,
                 check=True, out=None):
        """One launch. out: {output index: fuse.gpu.DeviceArray}, buffers
        of the caller for outputs (fuse.compute's d_out): where _direct
        takes one, the entry writes into it (no allocation) and the
        result is WRITTEN; else the output is allocated as without it."""
        if check and self.checks:
            self.pipeline.check(values)
        S, cargs = self._arguments(values)
        if hit:
            G.stats["memory_hits"] += 1
        outs = []
        om = self.omode
        direct = {}
        if out:
            taken = []
            for i, d in out.items():
                p = self._direct(i, d, S, values, taken)
                if p is not None:
                    direct[i] = p
        if len(direct) == len(self.outs):
            outs = [WRITTEN] * len(self.outs)
            cargs += [direct[i] for i in range(len(self.outs))]
        elif om is TORCH:
            empty, dev = self._empty, self._tdevice
            for i, (dt, fns) in enumerate(self.outs):
                if i in direct:
                    outs.append(WRITTEN)
                    cargs.append(direct[i])
                    continue
                o = empty(tuple([f(S, values) for f in fns]), dtype=dt,
                          device=dev)
                outs.append(o)
                cargs.append(o.data_ptr())
        elif om is CUPY:
            with self._cdevice:
                for i, (dt, fns) in enumerate(self.outs):
                    if i in direct:
                        outs.append(WRITTEN)
                        cargs.append(direct[i])
                        continue
                    o = self._empty(tuple([f(S, values) for f in fns]), dt)
                    outs.append(o)
                    cargs.append(o.data.ptr)
        else:
            if om is not None:
                owner = values[self.owner]
            if owner is None:
                raise TypeError("fuse GPU: no device array among the "
                                "arguments")
            empty = G.allocator_like(owner)
            for i, (dt, fns) in enumerate(self.outs):
                if i in direct:
                    outs.append(WRITTEN)
                    cargs.append(direct[i])
                    continue
                o = empty(tuple([f(S, values) for f in fns]), dt)
                outs.append(o)
                cargs.append(G.device_array(o, "result").ptr)
        counts = None
        if self.filters:
            counts = [None] * len(self.outs)
            for i in self.filters:
                n = ctypes.c_int64(0)
                counts[i] = n
                cargs.append(ctypes.byref(n))
        if stream is None:
            stream = self._current_stream(owner)
        cargs.append(stream)
        if not G.compile_only():
            if self.standin or any(isinstance(values[k].owner, G.StandIn)
                                   for k in self.dev_args) or \
                    isinstance(owner, G.StandIn):
                raise G.GPUUnavailableError(_STANDIN_ERROR)
            st = (self._fn or self._load())(*cargs)
            if st:
                G.check(st)
        return self._post(outs, S, values, counts)

    def call_workspace(self, values, out, counts, storage, owner,
                       stream=None):
        """The entry's capture-safe form NAME_ws (docs/aot.md): every output
        is the caller's buffer (out: {output index: DeviceArray}), each
        filter's count goes to the caller's device memory (counts: {output
        index: DeviceArray of one 8-byte integer}; absent: nowhere), and the
        temporaries are carved from `storage`, a DeviceArray (None: only
        ask). Nothing is allocated and nothing waits for the device.
        Returns the bytes `storage` needs when it is None, else None."""
        if not self.compiled.entry.get("workspace_packed"):
            raise ValueError(
                "temp_storage: this pipeline has no capture-safe form (a "
                "size it needs on the host is a filter's count, known only "
                "on the device); call it without temp_storage")
        S, cargs = self._arguments(values)
        taken = []
        for i in range(len(self.outs)):
            d = out.get(i)
            p = self._direct(i, d, S, values, taken) if d is not None \
                else None
            if p is None:
                raise ValueError(
                    "temp_storage: the result goes straight into d_out, "
                    "which must be a CUDA array of dtype %s with at least %d "
                    "elements, overlapping no input" % (
                        self.out_dtypes[i], self._elements(i, S, values)))
            cargs.append(p)
        for i in self.filters:
            c = counts.get(i)
            cargs.append(c.ptr if c is not None else None)
        size = 0
        if storage is not None:
            size = storage.dtype.itemsize
            for n in storage.shape:
                size *= n
        nbytes = ctypes.c_int64(size)
        if stream is None:
            stream = self._current_stream(owner)
        cargs += [None if storage is None else storage.ptr,
                  ctypes.byref(nbytes), stream]
        if G.compile_only():
            return 1 if storage is None else None
        fn = getattr(self, "_ws_fn", None)
        if fn is None:
            G.runtime()
            lib = self.compiled.library()
            fn = lib[self.compiled.entry["symbol"] + "_ws"]
            fn.restype = ctypes.c_int32
            fn.argtypes = self.argtypes[:-1] + [
                ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64),
                ctypes.c_void_p]
            self._ws_fn = fn
        st = fn(*cargs)
        if st:
            G.check(st)
        return nbytes.value if storage is None else None

    def _post(self, outs, S, values, counts):
        """The results from the outputs: sizes, filter results cut to
        their counts, dimensions of size 1 the view adds."""
        C = None if counts is None else [
            n.value if n is not None else None for n in counts]
        res = []
        for is_size, x, dims, full in self.post:
            if is_size:
                res.append(x(S, values, C))
                continue
            o = outs[x]
            if o is WRITTEN:
                res.append(o)
                continue
            logical = tuple([o.shape[k] if g is None else g(S, values, C)
                             for k, g in enumerate(dims)])
            if (C is not None and C[x] is not None) or \
                    tuple(o.shape) != logical:
                total = 1
                for n in logical:
                    total *= n
                o = o.reshape(-1)[:total].reshape(logical)
            if full is not None:
                o = o.reshape(tuple(logical[i] if i is not None else 1
                                    for i in full))
            res.append(o)
        if self.structure == "single":
            return res[0]
        if self.structure == "none":
            return None
        return tuple(res)

    # ---- the specialised call ----------------------------------------------

    def _generate(self, entry):
        """This launcher's cache-hit call as Python code specialised to its
        signature (no loops over the plan, no mode tests, the size
        expressions inlined), for TORCH, CUPY and STANDIN arguments; None
        for DEV ones (the generic __call__ serves those)."""
        if self.omode is None or any(m is DEV for _, m, _ in self.plan):
            return None
        env = {"launcher": self, "pipeline": self.pipeline, "G": G,
               "stats": G.stats, "c_int64": ctypes.c_int64,
               "byref": ctypes.byref, "current": self._current,
               "device": self.device, "empty": getattr(self, "_empty", None),
               "empty_like": getattr(self, "_empty_like", None),
               "_trunc_div": _trunc_div, "SIZE_FUNCS": SIZE_FUNCS}
        body, cargs, shapes = [], [], {}
        for k, m, x in self.plan:
            if m is SCALAR:
                env["conv%d" % k] = x
                body.append("a%d = conv%d(values[%d])" % (k, k, k))
                cargs.append("a%d" % k)
                continue
            body.append("v%d = values[%d]" % (k, k))
            if m is TORCH:
                body += ["s%d = v%d.shape" % (k, k),
                         "p%d = v%d.data_ptr()" % (k, k)]
            elif m is CUPY:
                body += ["s%d = v%d.shape" % (k, k),
                         "p%d = v%d.data.ptr" % (k, k)]
            else:
                body += ["b%d = v%d.a" % (k, k), "s%d = b%d.shape" % (k, k),
                         "p%d = b%d.ctypes.data" % (k, k)]
            shapes[k] = "s%d" % k
            cargs.append("p%d" % k)
            cargs += ["s%d[%d]" % (k, d) for d in range(x)]
        # The pipeline's checks as conditions; where one holds, the
        # generic check raises its error.
        conds = []
        p = self.pipeline
        for a, b in p.checks:
            ca, cb = _check_source(a, shapes), _check_source(b, shapes)
            if ca is not None and cb is not None and ca != cb:
                conds.append("%s != %s" % (ca, cb))
        for i, dt in p.ranges:
            info = np.iinfo(dt)
            conds.append("not %d <= int(values[%d]) <= %d" % (
                info.min, i, info.max))
        for sym, msg in p.nonempty:
            c = _check_source(sym, shapes)
            if c is not None:
                conds.append("%s == 0" % c)
        for sym, least, msg in p.at_least:
            c, k = _check_source(sym, shapes), _check_source(least, shapes)
            if c is not None and k is not None:
                conds.append("%s < %s" % (c, k))
        if conds:
            body.append("if %s:" % " or ".join(conds))
            body.append("    pipeline.check(values)")
        body.append("stats['memory_hits'] += 1")
        alloc = []
        outs = []
        for i, (dt, exprs) in enumerate(self.outs):
            env["dt%d" % i] = dt
            dims = [_size_source(e, shapes) for e in self.size_exprs[i]]
            shape = "(%s)" % ("".join(d + ", " for d in dims))
            like = [k for k, m, x in self.plan if m is TORCH and dims == [
                "s%d[%d]" % (k, d) for d in range(x)]]
            if self.omode is TORCH and like:
                # An output of an input's shape: empty_like skips the
                # shape and device arguments' parsing (about 2 us of
                # torch.empty's 5 on a small tensor); the dtype is that
                # input's only when the trace says so, so it is tested.
                alloc += ["o%d = empty_like(v%d) if v%d.dtype is dt%d else "
                          "empty(%s, dtype=dt%d, device=tdevice)"
                          % (i, like[0], like[0], i, shape, i),
                          "q%d = o%d.data_ptr()" % (i, i)]
            elif self.omode is TORCH:
                alloc += ["o%d = empty(%s, dtype=dt%d, device=tdevice)"
                          % (i, shape, i), "q%d = o%d.data_ptr()" % (i, i)]
            elif self.omode is CUPY:
                alloc += ["o%d = empty(%s, dt%d)" % (i, shape, i),
                          "q%d = o%d.data.ptr" % (i, i)]
            else:
                alloc += ["o%d = values[%d].__fuse_empty__(%s, dt%d)"
                          % (i, self.owner, shape, i),
                          "q%d = o%d.a.ctypes.data" % (i, i)]
            outs.append("o%d" % i)
            cargs.append("q%d" % i)
        if self.omode is TORCH:
            env["tdevice"] = self._tdevice
            body += alloc
        elif self.omode is CUPY:
            env["cdevice"] = self._cdevice
            body.append("with cdevice:")
            body += ["    " + a for a in alloc] or ["    pass"]
        else:
            body += alloc
        counts = ["None"] * len(self.outs)
        for i in self.filters:
            body.append("n%d = c_int64(0)" % i)
            cargs.append("byref(n%d)" % i)
            counts[i] = "n%d" % i
        body.append("if stream is None:")
        body.append("    stream = current(device)")
        cargs.append("stream")
        body.append("if not G.compile_only():")
        if self.standin:
            body.append("    raise G.GPUUnavailableError(STANDIN_ERROR)")
            env["STANDIN_ERROR"] = _STANDIN_ERROR
        else:
            body.append("    st = (launcher._fn or launcher._load())(%s)"
                        % ", ".join(cargs))
            body.append("    if st:")
            body.append("        G.check(st)")
        if self.simple:
            if self.structure == "single":
                body.append("return o0")
            elif self.structure == "none":
                body.append("return None")
            else:
                body.append("return (%s)" % "".join(o + ", " for o in outs))
        else:
            body.append("return launcher._post([%s], [%s], values, %s)" % (
                ", ".join(outs), ", ".join(shapes.get(k, "None")
                                           for k in range(self.nargs)),
                "[%s]" % ", ".join(counts) if self.filters else "None"))
        src = "def call(values, stream=None):\n" + "".join(
            "    " + line + "\n" for line in body)
        exec(compile(src, "<fuse launcher %s>" % self.compiled.key[:12],
                     "exec"), env)
        self.source = src
        return env["call"]


_STANDIN_ERROR = ("fuse GPU: fuse.gpu.StandIn arrays are host memory: they "
                  "are for compile-only mode (FUSE_GPU_COMPILE_ONLY=1)")


def _check_source(sym, shapes):
    """Python source of Pipeline._size(sym) in a generated call, or None
    where that is None (a size known only while running)."""
    if sym.kind == "input":
        i, d = sym.src
        return "%s[%d]" % (shapes[i], d) if i in shapes else None
    if sym.kind == "const":
        return repr(sym.src)
    if sym.kind == "value":
        return "int(values[%d])" % sym.src
    if sym.kind == "scalar" and sym.src.ssa.startswith("%arg"):
        return "int(values[%d])" % int(sym.src.ssa[len("%arg"):])
    return None


def _size_source(expr, shapes):
    """Python source of a manifest size expression (size_function's
    grammar), with tensor argument K's shape in the variable shapes[K] and
    scalar argument K in values[K]."""
    def src(n):
        if isinstance(n, ast.Expression):
            return src(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and \
                not isinstance(n.value, bool):
            return repr(n.value)
        if isinstance(n, ast.Name):
            name = n.id
            if name.startswith("in") and "_d" in name:
                k, d = name[2:].split("_d", 1)
                if k.isdigit() and d.isdigit() and int(k) in shapes:
                    return "%s[%d]" % (shapes[int(k)], int(d))
            elif name.startswith("in") and name[2:].isdigit():
                return "int(values[%d])" % int(name[2:])
            raise ValueError("unknown name %r" % name)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return "(-%s)" % src(n.operand)
        if isinstance(n, ast.BinOp) and type(n.op) in (ast.Add, ast.Sub,
                                                      ast.Mult):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}[type(n.op)]
            return "(%s %s %s)" % (src(n.left), op, src(n.right))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id in SIZE_FUNCS and len(n.args) == 2 and \
                not n.keywords:
            return "SIZE_FUNCS[%r](%s, %s)" % (n.func.id, src(n.args[0]),
                                               src(n.args[1]))
        raise ValueError("unsupported size expression %r" % expr)
    return src(ast.parse(expr, mode="eval"))


# Last: gpu imports this module, and the functions above use gpu's.
from . import gpu as G  # noqa: E402
