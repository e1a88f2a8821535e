"""Keys of the operators fuse.compute traces (its trace cache,
compute._Plan): what a function computes is its code with the values it
reads (defaults, closure cells, module globals), which the trace bakes in
as constants; a value that cannot be keyed makes the function unkeyed."""

import enum
import numbers
import types

import numpy as np


def _names_of(code):
    """Global names a code object and the functions it defines read."""
    names = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            names |= _names_of(c)
    return names


def _value_key(v, depth):
    """A key of a value a traced function reads (a closure cell, a default,
    a global), or None where it cannot stand for the value: the trace bakes
    numbers in, so they are keyed by type and value; modules, classes and
    builtins by identity; functions by fn_key."""
    if v is None or isinstance(v, (bool, numbers.Number, str, bytes,
                                   enum.Enum)):
        return (type(v), v)
    if isinstance(v, np.generic):
        return (v.dtype.str, v.item())
    if isinstance(v, (types.ModuleType, type, types.BuiltinFunctionType,
                      np.ufunc)):
        return ("object", v)
    if isinstance(v, tuple):
        keys = tuple(_value_key(x, depth) for x in v)
        return None if any(k is None for k in keys) else ("tuple", keys)
    if callable(v):
        return fn_key(v, depth + 1)
    return None


def fn_key(f, depth=0):
    """A key of what operator f computes: an OpKind, or a function's code
    with its defaults, closure values and the globals it reads (None where
    one of them has no key: the call then traces as without the cache)."""
    if isinstance(f, enum.Enum):           # fuse.OpKind
        return ("op", f)
    code = getattr(f, "__code__", None)
    if code is None or depth > 4:
        return None
    parts = [code]
    values = list(f.__defaults__ or ()) + list(
        (f.__kwdefaults__ or {}).values())
    for c in f.__closure__ or ():
        try:
            values.append(c.cell_contents)
        except ValueError:      # an empty cell
            return None
    g = getattr(f, "__globals__", {})
    for name in sorted(_names_of(code)):
        if name in g:
            values.append((name, g[name]))
    for v in values:
        k = _value_key(v, depth)
        if k is None:
            return None
        parts.append(k)
    return tuple(parts)
