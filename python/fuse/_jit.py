"""@fuse.jit: trace a Python function of symbolic arrays into fuse IR,
compile it once per argument signature (dtype and rank of each argument;
sizes stay dynamic) and run it on NumPy arrays with the CPU backend."""

import functools
import inspect
import os
import numbers
import threading

import numpy as np

from . import _bincount, _cpu, _launch, gpu
from . import _types as T
from ._ir import Sym, TensorVal, TraceContext, fastmath_flags
from ._sym import SymArray, _node, leaf, materialize_many, wrap


def as_input_array(value, name):
    """(array, weak) for an argument: a C-contiguous, aligned, native-order
    NumPy array (copied when the given one is not), weak for Python
    scalars."""
    if isinstance(value, np.ndarray):
        arr = value
        if not arr.dtype.isnative:
            arr = arr.astype(arr.dtype.newbyteorder("="))
        T.check_supported(arr.dtype, "argument %r" % name)
        arr = np.require(arr, requirements=["C_CONTIGUOUS", "ALIGNED"])
        return arr, False
    if isinstance(value, np.generic):
        T.check_supported(value.dtype, "argument %r" % name)
        return np.asarray(value), False
    if isinstance(value, (bool, np.bool_)):
        return np.asarray(value, np.bool_), True
    if isinstance(value, numbers.Integral):
        try:
            return np.asarray(value, np.int64), True
        except OverflowError:
            raise ValueError("argument %r: %d does not fit in int64"
                             % (name, value))
    if isinstance(value, numbers.Real):
        return np.asarray(value, np.float64), True
    raise TypeError("argument %r: expected a NumPy array or a number, got %s"
                    % (name, type(value).__name__))


def _physical_memory():
    """Bytes of memory of this machine, or None where unknown."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


class Pipeline:
    """One traced and compiled specialisation of a function."""

    def __init__(self, ir, names, result_specs, structure, checks, nonempty,
                 ranges=(), at_least=()):
        self.ir = ir
        self.ranges = list(ranges)
        self.names = names
        self.result_specs = result_specs   # (dtype, rank, view, kind)
        self.structure = structure         # 'single' | 'tuple' | 'none'
        self.checks = checks
        self.nonempty = nonempty
        self.at_least = list(at_least)
        self._lib = None
        self._launcher = None   # GPU: the Launcher of generic arguments
        # The minlength of each np.bincount of the function (None: none):
        # its calls then run as _bincount.Stages, made once (self.stages).
        self.bincounts = None
        self.stages = None

    def library(self):
        if self._lib is None:
            self._lib = _cpu.load(self.ir)
        return self._lib

    def _size(self, sym, arrays):
        if sym.kind == "input":
            i, d = sym.src
            return arrays[i].shape[d]
        if sym.kind == "const":
            return sym.src
        if sym.kind == "value":
            return int(arrays[sym.src])
        if sym.kind == "scalar" and sym.src.ssa.startswith("%arg"):
            # A 0-d integer argument used as a size (fuse.iota(n)).
            return int(arrays[int(sym.src.ssa[len("%arg"):])])
        return None

    def check(self, arrays):
        for a, b in self.checks:
            sa, sb = self._size(a, arrays), self._size(b, arrays)
            if sa is not None and sb is not None and sa != sb:
                raise ValueError(
                    "size mismatch: %s is %d but %s is %d (they are combined "
                    "elementwise)" % (a.describe(self.names), sa,
                                      b.describe(self.names), sb))
        for i, dt in self.ranges:
            v = int(arrays[i])
            info = np.iinfo(dt)
            if not info.min <= v <= info.max:
                raise OverflowError(
                    "argument %r: Python integer %d out of bounds for %s "
                    "(it is combined with %s values)" % (self.names[i], v, dt,
                                                         dt))
        for sym, msg in self.nonempty:
            if self._size(sym, arrays) == 0:
                raise ValueError("%s (%s is 0)" % (msg,
                                                   sym.describe(self.names)))
        for sym, least, msg in self.at_least:
            s, k = self._size(sym, arrays), self._size(least, arrays)
            if s is not None and k is not None and s < k:
                raise ValueError(msg % (k, s))

    def check_result_bytes(self, arrays):
        """The compiled code allocates its results with an unchecked
        malloc: sizes whose byte count passes 64 bits (it would wrap and
        allocate too little) or this machine's memory are refused here with
        a MemoryError naming the size, instead of a crash of the process."""
        limit = _physical_memory()
        for i, (dt, rank, view, kind) in enumerate(self.result_specs):
            n = 1
            for v in view:
                size = self._size(v.find(), arrays) if isinstance(v, Sym) \
                    else 1
                if size is None:
                    break  # known only while running (a filter's count)
                if size < 0:
                    sym = v.find()
                    what = ("argument %r" % self.names[int(
                        sym.src.ssa[len("%arg"):])] if sym.kind == "scalar"
                        else sym.describe(self.names))
                    raise ValueError(
                        "result %d: %s is %d, but it sizes the result and "
                        "cannot be negative" % (i, what, size))
                n *= size
            else:
                nbytes = n * np.dtype(dt).itemsize
                if nbytes >= 2 ** 63 or (limit and nbytes > limit):
                    raise MemoryError(
                        "result %d: %d elements of %s take %d bytes, more "
                        "than %s" % (i, n, np.dtype(dt), nbytes,
                                     "2^63 - 1" if nbytes >= 2 ** 63 else
                                     "this machine's memory (%d bytes)"
                                     % limit))

    def run(self, arrays):
        self.check(arrays)
        self.check_result_bytes(arrays)
        lib = self.library()
        raw = _cpu.call(lib, "main", arrays,
                        [(dt, rank) for dt, rank, _, _ in self.result_specs])
        outs = []
        for arr, (dt, rank, view, kind) in zip(raw, self.result_specs):
            if len(view) != rank:
                it = iter(arr.shape)
                arr = arr.reshape(tuple(1 if not isinstance(v, Sym) else next(it)
                                        for v in view))
            if kind == "int":
                outs.append(int(arr[()]))
            elif arr.ndim == 0:
                outs.append(arr[()])
            else:
                outs.append(arr)
        if self.structure == "single":
            return outs[0]
        if self.structure == "none":
            return None
        return tuple(outs)


def on_device(a):
    """Whether a traced argument is a device array (not a host number,
    which GPU tracing gets as a 0-d NumPy array)."""
    return not isinstance(a, np.ndarray)


def trace(fn, names, arrays, weaks, gpu=False, fastmath=""):
    """Traces fn into a Pipeline. `arrays` need only .dtype and .ndim.

    gpu=True traces for fuse-compile (the GPU target): 0-d numbers are
    scalars passed by value (0-d device arrays stay in device memory:
    a fuse.prefix count), and results that are sizes (x.shape[i], a
    filter's count) are not IR results but computed by the caller from the
    input shapes or the entry's filter counts (Pipeline.gpu_results).
    fastmath: the `fastmath<...>` flags (fastmath_flags) put on the float
    arithmetic and math functions of the traced code ("" for none)."""
    ctx = TraceContext(names, gpu=gpu, fastmath=fastmath)
    with ctx:
        params = []
        sig = []
        for i, (a, w) in enumerate(zip(arrays, weaks)):
            tv = TensorVal("%%arg%d" % i, a.dtype,
                           [Sym("input", (i, d)) for d in range(a.ndim)],
                           scalar=gpu and a.ndim == 0 and not on_device(a))
            ctx.args.append(tv)
            if tv.scalar and T.is_half(a.dtype):
                # C passes no half by value: the entry takes the scalar as
                # an f32 (exact for every f16 and bf16) and rounds it back.
                sig.append("%%w%d: f32" % i)
                ctx.emit("%s = arith.truncf %%w%d : f32 to %s"
                         % (tv.ssa, i, tv.type))
            else:
                sig.append("%s: %s" % (tv.ssa, tv.type))
            x = leaf(tv)
            x.weak = w
            params.append(x)
        out = fn(*params)
        if out is None:
            structure, outs = "none", []
        elif isinstance(out, (tuple, list)):
            structure, outs = "tuple", list(out)
        else:
            structure, outs = "single", [out]
        nodes = []
        for i, o in enumerate(outs):
            if not isinstance(o, (SymArray, numbers.Number, np.generic)):
                raise TypeError("fuse.jit: result %d is a %s; a fuse function "
                                "returns symbolic arrays, numbers or a tuple "
                                "of them" % (i, type(o).__name__))
            nodes.append(wrap(o))
        if gpu:
            # GPU entries compute every tensor result in a kernel: an
            # argument returned unchanged becomes a copy (a map yielding
            # its element), fused here with the other results of its shape
            # (convert-fuse-to-gpu would copy it in a kernel of its own,
            # reading it again; and a function that only returns arguments
            # would have no fuse ops, which fuse-compile refuses).
            args = [tv for tv in ctx.args if not tv.scalar]
            nodes = [_node("cast", n.dtype, n.dims, [n])
                     if n.op == "leaf" and any(n.tv is a for a in args)
                     else n for n in nodes]
        # Materialize outputs of one shape together (one multi-result map).
        groups = {}
        for n in nodes:
            groups.setdefault(n.dims, []).append(n)
        for g in groups.values():
            materialize_many(g)
        leaves = [n if n.op == "leaf" else n._mat for n in nodes]
        specs = []
        for n, lf in zip(nodes, leaves):
            specs.append((lf.dtype, len(lf.tv.syms), lf.dims,
                          "int" if n.op == "size" else "array"))
        gpu_results = None
        if gpu:
            gpu_results, kept = [], []
            for n, lf in zip(nodes, leaves):
                if n.op == "size":
                    gpu_results.append(("size", n.sym))
                elif lf.tv.scalar:
                    raise NotImplementedError(
                        "fuse GPU: a result computed from scalar arguments "
                        "and constants only is not supported (it would be "
                        "computed on the host)")
                else:
                    gpu_results.append(("ir", len(kept)))
                    kept.append(lf)
            leaves = kept
        sig = ", ".join(sig)
        rtypes = ", ".join(lf.tv.type for lf in leaves)
        lines = ["func.func @main(%s) -> (%s) attributes "
                 "{llvm.emit_c_interface} {" % (sig, rtypes)]
        lines += ctx.lines
        if leaves:
            lines.append("  return %s : %s" % (
                ", ".join(lf.tv.ssa for lf in leaves), rtypes))
        else:
            lines.append("  return")
        lines.append("}")
        ir = "\n".join(lines) + "\n"
    p = Pipeline(ir, names, specs, structure, ctx.checks, ctx.nonempty,
                 ctx.ranges, ctx.at_least)
    p.gpu_results = gpu_results
    p.bincounts = _bincount.discovered(ctx)
    return p


class JitFunction:
    """A function traced and compiled by fuse; call it with NumPy arrays
    (CPU) or CUDA arrays (GPU: PyTorch, CuPy, ...). On CUDA arrays the
    call takes a keyword `stream=` (a torch.cuda.Stream, a
    cupy.cuda.Stream, or an integer CUstream handle; default: the current
    stream of the arrays' library), unless the function has a parameter of
    that name."""

    def __init__(self, fn, fastmath=None):
        self.fn = fn
        # Fast-math flags for the float arithmetic and math functions of
        # the traced code ("" for none; jit's fastmath argument).
        self.fastmath = fastmath_flags(fastmath)
        self.signature = inspect.signature(fn)
        params = list(self.signature.parameters.values())
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError("fuse.jit: %s: *args/**kwargs are not "
                                "supported" % fn.__name__)
        # A call with exactly one positional value per parameter binds
        # without inspect (the names in order); other calls bind through
        # the signature.
        self._names = [p.name for p in params]
        self._npositional = len(params) if all(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            for p in params) else -1
        # stream= is the launch stream unless the function has a
        # parameter of that name.
        self._stream_kw = "stream" not in self.signature.parameters
        self._specs = {}
        # GPU launchers per argument signature (_launch.fast_key): a cache
        # hit is this dict look-up and the Launcher's call.
        self._launchers = {}
        gpu._jit_functions.add(self)
        # Re-entrant: the function may call itself (on concrete arrays)
        # while being traced for another signature; a call with the very
        # signature being traced is refused (see _pipeline).
        self._lock = threading.RLock()
        self._tracing = threading.local()
        functools.update_wrapper(self, fn)

    def _bind(self, args, kwargs):
        """(names, values) of a call's arguments, defaults applied."""
        if not kwargs and len(args) == self._npositional:
            return self._names, args
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s: %s" % (self.fn.__name__, e))
        bound.apply_defaults()
        return list(bound.arguments.keys()), list(bound.arguments.values())

    def _prepare(self, args, kwargs):
        names, values = self._bind(args, kwargs)
        arrays, weaks = [], []
        for name, v in zip(names, values):
            a, w = as_input_array(v, name)
            arrays.append(a)
            weaks.append(w)
        return list(names), arrays, weaks

    def specialize(self, *args, **kwargs):
        """The Pipeline for these arguments' signature (traced if new)."""
        names, arrays, weaks = self._prepare(args, kwargs)
        return self._pipeline(names, arrays, weaks), arrays

    def _pipeline(self, names, arrays, weaks, gpu=False):
        key = tuple((a.dtype.str, a.ndim, w) for a, w in zip(arrays, weaks))
        if gpu:  # a 0-d device array is a pointer, a number a value
            key += (("gpu",) + tuple(a.ndim == 0 and on_device(a)
                                     for a in arrays),)
        with self._lock:
            p = self._specs.get(key)
            if p is None:
                active = getattr(self._tracing, "keys", None)
                if active is None:
                    active = self._tracing.keys = set()
                if key in active:
                    raise RecursionError(
                        "fuse.jit: %s calls itself with the argument "
                        "signature it is being traced for; that call would "
                        "need the pipeline being built" % self.fn.__name__)
                active.add(key)
                try:
                    p = trace(self.fn, names, arrays, weaks, gpu=gpu,
                              fastmath=self.fastmath)
                finally:
                    active.discard(key)
                self._specs[key] = p
        return p

    def _staged(self, p, names):
        """The Stages that run p's function, whose np.bincount results
        are sized by the data (made once per pipeline)."""
        if p.stages is None:
            p.stages = _bincount.Stages(self, list(names), p.bincounts)
        return p.stages

    def lower(self, *args, **kwargs):
        """The fuse IR (text) this function compiles to for these args."""
        return self.specialize(*args, **kwargs)[0].ir

    def compile(self, *args, **kwargs):
        """Compiles (or loads from the cache) without running."""
        p, _ = self.specialize(*args, **kwargs)
        p.library()
        return p

    def specialize_gpu(self, *args, **kwargs):
        """The GPU-traced Pipeline for these GPU arguments, and the
        arguments as fuse.gpu.DeviceArray / 0-d NumPy scalars."""
        names, values = self._bind(args, kwargs)
        names = list(names)
        arrays, weaks = gpu.gpu_arguments(names, values)
        return self._pipeline(names, arrays, weaks, gpu=True), names, arrays

    def run_gpu(self, *args, stream=None, **kwargs):
        """Runs on CUDA arrays (CuPy, PyTorch, __cuda_array_interface__ or
        DLPack): results are arrays of the same library, on the device.
        stream= as for a call."""
        if not self._stream_kw and stream is not None:
            kwargs["stream"] = stream       # the function's own parameter
            stream = None
        names, values = self._bind(args, kwargs)
        return self._gpu_call(names, values, stream)

    def _gpu_call(self, names, values, stream, key=None):
        if key is None:
            key = _launch.fast_key(names, values)
        if key is None:
            # Other array types (DLPack, __cuda_array_interface__ objects),
            # or arguments the checks below reject.
            names = list(names)
            arrays, weaks = gpu.gpu_arguments(names, values)
            p = self._pipeline(names, arrays, weaks, gpu=True)
            if p.bincounts:
                return self._staged(p, names).run(values, stream)
            return gpu.run_pipeline(p, names, arrays, stream=stream)
        launcher = self._launchers.get(key)
        if launcher is not None:
            return launcher.run(values, stream)
        # First call of this signature: the full checks, the trace and the
        # cache look-up, then a Launcher for every later call.
        names = list(names)
        arrays, weaks = gpu.gpu_arguments(names, values)
        p = self._pipeline(names, arrays, weaks, gpu=True)
        if p.bincounts:
            # The Stages stand for the launcher: a hit calls them.
            launcher = self._launchers[key] = self._staged(p, names)
            return launcher.run(values, stream)
        p.check(values)
        c = gpu.load(p.ir)
        modes = _launch.modes_of(values)
        owner = next(k for k, m in enumerate(modes)
                     if m is not _launch.SCALAR)
        launcher = _launch.Launcher(p, c, names, modes, owner, key[-1])
        self._launchers[key] = launcher
        return launcher.run(values, stream, hit=False, check=False)

    def __call__(self, *args, **kwargs):
        stream = None
        if kwargs and self._stream_kw and "stream" in kwargs:
            stream = kwargs.pop("stream")
        if kwargs or len(args) != self._npositional:
            names, values = self._bind(args, kwargs)
        else:
            names, values = self._names, args
        # The cache hit: a key from the arguments' types and attributes,
        # one dict look-up, the launch.
        key = _launch.fast_key(names, values)
        if key is not None:
            launcher = self._launchers.get(key)
            if launcher is not None:
                if stream is None:
                    return launcher.fast(values)
                return launcher.run(values, stream)
            return self._gpu_call(names, values, stream, key)
        if any(gpu.is_device_array(v) for v in values):
            return self._gpu_call(names, values, stream)
        if stream is not None:
            _launch.stream_handle(stream)          # TypeError for bad types
            raise ValueError("%s: stream= is for calls on CUDA arrays; "
                             "these arguments are host (NumPy) values, "
                             "computed on the CPU" % self.fn.__name__)
        arrays, weaks = [], []
        for name, v in zip(names, values):
            a, w = as_input_array(v, name)
            arrays.append(a)
            weaks.append(w)
        p = self._pipeline(list(names), arrays, weaks)
        if p.bincounts:
            return self._staged(p, names)(values)
        return p.run(arrays)


def jit(fn=None, *, fastmath=None):
    """Decorator: `@fuse.jit def f(x, y): return (x * y).sum()`.

    fastmath: fast-math flags for the function's float arithmetic (+ - * /,
    unary -) and math functions (exp, log, sqrt, ...), as MLIR's arith
    flags: "arcp" (a division may use a reciprocal: a division by a
    row-wide value becomes one reciprocal a row on the GPU), "afn"
    (approximate functions: exp becomes ex2.approx on the GPU), "contract"
    (fused multiply-add), "reassoc", "nnan", "ninf", "nsz", or "fast" (all);
    a string "arcp,afn" or a list. Default: none (IEEE arithmetic,
    accurate functions). `@fuse.jit(fastmath="arcp")`."""
    flags = fastmath_flags(fastmath)  # checked where the decorator is written
    if fn is None:
        return lambda f: JitFunction(f, fastmath=flags)
    return JitFunction(fn, fastmath=flags)
