"""fuse.bincount (and np.bincount inside a traced function): NumPy's
bincount, counted by fuse.histogram with a dynamic bin count.

The result's length, max(x.max() + 1, minlength), depends on the data, and
NumPy raises for negative values: both need x's extremes on the host
before the counting pipeline is sized. A function that calls np.bincount
therefore runs in stages (Stages): for each bincount, in call order, a
small pipeline (the function traced up to that call, then one fused
reduction of the indices' minimum and maximum) whose result the host reads
and checks; then the function's own pipeline, traced with each length an
argument (a runtime value: one pipeline for every length). The first trace
of the function (the one JitFunction makes) finds the bincounts; there
the length is computed on the device (a pipeline that shows the IR, as
lower() does, but that runs only through the stages).
"""

import contextlib
import inspect
import operator

import numpy as np

from . import _types as T
from ._ir import Sym, current
from ._histogram import _counts, _size_of
from ._sym import (SymArray, as_sym, cast, iota, maximum, minimum, reduce,
                   where, wrap)

NEGATIVE = "'list' argument must have no negative elements"
MISMATCH = "The weights and list don't have the same length."


class _Trace:
    """The bincounts of one trace. given: the lengths, arguments of a
    staged trace (None: the first trace, which finds them); stop: the
    index of the bincount a measuring trace ends at (None: none)."""

    def __init__(self, given=None, stop=None):
        self.given, self.stop = given, stop
        self.minlengths = []


class _Measured(BaseException):
    """Ends a measuring trace at its bincount with the pipeline's result
    (a BaseException: user code catching Exception lets it through)."""

    def __init__(self, result):
        super().__init__()
        self.result = result


def discovered(ctx):
    """The minlengths of the bincounts a first trace met, or None (no
    bincount, or a staged trace)."""
    st = getattr(ctx, "bincount", None)
    if st is None or st.given is not None or st.stop is not None:
        return None
    return st.minlengths or None


# ---- the traced call ---------------------------------------------------------

def _rank1(a):
    """a as a symbolic array of rank 1 (NumPy's ValueError otherwise)."""
    a = wrap(a)
    if a.ndim != 1:
        raise ValueError("object of too small depth for desired array"
                         if a.ndim == 0 else
                         "object too deep for desired array")
    return a


def _indices(x):
    """x as NumPy takes it: rank 1, integers or bool (uint64 as int64,
    wrapping, as NumPy 2 converts it)."""
    x = _rank1(x)
    if T.kind(x.dtype) not in "sub":
        raise TypeError("Cannot cast array data from %r to dtype('int64') "
                        "according to the rule 'safe'" % x.dtype)
    return x


def _minlength(m):
    if m is None:
        raise TypeError("use 0 instead of None for minlength")
    if isinstance(m, SymArray):
        raise TypeError("fuse.bincount: minlength must be an integer known "
                        "when tracing (written in the function), not a "
                        "traced value")
    if isinstance(m, (bool, np.bool_)):
        raise TypeError("an integer is required")
    m = operator.index(m)
    if m < 0:
        raise ValueError("'minlength' must not be negative")
    return m


def _weights(w):
    """The weights as float64 (NumPy casts them to double, 'safe')."""
    return cast(_rank1(w), np.float64)


def _extremes(b):
    """(min(0, b.min()), b.max() or -1 when empty), one fused reduction."""
    return reduce((b, b), lambda a, e: (minimum(a[0], e[0]),
                                        maximum(a[1], e[1])),
                  init=(np.int64(0), np.int64(-1)))


def _measure(b, x, w):
    """A measuring trace's result: [min, max] of the indices b, and
    [len(x), len(weights)] where they may differ, as one int64 array."""
    vals = list(_extremes(b))
    dx, dw = (x.dims[0], None if w is None else w.dims[0])
    if w is not None and not (isinstance(dx, Sym) and isinstance(dw, Sym)
                              and dx.find() is dw.find()):
        vals += [_size_of(x), _size_of(w)]
    i = iota(len(vals), np.int64)
    r = vals[-1]
    for k in reversed(range(len(vals) - 1)):
        r = where(i == k, vals[k], r)
    return r


def bincount(x, weights=None, minlength=0):
    """numpy.bincount(x, weights, minlength) inside a fuse function: a 1-d
    x of integers or bool, non-negative; counts[v] = how many elements
    equal v (int64), or with weights the sum of their weights (float64, in
    index order, deterministic: _histogram._weighted); the length
    max(x.max() + 1, minlength). minlength: an int known when tracing.
    Negative values and weights of another length raise NumPy's ValueError
    before the counts run (Stages)."""
    x = _indices(x)
    least = _minlength(minlength)
    w = None if weights is None else _weights(weights)
    ctx = current()
    st = getattr(ctx, "bincount", None)
    if st is None:
        st = ctx.bincount = _Trace()
    i = len(st.minlengths)
    st.minlengths.append(least)
    b = cast(x, np.int64)
    if i == st.stop:
        raise _Measured(_measure(b, x, w))
    if st.given is None:
        n = maximum(_extremes(b)[1] + 1, least)    # the first trace's form
    elif i < len(st.given):
        n = st.given[i]
    else:
        raise RuntimeError("fuse.bincount: the function traced with more "
                           "bincounts than its first trace had")
    n = as_sym(n, "np.bincount length")
    return _counts(x, b, (ctx.index_of(n), n), w)


# ---- running in stages -------------------------------------------------------

def _staged_function(fn, names, nlengths, stop):
    """fn with one more argument per length (its bincounts' lengths, in
    order), ending at bincount `stop` with its measure when stop is not
    None."""
    n = len(names)

    def staged(*args):
        current().bincount = _Trace(given=args[n:], stop=stop)
        try:
            out = fn(*args[:n])
        except _Measured as m:
            return m.result
        if stop is not None:
            raise RuntimeError("fuse.bincount: the function traced without "
                               "its bincount %d" % stop)
        return out
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = list(names) + ["_fuse_bincount_length%d" % i
                            for i in range(nlengths)]
    staged.__signature__ = inspect.Signature(
        [inspect.Parameter(p, kind) for p in params])
    staged.__name__ = staged.__qualname__ = "%s_%s" % (
        getattr(fn, "__name__", "fn"),
        "bincount%d" % stop if stop is not None else "counts")
    return staged


def _length(measured, least):
    """The length of a bincount from its measure (checked as NumPy checks
    it). Compile-only GPU calls launched nothing: minlength then."""
    from . import gpu
    if not isinstance(measured, np.ndarray) and gpu.compile_only():
        return least
    v = measured.tolist()
    if v[0] < 0:
        raise ValueError(NEGATIVE)
    if len(v) == 4 and v[2] != v[3]:
        raise ValueError(MISMATCH)
    return max(v[1] + 1, least)


class Stages:
    """The calls of a function with bincounts, for one argument signature
    (the JitFunction's launcher for it on the GPU): per bincount a
    measuring pipeline, whose result is read back (a synchronization on
    the GPU), then the function's pipeline with the lengths as arguments.
    Each is a JitFunction of its own, with the function's launchers and
    cache."""

    def __init__(self, jit, names, minlengths):
        from ._jit import JitFunction

        def staged(nlengths, stop):
            return JitFunction(_staged_function(jit.fn, names, nlengths,
                                                stop), fastmath=jit.fastmath)
        self.minlengths = list(minlengths)
        k = len(self.minlengths)
        # Measure j takes the lengths of the bincounts before it.
        self._measures = [staged(j, j) for j in range(k)]
        self._counts = staged(k, None)

    def __call__(self, values, stream=None):
        kw = {} if stream is None else {"stream": stream}
        values = list(values)
        lengths = []
        with _on_stream(values, stream):
            for measure, least in zip(self._measures, self.minlengths):
                m = measure(*values, *lengths, **kw)
                lengths.append(_length(m, least))
        return self._counts(*values, *lengths, **kw)

    # The launcher's interface (JitFunction.__call__'s cache hit).
    def fast(self, values):
        return self(values)

    def run(self, values, stream=None):
        return self(values, stream)


def _on_stream(values, stream):
    """A context making stream= the current stream of the arrays' library
    (PyTorch, CuPy) while the measures are read back, so that the reads
    wait for them; nothing for other calls."""
    if stream is None:
        return contextlib.nullcontext()
    from . import gpu, _launch
    owner = next((v for v in values if gpu.is_device_array(v)), None)
    if owner is None:
        return contextlib.nullcontext()
    mode, device = gpu.owner_mode(owner)
    ctx = _launch.resolve_stream(stream, mode, device)[1]
    return ctx if ctx is not None else contextlib.nullcontext()
