"""NumPy functions and ufuncs applied to symbolic arrays while tracing.

NumPy hands a call such as `np.exp(x)` or `np.sum(x, axis=1)` on a
SymArray to `SymArray.__array_ufunc__` / `__array_function__`. The calls
that have an exact fuse equivalent are traced as that equivalent, with
NumPy's result dtypes; every other call raises a TypeError that names it
and, where there is one, the fuse spelling to use instead. Without this,
NumPy would try to convert the symbolic array to a NumPy array and fail
with a message that names neither.
"""

import numpy as np

from . import _sym as S
from . import _types as T


def _np_name(f):
    """`np.cumsum`, `np.linalg.norm`: the name a user writes for `f`."""
    name = getattr(f, "__name__", None) or repr(f)
    mod = getattr(f, "__module__", None) or "numpy"
    if mod.startswith("numpy") and "._" not in mod and not \
            mod.startswith("numpy._"):
        return "np" + mod[len("numpy"):] + "." + name
    return "np." + name


# ---- ufuncs ------------------------------------------------------------------

_BINARY_UFUNCS = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
    "true_divide": "div", "floor_divide": "floordiv", "remainder": "mod",
    "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
    "left_shift": "lshift", "right_shift": "rshift", "less": "lt",
    "less_equal": "le", "greater": "gt", "greater_equal": "ge",
    "equal": "eq", "not_equal": "ne",
}

# Unary ufuncs computed in floating point: fuse's math function of the
# same name, on NumPy's result dtype.
_FLOAT_UFUNCS = ("exp", "log", "sqrt", "tanh", "sin", "cos", "log1p",
                 "expm1")

_UFUNC_HINTS = {
    "fmax": "fuse.where(x != x, y, fuse.maximum(x, y)) (fmax ignores NaN; "
            "fuse.maximum propagates it, as np.maximum)",
    "fmin": "fuse.where(x != x, y, fuse.minimum(x, y)) (fmin ignores NaN; "
            "fuse.minimum propagates it, as np.minimum)",
    "matmul": "(x[:, :, None] * y[None, :, :]).sum(axis=1) for small "
              "matrices, or (x * y).sum() for vectors",
    "arctan2": None,
}


def _unary(name, x):
    """np.<name>(x) for the unary ufuncs fuse has."""
    x = S.wrap(x)
    k = T.kind(x.dtype)
    if name in ("negative",):
        return -x
    if name == "positive":
        return +x
    if name in ("absolute", "fabs"):
        if name == "fabs" and k != "f":
            x = S.cast(x, T.float_of(x.dtype))
        return abs(x)
    if name in ("invert", "bitwise_not"):
        return ~x
    if name == "logical_not":
        return ~S.cast(x, np.bool_)
    if name == "square":
        if k == "b":
            x = S.cast(x, np.int8)
        return x * x
    if name in ("floor", "ceil"):
        if k != "f":
            return x                  # NumPy keeps integers (and bools) as is
        return S.unary_float(name, x)
    if name in ("isnan", "isinf", "isfinite"):
        if k != "f":
            # Integers are finite; x == x is all True with x's shape.
            return x == x if name == "isfinite" else x != x
        if name == "isnan":
            return x != x
        a = abs(x)
        return a == np.inf if name == "isinf" else a < np.inf
    if name in _FLOAT_UFUNCS:
        # NumPy's result dtype: float16 for 8-bit integers and booleans,
        # float32 for 16-bit ones, float64 for wider ones.
        dt = getattr(np, name)(np.zeros(0, x.dtype)).dtype
        if not T.is_supported(dt):
            raise TypeError(
                "fuse: np.%s of %s gives %s in NumPy, which fuse does not "
                "support; convert first, e.g. np.%s(x.astype(np.float32))"
                % (name, x.dtype, dt, name))
        return S.unary_float(name, S.cast(x, dt))
    return None


def _logical(name, a, b):
    a, b = S.cast(S.wrap(a), np.bool_), S.cast(S.wrap(b), np.bool_)
    return {"logical_and": a & b, "logical_or": a | b,
            "logical_xor": a ^ b}[name]


def _call_ufunc(ufunc, inputs):
    name = ufunc.__name__
    if len(inputs) == 2:
        a, b = inputs
        if name in _BINARY_UFUNCS:
            return S._binary(_BINARY_UFUNCS[name], a, b)
        if name in ("maximum", "minimum"):
            return S._minmax(name, a, b)
        if name in ("logical_and", "logical_or", "logical_xor"):
            return _logical(name, a, b)
        if name in ("power", "float_power"):
            if name == "float_power":
                a = S.cast(S.wrap(a), np.float64)
            return S.power(a, b)
    elif len(inputs) == 1:
        r = _unary(name, inputs[0])
        if r is not None:
            return r
    return None


_REDUCE_KINDS = {"add": "add", "multiply": "mul", "maximum": "max",
                 "minimum": "min"}


def _no_kwargs(call, kwargs, allowed=()):
    for k, v in kwargs.items():
        if k in allowed or v is None:
            continue
        if k == "out" and all(o is None for o in v):
            continue
        raise TypeError("fuse: %s(..., %s=...) is not supported on symbolic "
                        "arrays inside a fuse function (results are new "
                        "arrays; convert dtypes with .astype)" % (call, k))


def array_ufunc(ufunc, method, inputs, kwargs):
    name = "np.%s" % ufunc.__name__
    call = name if method == "__call__" else "%s.%s" % (name, method)
    _no_kwargs(call, kwargs, ("axis", "keepdims")
               if method in ("reduce", "accumulate") else ())
    if method == "__call__":
        r = _call_ufunc(ufunc, inputs)
        if r is not None:
            return r
        hint = _UFUNC_HINTS.get(ufunc.__name__)
        raise TypeError("fuse: %s is not supported on symbolic arrays inside "
                        "a fuse function%s" % (call, "; use " + hint
                                               if hint else ""))
    kind = _REDUCE_KINDS.get(ufunc.__name__)
    if method in ("reduce", "accumulate") and kind is not None and \
            len(inputs) == 1:
        return (_reduce if method == "reduce" else _accumulate)(
            call, inputs[0], kind, kwargs)
    raise TypeError("fuse: %s is not supported on symbolic arrays inside a "
                    "fuse function%s" % (
                        call, "; use fuse.reduce(x, op) or fuse.scan(x, op)"
                        " with op \"add\", \"mul\", \"max\" or \"min\""
                        if method in ("reduce", "accumulate") else ""))


def _reduce(call, x, kind, kwargs):
    x = S.wrap(x)
    axis = kwargs.get("axis", 0)
    keepdims = bool(kwargs.get("keepdims", False))
    return S._reduce_builtin(x, kind, axis, keepdims)


def _accumulate(call, x, kind, kwargs):
    x = S.wrap(x)
    axis = kwargs.get("axis", 0)
    return S.scan(x, kind, axis=0 if axis is None else axis)


# ---- array functions ---------------------------------------------------------

def _defaults(call, kwargs, allowed):
    for k, v in kwargs.items():
        if k in allowed:
            continue
        if v is None or v is np._NoValue or (k == "keepdims" and v is False):
            continue
        raise TypeError("fuse: %s(..., %s=...) is not supported on symbolic "
                        "arrays inside a fuse function" % (call, k))


def _bind(f, args, kwargs):
    import inspect
    try:
        sig = inspect.signature(f)
        b = sig.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    return dict(b.arguments)


def _axis_call(fn):
    """A NumPy function of (x, axis=None, keepdims=False) as
    fn(x, axis, keepdims); other arguments only at their defaults."""
    def run(call, f, args, kwargs):
        a = _bind(f, args, kwargs)
        if a is None:
            return None
        x = a.pop(next(iter(a)))
        axis = a.pop("axis", None)
        keepdims = a.pop("keepdims", False)
        if keepdims is np._NoValue:
            keepdims = False
        _defaults(call, a, ())
        return fn(x, axis, bool(keepdims))
    return run


def _reduction(method):
    return _axis_call(lambda x, axis, keepdims: getattr(S.wrap(x), method)(
        axis=axis, keepdims=keepdims))


def _scan_fn(kind):
    def run(call, f, args, kwargs):
        a = _bind(f, args, kwargs)
        if a is None:
            return None
        x = S.wrap(a.pop(next(iter(a))))
        axis = a.pop("axis", None)
        _defaults(call, a, ())
        if axis is None:
            if x.ndim != 1:
                raise TypeError(
                    "fuse: %s(x) of a rank-%d array flattens it, which fuse "
                    "does not do; give an axis (%s(x, axis=-1)) or use "
                    "fuse.scan(x, op=%r, axis=...)" % (call, x.ndim, call,
                                                        kind))
            axis = 0
        return S.scan(x, kind, axis=axis)
    return run


def _where(call, f, args, kwargs):
    if kwargs or len(args) != 3:
        raise TypeError("fuse: %s with one argument (the indices where a "
                        "condition holds) is not supported inside a fuse "
                        "function; fuse.filter(x, predicate) keeps the "
                        "elements, np.where(c, a, b) / fuse.where(c, a, b) "
                        "selects" % call)
    return S.where(*args)


def _clip(call, f, args, kwargs):
    a = _bind(f, args, kwargs)
    if a is None:
        return None
    x = a.pop(next(iter(a)))
    bounds = []
    for names in (("a_min", "min"), ("a_max", "max")):
        v = None
        for k in names:
            got = a.pop(k, None)
            if got is not None and got is not np._NoValue:
                v = got
        bounds.append(v)
    extra = a.pop("kwargs", None) or {}
    _defaults(call, dict(a, **extra), ())
    r = S.wrap(x)
    if bounds[0] is not None:
        r = S.maximum(r, bounds[0])
    if bounds[1] is not None:
        r = S.minimum(r, bounds[1])
    return r


def _astype(call, f, args, kwargs):
    a = _bind(f, args, kwargs)
    if a is None:
        return None
    x = a.pop(next(iter(a)))
    dtype = a.pop("dtype")
    _defaults(call, a, ("copy", "device"))
    return S.wrap(x).astype(dtype)


def _sort_fn(name):
    """np.sort / np.argsort of a 1-d array along its axis: fuse's sort is
    stable, a valid answer for every `kind` (NumPy leaves the order of
    equal elements open for the others)."""
    def run(call, f, args, kwargs):
        from . import _algorithms
        a = _bind(f, args, kwargs)
        if a is None:
            return None
        x = S.wrap(a.pop(next(iter(a))))
        axis = a.pop("axis", -1)
        a.pop("kind", None)
        a.pop("stable", None)
        _defaults(call, a, ())
        if x.ndim != 1 or axis not in (-1, 0, None):
            raise TypeError("fuse: %s is supported on 1-d arrays along their "
                            "axis (got a %d-d array, axis=%r)"
                            % (call, x.ndim, axis))
        return getattr(_algorithms, name)(x)
    return run


def _arg_fn(name):
    """np.argmax / np.argmin (axis, keepdims; not out=)."""
    def fn(x, axis, keepdims):
        from . import _argreduce
        return getattr(_argreduce, name)(x, axis=axis, keepdims=keepdims)
    return _axis_call(fn)


def _searchsorted(call, f, args, kwargs):
    from . import _algorithms
    a = _bind(f, args, kwargs)
    if a is None:
        return None
    return _algorithms.searchsorted(a.pop("a"), a.pop("v"),
                                    side=a.pop("side", "left"),
                                    sorter=a.pop("sorter", None))


def _unique(call, f, args, kwargs):
    from . import _algorithms
    a = _bind(f, args, kwargs)
    if a is None:
        return None
    x = S.wrap(a.pop(next(iter(a))))
    if a.pop("equal_nan", True) is not True:
        raise TypeError("fuse: np.unique(..., equal_nan=False) is not "
                        "supported (NaNs are one value)")
    index = bool(a.pop("return_index", False))
    inverse = bool(a.pop("return_inverse", False))
    counts = bool(a.pop("return_counts", False))
    _defaults(call, a, ())
    if x.ndim != 1:
        raise TypeError("fuse: np.unique is supported on 1-d arrays (got a "
                        "%d-d array)" % x.ndim)
    return _algorithms.unique(x, return_index=index, return_inverse=inverse,
                              return_counts=counts)


def _histogram(call, f, args, kwargs):
    from . import _histogram as H
    a = _bind(f, args, kwargs)
    if a is None:
        return None
    return H.histogram(a.pop("a"), bins=a.pop("bins", 10),
                       range=a.pop("range", None),
                       density=a.pop("density", None),
                       weights=a.pop("weights", None))


def _bincount(call, f, args, kwargs):
    from . import _bincount as B
    a = _bind(f, args, kwargs)
    if a is None:
        return None
    return B.bincount(a.pop("x"), weights=a.pop("weights", None),
                      minlength=a.pop("minlength", 0))


_FUNCTIONS = {
    "sum": _reduction("sum"), "prod": _reduction("prod"),
    "max": _reduction("max"), "amax": _reduction("max"),
    "min": _reduction("min"), "amin": _reduction("min"),
    "mean": _reduction("mean"),
    "all": _reduction("all"), "any": _reduction("any"),
    "cumsum": _scan_fn("add"), "cumprod": _scan_fn("mul"),
    "where": _where, "clip": _clip, "astype": _astype,
    "sort": _sort_fn("sort"), "argsort": _sort_fn("argsort"),
    "searchsorted": _searchsorted, "unique": _unique,
    "argmax": _arg_fn("argmax"), "argmin": _arg_fn("argmin"),
    "histogram": _histogram, "bincount": _bincount,
    "ndim": lambda call, f, args, kwargs: S.wrap(args[0]).ndim,
    "shape": lambda call, f, args, kwargs: S.wrap(args[0]).shape,
}

# Unsupported functions with a fuse spelling.
_HINTS = {
    "cumulative_sum": 'fuse.scan(x, op="add", axis=...)',
    "cumulative_prod": 'fuse.scan(x, op="mul", axis=...)',
    "maximum.accumulate": 'fuse.scan(x, op="max")',
    "dot": "(x * y).sum()", "vdot": "(x * y).sum()",
    "inner": "(x * y).sum(axis=-1)",
    "count_nonzero": "(x != 0).sum()",
    "nonzero": "fuse.filter((fuse.iota(x.shape[0]), x), lambda i, v: v != 0)",
    "argwhere": "fuse.filter((fuse.iota(x.shape[0]), c), lambda i, v: v)",
    "flatnonzero": "fuse.filter((fuse.iota(x.shape[0]), x), "
                   "lambda i, v: v != 0)",
    "compress": "fuse.filter",
    "extract": "fuse.filter",
    "take": "fuse.gather(source, indices)",
    "arange": "fuse.iota(n, dtype)",
    "zeros_like": "x * 0", "ones_like": "x * 0 + 1",
    "full_like": "x * 0 + value",
    "average": "x.mean(axis=...) (unweighted) or (x * w).sum() / w.sum()",
    "var": "((x - x.mean()) ** 2).mean()",
    "std": "fuse.sqrt(((x - x.mean()) ** 2).mean())",
    "expand_dims": "x[:, None]",
}


def array_function(func, types, args, kwargs):
    name = getattr(func, "__name__", "")
    call = _np_name(func)
    fn = _FUNCTIONS.get(name) if getattr(func, "__module__", "").startswith(
        "numpy") else None
    if fn is not None:
        r = fn(call, func, args, kwargs)
        if r is not None:
            return r
    hint = _HINTS.get(name)
    raise TypeError("fuse: %s is not supported on symbolic arrays inside a "
                    "fuse function%s" % (call, "; use " + hint
                                         if hint else ""))
