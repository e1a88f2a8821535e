"""fuse: build, compile, cache and run fuse array pipelines from Python.

    import fuse, numpy as np

    @fuse.jit
    def sumsq(x):
        return (x * x).sum()

    sumsq(np.arange(10, dtype=np.float32))

See docs/python.md in the repository.
"""

from ._cache import cache_root
from ._cpu import CompileError, clear_memory_cache, stats
from ._jit import JitFunction, Pipeline, jit
from ._sym import (SymArray, filter_ as filter, gather, iota, map_ as map,
                   maximum, minimum, prefix, reduce, scan,
                   unary_float as _unary_float, where)
from ._tools import ToolNotFoundError
from ._algorithms import (argsort, run_length_encode, searchsorted, sort,
                          unique)
from ._argreduce import argmax, argmin
from ._bincount import bincount
from ._histogram import histogram
from ._partition import partition, topk
from ._segments import (reduce_by_key, segment_max, segment_min,
                        segment_prod, segment_reduce, segment_sum)
from . import compute
from .compute import OpKind
from . import gpu


__version__ = "0.1.0"


def exp(x):
    return _unary_float("exp", x)


def log(x):
    return _unary_float("log", x)


def sqrt(x):
    return _unary_float("sqrt", x)


def tanh(x):
    return _unary_float("tanh", x)


def relu(x):
    return maximum(x, 0)


def abs(x):  # noqa: A001 (mirrors numpy.abs)
    from ._sym import wrap
    return wrap(x).__abs__()


__all__ = ["jit", "JitFunction", "Pipeline", "SymArray", "argmax", "argmin",
           "argsort", "bincount", "filter",
           "gather", "histogram", "iota", "prefix", "run_length_encode", "searchsorted", "sort", "unique", "map", "maximum", "minimum", "reduce", "scan", "where",
           "segment_sum", "segment_prod", "segment_min", "segment_max",
           "segment_reduce", "reduce_by_key", "topk", "partition",
           "exp", "log", "sqrt", "tanh", "relu", "abs", "compute", "OpKind", "gpu",
           "stats", "clear_memory_cache", "cache_root",
           "CompileError", "ToolNotFoundError"]
