"""The device-wide algorithms of traced functions (fuse.sort and
fuse.argsort): ops that fusion leaves outside the fused groups."""

import numpy as np

from . import _types as T
from ._ir import TensorVal, current
from ._sym import iota, leaf, materialize, wrap

_ORDERS = {False: "ascending", True: "descending"}


def _sorted(keys, values, descending, what):
    ctx = current()
    keys = wrap(keys)
    if keys.ndim != 1:
        raise ValueError("%s: the keys must have rank 1, got rank %d"
                         % (what, keys.ndim))
    if descending not in _ORDERS:
        raise TypeError("%s: descending must be True or False, got %r"
                        % (what, descending))
    k = materialize(keys)
    ops = [k]
    if values is not None:
        ops.append(materialize(values))
        ctx.unify(k.tv.syms[0], ops[1].tv.syms[0])
    order = _ORDERS[descending]
    if T.kind(keys.dtype) == "u":
        order += " unsigned"
    names = [ctx.fresh("s") for _ in ops]
    types = ", ".join(o.tv.type for o in ops)
    ctx.emit("%s = fuse.sort %s %s : %s -> %s" % (
        ", ".join(names), order, ", ".join(o.tv.ssa for o in ops), types,
        types))
    return [leaf(TensorVal(r, o.dtype, k.tv.syms))
            for r, o in zip(names, ops)]


def sort(x, descending=False):
    """x sorted along its one axis, as numpy.sort(x, kind="stable") (or
    reversed with descending=True, equal elements still in input order).
    NaN sorts after +inf ascending (a NaN whose sign bit is set, rare in
    practice, before -inf); -0.0 and +0.0 are equal."""
    return _sorted(x, None, descending, "fuse.sort")[0]


def argsort(x, descending=False):
    """The int64 indices that sort x, as numpy.argsort(x, kind="stable"):
    equal elements keep their order, in both orders."""
    x = wrap(x)
    if x.ndim != 1:
        raise ValueError("fuse.argsort: the input must have rank 1, got "
                         "rank %d" % x.ndim)
    return _sorted(x, iota(x.shape[0], np.int64), descending,
                   "fuse.argsort")[1]
