"""An explicit, cuda.compute-style API: iterators and device-wide
algorithms with built-in (OpKind) or Python-lambda operators.

The first call of a structure (the algorithm, its operators and iterators,
d_out's dtype, the inputs' dtypes and ranks) traces a small fuse pipeline
and finds its compiled code in the in-memory or disk cache by content;
later calls of that structure reuse the trace (and on the GPU its launcher).
Values such as CountingIterator's start, ConstantIterator's value, h_init
and num_items are runtime inputs of the compiled code (changing them does
not recompile); numbers a lambda reads from its closure, its defaults or
its module's globals are compiled in as constants and are part of the
structure (a new value traces again). A lambda reading anything else (an
array, a list) traces on every call.

    x = np.random.rand(1000).astype(np.float32)
    out = np.empty(1, np.float32)
    fuse.compute.reduce_into(x, out, fuse.OpKind.PLUS, len(x), np.float32(0))

On CUDA arrays every algorithm takes `stream=`: a torch.cuda.Stream, a
cupy.cuda.Stream, an object with __cuda_stream__ or an integer CUstream
handle (default: the current stream of d_out's library). The stream is
made the library's current stream for the call: the kernels, the outputs
fuse allocates and the copies into d_out are all ordered on it.

On CUDA arrays the entry writes straight into d_out (its pointer is the
entry's output) where d_out has the result's dtype, enough elements and
overlaps no input; otherwise (select into another dtype or a d_out
smaller than num_items, a d_out over an input) it writes into an output
fuse allocates, which is copied into d_out (docs/python.md, "Where
fuse.compute writes").
"""

import contextlib
import enum
import functools
import inspect
import math
import numbers

import numpy as np

from . import _sym as S
from . import _types as T
from ._ir import Sym, current
from ._compute_temp import (make_exclusive_scan,  # noqa: F401
                            make_histogram_even, make_inclusive_scan,
                            make_lower_bound, make_merge_sort,
                            make_radix_sort, make_reduce_into,
                            make_segmented_reduce, make_select,
                            make_three_way_partition, make_unique_by_key,
                            make_upper_bound)
from ._fnkey import fn_key
from ._jit import as_input_array, trace


class OpKind(enum.Enum):
    PLUS = "plus"
    MINUS = "minus"
    MULTIPLIES = "multiplies"
    DIVIDES = "divides"
    MAXIMUM = "maximum"
    MINIMUM = "minimum"
    BIT_AND = "bit_and"
    BIT_OR = "bit_or"
    BIT_XOR = "bit_xor"
    LOGICAL_AND = "logical_and"
    LOGICAL_OR = "logical_or"
    EQUAL_TO = "equal_to"
    NOT_EQUAL_TO = "not_equal_to"
    LESS = "less"
    LESS_EQUAL = "less_equal"
    GREATER = "greater"
    GREATER_EQUAL = "greater_equal"
    NEGATE = "negate"
    IDENTITY = "identity"
    LOGICAL_NOT = "logical_not"
    BIT_NOT = "bit_not"


_BINARY = {
    OpKind.PLUS: lambda a, b: a + b,
    OpKind.MINUS: lambda a, b: a - b,
    OpKind.MULTIPLIES: lambda a, b: a * b,
    OpKind.DIVIDES: lambda a, b: a / b,
    OpKind.MAXIMUM: S.maximum,
    OpKind.MINIMUM: S.minimum,
    OpKind.BIT_AND: lambda a, b: a & b,
    OpKind.BIT_OR: lambda a, b: a | b,
    OpKind.BIT_XOR: lambda a, b: a ^ b,
    OpKind.LOGICAL_AND: lambda a, b: S.cast(a, np.bool_) & S.cast(b,
                                                                   np.bool_),
    OpKind.LOGICAL_OR: lambda a, b: S.cast(a, np.bool_) | S.cast(b,
                                                                  np.bool_),
    OpKind.EQUAL_TO: lambda a, b: a == b,
    OpKind.NOT_EQUAL_TO: lambda a, b: a != b,
    OpKind.LESS: lambda a, b: a < b,
    OpKind.LESS_EQUAL: lambda a, b: a <= b,
    OpKind.GREATER: lambda a, b: a > b,
    OpKind.GREATER_EQUAL: lambda a, b: a >= b,
}
_UNARY = {
    OpKind.NEGATE: lambda a: -a,
    OpKind.IDENTITY: lambda a: a,
    OpKind.LOGICAL_NOT: lambda a: ~S.cast(a, np.bool_),
    OpKind.BIT_NOT: lambda a: ~a,
}
# OpKinds that fuse.reduce / fuse.scan know as built-in combiners.
_BUILTIN_KIND = {OpKind.PLUS: "add", OpKind.MULTIPLIES: "mul",
                 OpKind.MAXIMUM: "max", OpKind.MINIMUM: "min"}


def _binary_fn(op, what):
    if isinstance(op, OpKind):
        if op not in _BINARY:
            raise ValueError("%s: %s is not a binary operator" % (what, op))
        return _BINARY[op]
    if callable(op):
        return op
    raise TypeError("%s: op must be a fuse.OpKind or a function, got %r"
                    % (what, op))


def _unary_fn(op, what):
    if isinstance(op, OpKind):
        if op not in _UNARY:
            raise ValueError("%s: %s is not a unary operator" % (what, op))
        return _UNARY[op]
    if callable(op):
        return op
    raise TypeError("%s: op must be a fuse.OpKind or a function, got %r"
                    % (what, op))


# ---- iterators -----------------------------------------------------------------

class _Plan:
    """Runtime inputs gathered from arguments before tracing, and what else
    the trace depends on (`fixed`: the algorithm, its operators, the
    iterators' functions, d_out's dtype): with the inputs' types, the key
    of the trace cache (_run)."""

    def __init__(self):
        self.names, self.values = [], []
        self.fixed = []
        self.cachable = True

    def add(self, name, value):
        self.names.append(name)
        self.values.append(value)
        return len(self.values) - 1

    def depends(self, *parts):
        """The trace depends on `parts` (operators and functions go through
        fn_key; a function it cannot key makes the call uncached)."""
        key = []
        for x in parts:
            if callable(x) or isinstance(x, OpKind):
                x = fn_key(x)
                if x is None:
                    self.cachable = False
            key.append(x)
        self.fixed.append(tuple(key))

    def key(self, arrays, gpu):
        if not self.cachable:
            return None
        return (tuple(self.names), tuple(self.fixed), gpu,
                tuple((a.dtype.str, a.ndim, isinstance(a, np.ndarray))
                      for a in arrays))


# The trace cache: calls of the same structure (algorithm, operators,
# iterators, types) reuse one Pipeline, and on the GPU its Launcher.
_TRACES = {}
_TRACES_MAX = 512


def _scalar_value(v, name, dtype=None):
    if isinstance(v, np.ndarray):
        if v.size != 1:
            raise ValueError("%s: expected a scalar or a 1-element array, got "
                             "shape %s" % (name, v.shape))
        v = v.reshape(())[()]
    if dtype is not None and not isinstance(v, np.generic):
        if not isinstance(v, (numbers.Number, np.bool_)):
            raise TypeError("%s: expected a number, got %s"
                            % (name, type(v).__name__))
        dtype = np.dtype(dtype)
        if isinstance(v, numbers.Integral) and not isinstance(v, bool) \
                and dtype.kind in "iu":
            # As NumPy 2: a Python int outside the dtype raises, where a
            # cast would wrap (-1 as a uint32 h_init is 4294967295).
            info = np.iinfo(dtype)
            if not info.min <= v <= info.max:
                raise OverflowError("%s: Python integer %d out of bounds "
                                    "for %s" % (name, v, dtype))
        return np.asarray(v).astype(dtype)[()]
    if isinstance(v, np.generic):
        T.check_supported(v.dtype, name)
        return v
    if isinstance(v, (bool, numbers.Integral)):
        return np.int64(v) if not isinstance(v, bool) else np.bool_(v)
    if isinstance(v, numbers.Real):
        return np.float64(v)
    raise TypeError("%s: expected a number, got %s" % (name,
                                                       type(v).__name__))


class _Iterator:
    def _plan(self, plan, n, name):
        raise NotImplementedError


class CountingIterator(_Iterator):
    """start, start + 1, ... (dtype of `start`; a Python int is int64)."""

    def __init__(self, start):
        self.start = _scalar_value(start, "CountingIterator start")
        if T.kind(self.start.dtype) == "b":
            raise TypeError("CountingIterator: start must be a number, got a "
                            "bool")

    def _plan(self, plan, n, name):
        i = plan.add(name + ".start", self.start)
        dt = self.start.dtype

        def build(params, nsym):
            return S.iota(S.size_array(nsym), dt) + params[i]
        return build


class ConstantIterator(_Iterator):
    """value, value, ... (a runtime input: changing it does not recompile)."""

    def __init__(self, value):
        self.value = _scalar_value(value, "ConstantIterator value")

    def _plan(self, plan, n, name):
        i = plan.add(name + ".value", self.value)

        def build(params, nsym):
            return S.broadcast_1d(params[i], nsym)
        return build


class TransformIterator(_Iterator):
    """op(it[i]); op is a fuse.OpKind (unary) or a Python function."""

    def __init__(self, it, op):
        self.it = it
        self.op = _unary_fn(op, "TransformIterator")

    def _plan(self, plan, n, name):
        inner = _plan_input(self.it, plan, n, name)
        op = self.op
        plan.depends("transform", name, op)

        def build(params, nsym):
            return S.wrap(op(inner(params, nsym)))
        return build


class ZipIterator(_Iterator):
    """(a[i], b[i], ...): an operator receives a tuple; use t[0], t[1]."""

    def __init__(self, *its):
        if not its:
            raise ValueError("ZipIterator: needs at least one iterator")
        self.its = its

    def _plan(self, plan, n, name):
        parts = [_plan_input(it, plan, n, "%s[%d]" % (name, k))
                 for k, it in enumerate(self.its)]

        def build(params, nsym):
            return tuple(p(params, nsym) for p in parts)
        return build


class PermutationIterator(_Iterator):
    """values[indices[i]] (indices: an integer array or iterator; indices
    out of range read 0)."""

    def __init__(self, values, indices):
        self.values, self.indices = values, indices

    def _plan(self, plan, n, name):
        vals = _check_array(self.values, name + ".values")
        vi = plan.add(name + ".values", vals)
        idx = _plan_input(self.indices, plan, n, name + ".indices")

        def build(params, nsym):
            return S.gather(params[vi], idx(params, nsym))
        return build


class RowIterator(_Iterator):
    """values[i // row_length]: a per-row value repeated over each row of a
    row-major matrix (row_length is a runtime input). fuse-specific."""

    def __init__(self, values, row_length):
        self.values = values
        if not isinstance(row_length, (numbers.Integral, np.integer)) or \
                row_length < 1:
            raise ValueError("RowIterator: row_length must be an int >= 1, "
                             "got %r" % (row_length,))
        self.row_length = np.int64(row_length)

    def _plan(self, plan, n, name):
        vals = _check_array(self.values, name + ".values")
        vi = plan.add(name + ".values", vals)
        ri = plan.add(name + ".row_length", self.row_length)

        def build(params, nsym):
            i = S.iota(S.size_array(nsym), np.int64) // params[ri]
            return S.gather(params[vi], i)
        return build


def _is_dev(a):
    from . import gpu
    return gpu.is_device_array(a)


def _dtype(a):
    """The NumPy dtype of a NumPy or device array."""
    if isinstance(a, np.ndarray):
        return a.dtype
    from . import gpu
    return gpu.device_array(a, "array").dtype


def _size(a):
    if isinstance(a, np.ndarray):
        return a.size
    from . import gpu
    return math.prod(gpu.device_array(a, "array").shape)


def _check_array(a, name):
    if _is_dev(a):
        from . import gpu
        d = gpu.device_array(a, name)  # CUDA, supported dtype, contiguous
        return a if len(d.shape) == 1 else a.reshape(-1)
    if not isinstance(a, np.ndarray):
        raise TypeError("%s: expected a NumPy array or a fuse iterator, got "
                        "%s" % (name, type(a).__name__))
    T.check_supported(a.dtype, name)
    return np.ascontiguousarray(a).reshape(-1)


def _plan_input(x, plan, n, name):
    if isinstance(x, _Iterator):
        return x._plan(plan, n, name)
    a = _check_array(x, name)
    if a.shape[0] < n:
        raise ValueError("%s: has %d elements but num_items is %d"
                         % (name, a.shape[0], n))
    i = plan.add(name, a if a.shape[0] == n else a[:n])

    def build(params, nsym):
        p = params[i]
        current().unify(nsym, p.dims[0])
        return p
    return build


def _check_out(a, name, n, dtype=None):
    """Checks an output; returns its fuse.gpu.DeviceArray for a CUDA array
    (None for a NumPy one)."""
    if _is_dev(a):
        from . import gpu
        d = gpu.checked_device_array(a, name)
        size = math.prod(d.shape)
        if size < n:
            raise ValueError("%s: has %d elements but %d are needed"
                             % (name, size, n))
        if dtype is not None and d.dtype != dtype:
            raise TypeError("%s: expected dtype %s, got %s" % (name, dtype,
                                                              d.dtype))
        return d
    if not isinstance(a, np.ndarray):
        raise TypeError("%s: expected a writable NumPy array, got %s"
                        % (name, type(a).__name__))
    if not a.flags.writeable:
        raise ValueError("%s: the array is read-only" % name)
    if not a.flags.c_contiguous:
        raise ValueError("%s: output arrays must be C-contiguous (results "
                         "are written in place)" % name)
    T.check_supported(a.dtype, name)
    if a.size < n:
        raise ValueError("%s: has %d elements but %d are needed"
                         % (name, a.size, n))
    if dtype is not None and a.dtype != dtype:
        raise TypeError("%s: expected dtype %s, got %s" % (name, dtype,
                                                          a.dtype))


def _num_items(n):
    if isinstance(n, (bool, np.bool_)) or not isinstance(
            n, (numbers.Integral, np.integer)):
        raise TypeError("num_items: expected an int, got %r" % (n,))
    if n < 0:
        raise ValueError("num_items: must be >= 0, got %d" % n)
    return int(n)


@contextlib.contextmanager
def _on_stream(stream, d_out):
    """stream= of an algorithm: yields the CUstream handle (None: the
    library's current stream). With a CUDA d_out, the stream is made the
    current stream of d_out's library for the whole call, so that the
    outputs fuse allocates and its copies into d_out are ordered on it as
    the kernels are. Bad stream types raise TypeError, bad handles and
    streams of another device ValueError."""
    if stream is None:
        yield None
        return
    from . import _launch
    h = _launch.stream_handle(stream)
    if not _is_dev(d_out):
        yield h            # _run raises for a CPU call with a stream
        return
    from . import gpu as G
    mode, device = G.owner_mode(d_out)
    h, ctx = _launch.resolve_stream(stream, mode, device)
    if ctx is None:
        yield h
    else:
        with ctx:
            yield h


def _streamed(fn):
    """An algorithm's stream= keyword: the algorithm runs inside
    _on_stream(stream, d_out) and gets the stream's handle (d_out: the
    argument of that name, else the first whose name ends in _out)."""
    sig = inspect.signature(fn)
    at = list(sig.parameters).index("stream")
    out = "d_out" if "d_out" in sig.parameters else next(
        (p for p in sig.parameters if p.endswith("_out")), "d_out")

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if len(args) <= at and kwargs.get("stream") is None:
            # No stream (the common call): nothing to bind or make current.
            kwargs.pop("stream", None)
            return fn(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        with _on_stream(bound.arguments.get("stream"),
                        bound.arguments.get(out)) as h:
            bound.arguments["stream"] = h
            return fn(*bound.args, **bound.kwargs)
    return call


# The temporaries of an algorithm call: fuse's own (_OWN), or the caller's
# temp_storage in the object form (make_reduce_into, ...): a _Temp.
_OWN = None


def _run(plan, build, d_out, stream=None, direct=None, temp=_OWN):
    """Traces build(params, nsym) -> outputs, compiles (cached) and runs:
    on the GPU when d_out or an input is a device array (then all arrays
    must be), else on the CPU with NumPy. stream: a handle from
    _on_stream (GPU calls only). direct: d_out's fuse.gpu.DeviceArray
    (from _check_out), or {result index: DeviceArray or None} for
    several: on the GPU, the entry writes the first result (those
    results) straight into it where it can (same dtype, large enough,
    overlapping no input; gpu.run_pipeline's `out`), and that result is
    then _launch.WRITTEN, which _write skips. temp: a _Temp to run the
    entry's capture-safe form with the caller's storage (GPU; every
    result into d_out): returns the bytes it needs (storage None) or
    None. On the CPU
    a _Temp's storage is not used: the query answers 1 byte and the call
    runs as without it."""
    gpu = _is_dev(d_out) or any(_is_dev(v) for v in plan.values)
    if temp is not _OWN and temp.query and not gpu:
        return 1
    if gpu:
        from . import gpu as G
        if not _is_dev(d_out):
            raise TypeError("d_out: a NumPy array lives on the host; with "
                            "CUDA inputs, d_out must be a CUDA array too")
        arrays, _ = G.gpu_arguments(plan.names, plan.values)
        weaks = [False] * len(arrays)
    else:
        if stream is not None:
            raise ValueError("stream= is for calls on CUDA arrays; these "
                             "are host (NumPy) arrays, computed on the CPU")
        arrays, weaks = [], []
        for name, v in zip(plan.names, plan.values):
            a, _ = as_input_array(v, name)
            arrays.append(a)
            weaks.append(False)

    key = plan.key(arrays, gpu)
    p = _TRACES.get(key) if key is not None else None
    if p is None:
        def fn(*params):
            nsym = Sym("value", 0)
            return build(list(params), nsym)
        fn.__signature__ = inspect.Signature(
            [inspect.Parameter("p%d" % i, inspect.Parameter.POSITIONAL_ONLY)
             for i in range(len(arrays))])
        p = trace(fn, plan.names, arrays, weaks, gpu=gpu)
        if key is not None:
            if len(_TRACES) >= _TRACES_MAX:
                _TRACES.pop(next(iter(_TRACES)))
            _TRACES[key] = p
    if gpu:
        ws = None if temp is _OWN else (temp.storage, temp.counts)
        if not isinstance(direct, dict):
            direct = {0: direct}
        direct = {r: d for r, d in direct.items() if d is not None}
        return G.run_pipeline(p, plan.names, arrays, like=d_out,
                              stream=stream, out=direct or None,
                              workspace=ws)
    return p.run(arrays)


def _new_plan(num_items):
    plan = _Plan()
    plan.add("num_items", np.int64(num_items))
    return plan


def _write(out, values, n=None):
    """Copies a result into d_out (the fallback: the entry wrote into a
    buffer of its own)."""
    from ._launch import WRITTEN
    if values is WRITTEN:
        return
    if not _is_dev(values):
        values = np.asarray(values)
    flat = out.reshape(-1)
    if n is None:
        n = _size(values)
    flat[:n] = values.reshape(-1)[:n]


def _answered(temp, dd):
    """Whether an algorithm's _run result is the object form's answer: with
    the caller's temp_storage on the GPU (dd, d_out's DeviceArray, set) or
    a query, the bytes needed or None (all written)."""
    return temp is not _OWN and (dd is not None or temp.query)


def _finish(out, r, n, temp, dd):
    """An algorithm's end: the object form's answer (_answered), or the
    result copied into d_out where the entry did not write it."""
    if _answered(temp, dd):
        return r
    _write(out, r, n)


def _as_scalars(x, what):
    if isinstance(x, tuple):
        raise TypeError("%s: the input yields tuples (a ZipIterator); wrap it "
                        "in a TransformIterator that makes scalars" % what)
    return x


# ---- algorithms ----------------------------------------------------------------

@_streamed
def reduce_into(d_in, d_out, op, num_items, h_init, stream=None, *,
                _temp=_OWN):
    """d_out[0] = h_init op d_in[0] op ... op d_in[num_items-1].

    The accumulator has h_init's dtype (a Python number takes d_out's)."""
    n = _num_items(num_items)
    dd = _check_out(d_out, "d_out", 1)
    init = _scalar_value(h_init, "h_init", None if isinstance(
        h_init, (np.generic, np.ndarray)) else _dtype(d_out))
    fn = _binary_fn(op, "reduce_into")
    plan = _new_plan(n)
    plan.depends("reduce_into", op, _dtype(d_out).str)
    src = _plan_input(d_in, plan, n, "d_in")
    ii = plan.add("h_init", init)
    acc = init.dtype

    def build(params, nsym):
        x = S.cast(_as_scalars(src(params, nsym), "reduce_into"), acc)
        iv = params[ii]
        if op in _BUILTIN_KIND:
            r = S._reduce_builtin(x, _BUILTIN_KIND[op], None, False)
            r = fn(iv, S.cast(r, acc))
        else:
            r = S.reduce(x, fn, init=iv)
        return S.cast(r, _dtype(d_out))
    r = _run(plan, build, d_out, stream, dd, _temp)
    if _answered(_temp, dd):
        return r
    from ._launch import WRITTEN
    if r is not WRITTEN:
        d_out.reshape(-1)[0] = r


@_streamed
def _segmented_rows(d_in, d_out, op, h_init, num_segments, segment_size,
                    stream=None, *, _temp=_OWN):
    """segmented_reduce's rows form (_compute_segments.segmented_reduce):
    d_out[s] = h_init op d_in[s*segment_size] op ... (equal-length,
    contiguous segments: the rows of a row-major matrix)."""
    ns = _num_items(num_segments)
    ss = _num_items(segment_size)
    if _is_dev(d_in):
        flat = _check_array(d_in, "d_in")
    elif not isinstance(d_in, np.ndarray):
        raise TypeError("d_in: segmented_reduce needs a NumPy or CUDA array")
    else:
        T.check_supported(d_in.dtype, "d_in")
        flat = np.ascontiguousarray(d_in).reshape(-1)
    if _size(d_in) < ns * ss:
        raise ValueError("d_in: has %d elements but num_segments * "
                         "segment_size is %d" % (_size(d_in), ns * ss))
    dd = _check_out(d_out, "d_out", ns)
    init = _scalar_value(h_init, "h_init", None if isinstance(
        h_init, (np.generic, np.ndarray)) else _dtype(d_out))
    fn = _binary_fn(op, "segmented_reduce")
    plan = _new_plan(ns)
    plan.depends("segmented_reduce", op, _dtype(d_out).str)
    xi = plan.add("d_in", flat[:ns * ss].reshape(ns, ss))
    ii = plan.add("h_init", init)
    acc = init.dtype

    def build(params, nsym):
        x = S.cast(params[xi], acc)
        current().unify(nsym, x.dims[0])
        iv = params[ii]
        if op in _BUILTIN_KIND:
            r = S._reduce_builtin(x, _BUILTIN_KIND[op], 1, False)
            r = fn(iv, S.cast(r, acc))
        else:
            r = S.reduce(x, fn, init=iv, axis=1)
        return S.cast(r, _dtype(d_out))
    return _finish(d_out, _run(plan, build, d_out, stream, dd, _temp), ns,
                   _temp, dd)


def _scan(d_in, d_out, op, init_value, num_items, exclusive, what,
          stream, temp=_OWN):
    n = _num_items(num_items)
    dd = _check_out(d_out, "d_out", n)
    fn = _binary_fn(op, what)
    plan = _new_plan(n)
    plan.depends(what, exclusive, init_value is None, op, _dtype(d_out).str)
    src = _plan_input(d_in, plan, n, "d_in")
    ii = None
    if init_value is not None:
        init = _scalar_value(init_value, "init_value", None if isinstance(
            init_value, (np.generic, np.ndarray)) else _dtype(d_out))
        ii = plan.add("init_value", init)
        acc = init.dtype
    elif exclusive:
        raise ValueError("%s: init_value is required" % what)
    else:
        acc = _dtype(d_out)

    def build(params, nsym):
        x = S.cast(_as_scalars(src(params, nsym), what), acc)
        iv = params[ii] if ii is not None else None
        if op in _BUILTIN_KIND:
            r = S.scan(x, _BUILTIN_KIND[op], exclusive=exclusive, init=iv)
        else:
            if iv is None:
                raise ValueError("%s: a function operator needs init_value"
                                 % what)
            r = S.scan(x, fn, exclusive=exclusive, init=iv)
        return S.cast(r, _dtype(d_out))
    return _finish(d_out, _run(plan, build, d_out, stream, dd, temp), n,
                   temp, dd)


@_streamed
def inclusive_scan(d_in, d_out, op, init_value, num_items, stream=None, *,
                   _temp=_OWN):
    """d_out[i] = [init_value op] d_in[0] op ... op d_in[i]."""
    return _scan(d_in, d_out, op, init_value, num_items, False,
                 "inclusive_scan", stream, _temp)


@_streamed
def exclusive_scan(d_in, d_out, op, init_value, num_items, stream=None, *,
                   _temp=_OWN):
    """d_out[0] = init_value, d_out[i] = init_value op d_in[0] op ...
    op d_in[i-1]."""
    return _scan(d_in, d_out, op, init_value, num_items, True,
                 "exclusive_scan", stream, _temp)


@_streamed
def unary_transform(d_in, d_out, op, num_items, stream=None):
    """d_out[i] = op(d_in[i])."""
    n = _num_items(num_items)
    dd = _check_out(d_out, "d_out", n)
    fn = _unary_fn(op, "unary_transform")
    plan = _new_plan(n)
    plan.depends("unary_transform", op, _dtype(d_out).str)
    src = _plan_input(d_in, plan, n, "d_in")

    def build(params, nsym):
        return S.cast(S.wrap(fn(src(params, nsym))), _dtype(d_out))
    _write(d_out, _run(plan, build, d_out, stream, dd), n)


@_streamed
def binary_transform(d_in1, d_in2, d_out, op, num_items, stream=None):
    """d_out[i] = op(d_in1[i], d_in2[i])."""
    n = _num_items(num_items)
    dd = _check_out(d_out, "d_out", n)
    fn = _binary_fn(op, "binary_transform")
    plan = _new_plan(n)
    plan.depends("binary_transform", op, _dtype(d_out).str)
    a = _plan_input(d_in1, plan, n, "d_in1")
    b = _plan_input(d_in2, plan, n, "d_in2")

    def build(params, nsym):
        return S.cast(S.wrap(fn(a(params, nsym), b(params, nsym))),
                      _dtype(d_out))
    _write(d_out, _run(plan, build, d_out, stream, dd), n)


@_streamed
def select(d_in, d_out, d_num_selected_out, cond, num_items, stream=None, *,
           _temp=_OWN):
    """Copies the d_in[i] for which cond(d_in[i]) holds, in order, to d_out
    and their count to d_num_selected_out[0]."""
    n = _num_items(num_items)
    if not callable(cond):
        raise TypeError("select: cond must be a function")
    dc = _check_out(d_num_selected_out, "d_num_selected_out", 1)
    dd = _check_out(d_out, "d_out", 0)
    if _temp is not _OWN and dc is not None:
        _temp.counts = {0: _device_count(dc, "d_num_selected_out")}
    plan = _new_plan(n)
    plan.depends("select", cond)
    src = _plan_input(d_in, plan, n, "d_in")

    def build(params, nsym):
        x = _as_scalars(src(params, nsym), "select")
        y = S.filter_(x, cond)
        return y, y.shape[0]
    # Direct only where d_out holds num_items elements (the filter's
    # capacity: the entry may keep them all) of the kept values' dtype;
    # else the kept values are copied (and cast) into d_out.
    r = _run(plan, build, d_out, stream, dd, _temp)
    if _answered(_temp, dd):
        return r
    y, count = r
    _write_selected(d_out, y, count, "d_out")
    d_num_selected_out.reshape(-1)[0] = count


def _device_count(dc, name):
    """dc (a DeviceArray), checked as the capture-safe form's count: it is
    written on the device as 8 bytes."""
    if dc.dtype not in (np.dtype(np.int64), np.dtype(np.uint64)):
        raise TypeError("%s: with temp_storage the count is written on the "
                        "device as 8 bytes: expected int64 or uint64, got %s"
                        % (name, dc.dtype))
    return dc


def _write_selected(out, values, count, name):
    """The `count` kept values of a compaction into `out` (cast to its
    dtype), unless the entry wrote them there itself."""
    from ._launch import WRITTEN
    if values is WRITTEN:
        return
    if _size(out) < count:
        raise ValueError("%s: has %d elements but %d were selected"
                         % (name, _size(out), count))
    if not _is_dev(values):
        values = values.astype(_dtype(out), copy=False)
    _write(out, values, count)


# The ordering algorithms (binary search, radix sort, unique_by_key) live in
# _compute_order.py; imported last, as they build on the helpers above.
from ._compute_order import (SortOrder, lower_bound, merge_sort,  # noqa: E402,F401
                             radix_sort, unique_by_key, upper_bound)
from . import _compute_histogram as _hist  # noqa: E402
histogram_even = _hist.histogram_even
from ._compute_segments import segmented_reduce  # noqa: E402,F401
from ._compute_partition import three_way_partition  # noqa: E402,F401
