"""The sorting family of traced functions: fuse.sort and fuse.argsort
(device-wide algorithms that fusion leaves outside the fused groups),
fuse.searchsorted (elementwise over its needles, so it fuses) and
fuse.unique (a sort, then one fused filter pass)."""

import numpy as np

from . import _types as T
from ._ir import Sym, TensorVal, current
from ._sym import (_emit_region, broadcast_1d, cast, filter_, gather, iota,
                   leaf, materialize, trace_comparator, where, wrap)

_ORDERS = {False: "ascending", True: "descending"}


def _sorted(keys, values, descending, what, less=None):
    """keys (and values) sorted stably by the keys: in fuse.sort's key
    order, or by `less(a, b)` (a goes strictly before b) when given."""
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
    if less is None and T.kind(keys.dtype) == "u":
        order += " unsigned"
    region = None if less is None else trace_comparator(
        less, keys.dtype, what + " comparator")
    names = [ctx.fresh("s") for _ in ops]
    types = ", ".join(o.tv.type for o in ops)
    ctx.emit("%s = fuse.sort %s %s : %s -> %s%s" % (
        ", ".join(names), order, ", ".join(o.tv.ssa for o in ops), types,
        types, "" if region is None else " {"))
    if region is not None:
        _emit_region(ctx, *region)
        ctx.emit("}")
    return [leaf(TensorVal(r, o.dtype, k.tv.syms, static=o.tv.static))
            for r, o in zip(names, ops)]


def sort(x, descending=False, less=None):
    """x sorted along its one axis, as numpy.sort(x, kind="stable") (or
    reversed with descending=True, equal elements still in input order).
    NaN sorts after +inf ascending (a NaN whose sign bit is set, rare in
    practice, before -inf); -0.0 and +0.0 are equal.

    less: a function of two scalars a, b returning whether a goes strictly
    before b (a strict weak order, e.g. `lambda a, b: abs(a) < abs(b)`),
    which replaces that order; elements neither of which goes before the
    other keep their input order (on the GPU, a generated merge sort)."""
    return _sorted(x, None, descending, "fuse.sort", less)[0]


def argsort(x, descending=False, less=None):
    """The int64 indices that sort x, as numpy.argsort(x, kind="stable"):
    equal elements keep their order, in both orders. less: as fuse.sort's."""
    x = wrap(x)
    if x.ndim != 1:
        raise ValueError("fuse.argsort: the input must have rank 1, got "
                         "rank %d" % x.ndim)
    return _sorted(x, iota(x.shape[0], np.int64), descending,
                   "fuse.argsort", less)[1]


_SIDES = ("left", "right")


def searchsorted(a, v, side="left", sorter=None):
    """numpy.searchsorted: for each element of v, the int64 position at
    which it would be inserted into the ascending 1-d array a (a[sorter]
    when sorter is given) to keep it sorted; with side="left" the first
    such position, with side="right" the last. a and v compare in their
    common dtype, NaN after every number as in NumPy's sort. Elementwise
    over v: it fuses with the maps around it (a binary search per
    element)."""
    ctx = current()
    a, v = wrap(a), wrap(v)
    if a.ndim != 1:
        raise ValueError("fuse.searchsorted: the sorted array must have "
                         "rank 1, got rank %d" % a.ndim)
    if side not in _SIDES:
        raise ValueError("fuse.searchsorted: side must be 'left' or "
                         "'right', got %r" % (side,))
    if sorter is not None:
        a = gather(a, sorter)
    dt, _ = T.promote(a.dtype, a.weak, v.dtype, v.weak)
    a, v = cast(a, dt), cast(v, dt)
    scalar = v.ndim == 0
    if scalar:  # a 0-d needle searches as a one-element array
        v = broadcast_1d(v, Sym("const", 1))
    s, n = materialize(a), materialize(v)
    r = ctx.fresh("p")
    order = side + (" unsigned" if T.kind(dt) == "u" else "")
    rt = T.tensor_type(np.dtype(np.int64), len(n.tv.syms))
    ctx.emit("%s = fuse.searchsorted %s %s, %s : %s, %s -> %s" % (
        r, order, s.tv.ssa, n.tv.ssa, s.tv.type, n.tv.type, rt))
    out = leaf(TensorVal(r, np.dtype(np.int64), n.tv.syms), n.dims)
    return out.sum() if scalar else out


def run_starts(k, same, what):
    """Where the runs of consecutive elements of the rank-1 k begin: the
    iota i and the mask (i == 0) | ~same(k[i - 1], k[i]), every element
    compared with the one before it (a gather) in the pass that uses the
    mask. same must give booleans."""
    i = iota(k.shape[0], np.int64)
    eq = wrap(same(gather(k, i - 1), k))
    if eq.dtype != np.bool_:
        raise TypeError("%s: op must return booleans, got %s"
                        % (what, eq.dtype))
    return i, (i == 0) | ~eq


def equal_keys(dtype):
    """The key equality of unique, run-length encoding and reduce_by_key:
    ==, except that NaNs are equal to each other (NumPy's equal_nan)."""
    if T.kind(dtype) == "f":
        return lambda a, b: (a == b) | ((a != a) & (b != b))
    return lambda a, b: a == b


def run_ends(starts, n):
    """Where each run ends, for the kept run starts: the next start, n
    for the last."""
    r = starts.shape[0]
    j = iota(r, np.int64)
    return where(j == r - 1, n, gather(starts, j + 1))


def run_length_encode(x):
    """(values, counts): for every run of equal consecutive elements of the
    1-d x, its first element and its length (int64), in order; CUB's
    DeviceRunLengthEncode::Encode, torch.unique_consecutive(x,
    return_counts=True). Equal as fuse.unique's values are (NaNs one
    value, -0.0 and +0.0 one value, the run keeps its first element). One
    fused pass compares each element with the one before it and compacts
    the run starts; the counts come from the kept starts. The number of
    runs is values.shape[0]."""
    x = wrap(x)
    if x.ndim != 1:
        raise ValueError("fuse.run_length_encode: the input must have rank "
                         "1, got rank %d" % x.ndim)
    i, keep = run_starts(x, equal_keys(x.dtype), "fuse.run_length_encode")
    u, starts = filter_((x, i), lambda *_: keep)
    return u, run_ends(starts, x.shape[0]) - starts


def unique(x, return_index=False, return_inverse=False,
           return_counts=False):
    """numpy.unique of a 1-d array: its distinct values in ascending order,
    with every NaN one value (NumPy's equal_nan=True) and -0.0 and +0.0 one
    value; with return_index also the index of each value's first
    occurrence in x, with return_inverse also the index in the distinct
    values of each element of x (x == values[inverse]; a binary search
    of each element in the distinct values, fused with whatever reads
    it), with return_counts also how often each value occurs (int64,
    NumPy's order of results). The sort is fuse.sort's (a stable argsort
    for the indices); the kept values are found in one fused pass that
    compares each sorted value with the one before it (a gather) and
    compacts them (a filter), and the counts in one more pass over the kept
    values. The length is result.shape[0]."""
    x = wrap(x)
    if x.ndim != 1:
        raise ValueError("fuse.unique: the input must have rank 1, got rank "
                         "%d" % x.ndim)
    if return_index:
        s, first = _sorted(x, iota(x.shape[0], np.int64), False,
                           "fuse.unique")
    else:
        s = sort(x)
    n = s.shape[0]
    i, keep = run_starts(s, equal_keys(s.dtype), "fuse.unique")
    cols = [s] + ([first] if return_index else []) + \
        ([i] if return_counts else [])
    if len(cols) == 1:
        u = filter_(s, lambda _: keep)
        if not return_inverse:
            return u
        return u, searchsorted(u, x)
    kept = list(filter_(tuple(cols), lambda *_: keep))
    if return_counts:
        starts = kept.pop()
        kept.append(run_ends(starts, n) - starts)
    if return_inverse:
        # NumPy's order: values, index, inverse, counts. NaN finds the one
        # NaN kept (searchsorted orders NaN last), -0.0 the zero kept.
        kept.insert(2 if return_index else 1, searchsorted(kept[0], x))
    return tuple(kept)
