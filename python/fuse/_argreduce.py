"""Reductions and scans of tuples of arrays with a function combiner
(`fuse.reduce((x, y, ...), fn, init=(...))`, `fuse.scan((x, y, ...), fn,
init=(...))`), and fuse.argmax / fuse.argmin, which are such a reduction
of (x, position). Each emits one variadic fuse.reduce or fuse.scan with a
combiner region; the GPU keeps the operands in index order (the ordered
reduce kernels, the single-pass scan), so a combiner must be
associative but need not be commutative."""

import numbers

import numpy as np

from . import _types as T
from ._ir import TensorVal, current
from ._sym import (ONE, SymArray, _axes, _emit_region, _scalar_operand,
                   _trace_combiner, cast, iota, leaf, materialize_many, where,
                   wrap)


def _common_shape(xs, what):
    """xs broadcast to one shape (NumPy's rule): an array of another shape
    becomes where(c, x, x) over a boolean c of the common shape."""
    ctx = current()
    from ._sym import _bshape
    shape = xs[0].dims
    for x in xs[1:]:
        shape = _bshape(shape, x.dims, ctx)    # unifies the sizes

    def full(x):
        return x.ndim == len(shape) and all(
            (d is ONE) == (s is ONE) for d, s in zip(x.dims, shape))
    if all(full(x) for x in xs):
        return xs
    c = None
    for x in xs:
        same = (x == x) | (x != x)       # true everywhere, NaN included
        c = same if c is None else c | same
    return [x if full(x) else where(c, x, x) for x in xs]


def _init_dtype(v, x):
    """The accumulator dtype an init value asks for: a NumPy scalar's or a
    0-d array's own dtype, else (a Python number) the array's."""
    if isinstance(v, (SymArray, np.generic)):
        return np.dtype(v.dtype)
    return x.dtype


def _tuple_operands(xs, op, init, noun, what):
    """The arrays of a tuple reduction or scan (`noun`), checked with their
    combiner and inits, broadcast together and cast to the accumulator
    dtypes the inits ask for; returns (arrays, dtypes)."""
    xs = [wrap(x) for x in xs]
    if not xs:
        raise ValueError("%s: a tuple %s needs at least one array"
                         % (what, noun))
    if not callable(op):
        raise TypeError("%s: a tuple %s takes a function combiner, got %r"
                        % (what, noun, op))
    if not isinstance(init, (tuple, list)) or len(init) != len(xs):
        raise ValueError("%s: a tuple %s of %d arrays needs init: a tuple "
                         "of %d values" % (what, noun, len(xs), len(xs)))
    xs = _common_shape(xs, what)
    accs = [_init_dtype(v, x) for v, x in zip(init, xs)]
    return [cast(x, dt) for x, dt in zip(xs, accs)], accs


def _combiner_parts(xs, accs, init, op, what):
    """The inits as scalar SSA values, the traced combiner (params,
    results) and the arrays materialized: what the op's text needs."""
    ctx = current()
    ivs = [_scalar_operand(ctx, v, dt, what + " init")
           for v, dt in zip(init, accs)]
    ps, res = _trace_combiner(op, accs, what + " combiner")
    return ivs, ps, res, materialize_many(xs)


def reduce_tuple(xs, op, init, axis=None, keepdims=False,
                 what="fuse.reduce"):
    """One fuse.reduce of the arrays xs (broadcast together) with the
    combiner op((accs), (elems)) -> accs and one init per array; returns a
    tuple of results, one per array, in its accumulator's dtype."""
    ctx = current()
    xs, accs = _tuple_operands(xs, op, init, "reduction", what)
    axes = _axes(xs[0], axis)
    if any(xs[0].dims[a] is ONE for a in axes):
        raise NotImplementedError("%s: reducing a broadcast (size-1) axis "
                                  "with a function combiner" % what)
    ivs, ps, res, lfs = _combiner_parts(xs, accs, init, op, what)
    dims = xs[0].dims
    under = [i for i, s in enumerate(dims) if s is not ONE]
    red = [under.index(a) for a in axes]
    keep = [s for i, s in enumerate(dims) if s is not ONE and i not in axes]
    if keepdims:
        out_shape = tuple(1 if i in axes else s for i, s in enumerate(dims))
    else:
        out_shape = tuple(s for i, s in enumerate(dims) if i not in axes)
    names = [ctx.fresh("r") for _ in lfs]
    rts = [T.tensor_type(dt, len(keep)) for dt in accs]
    dims_txt = "" if len(red) == len(under) else " dims [%s]" % ", ".join(
        map(str, red))
    ctx.emit("%s = fuse.reduce %s init(%s : %s)%s : %s -> %s {" % (
        ", ".join(names), ", ".join(lf.tv.ssa for lf in lfs), ", ".join(ivs),
        ", ".join(T.mlir(dt) for dt in accs), dims_txt,
        ", ".join(lf.tv.type for lf in lfs), ", ".join(rts)))
    _emit_region(ctx, ps, res)
    ctx.emit("}")
    return tuple(leaf(TensorVal(r, dt, keep), out_shape)
                 for r, dt in zip(names, accs))


def scan_tuple(xs, op, init, exclusive=False, axis=-1, what="fuse.scan"):
    """One fuse.scan of the arrays xs (broadcast together) along axis with
    the combiner op((accs), (elems)) -> accs and one init per array (the
    exclusive scan's first values); a tuple of results, one per array, in
    its init's dtype."""
    ctx = current()
    xs, accs = _tuple_operands(xs, op, init, "scan", what)
    if xs[0].ndim == 0:
        raise ValueError("%s: the arrays must have rank >= 1" % what)
    (a,) = _axes(xs[0], axis)
    if xs[0].dims[a] is ONE:
        raise NotImplementedError("%s: scanning a broadcast axis" % what)
    ivs, ps, res, lfs = _combiner_parts(xs, accs, init, op, what)
    under = [i for i, s in enumerate(xs[0].dims) if s is not ONE]
    d = under.index(a)
    names = [ctx.fresh("r") for _ in lfs]
    types = ", ".join(lf.tv.type for lf in lfs)
    ctx.emit("%s = fuse.scan %s %s init(%s : %s)%s : %s -> %s {" % (
        ", ".join(names), "exclusive" if exclusive else "inclusive",
        ", ".join(lf.tv.ssa for lf in lfs), ", ".join(ivs),
        ", ".join(T.mlir(dt) for dt in accs),
        "" if d == len(under) - 1 else " dim %d" % d, types, types))
    _emit_region(ctx, ps, res)
    ctx.emit("}")
    return tuple(leaf(TensorVal(r, dt, lf.tv.syms, static=lf.tv.static),
                      x.dims) for r, dt, lf, x in zip(names, accs, lfs, xs))


def _positions(x, axis):
    """int64 positions of x's elements along `axis` (None: the flat
    row-major position), broadcast to x's shape."""
    r = x.ndim
    if axis is not None:
        view = (None,) * axis + (slice(None),) + (None,) * (r - axis - 1)
        p = iota(x.shape[axis], np.int64)
        return p[view] if r > 1 else p
    p = None
    for d in range(r):
        view = (None,) * d + (slice(None),) + (None,) * (r - d - 1)
        i = iota(x.shape[d], np.int64)
        i = i[view] if r > 1 else i
        p = i if p is None else p * x.shape[d] + i
    return p


def _arg_extreme(x, axis, keepdims, largest, what):
    """The position of the first largest (smallest) element of x along
    axis, or of the flattened x (axis None), as NumPy's argmax (argmin):
    the first NaN where there is one; int64."""
    ctx = current()
    x = wrap(x)
    if x.dtype == np.bool_:
        x = cast(x, np.uint8)     # combiners take no booleans on the GPU
    if axis is not None:
        if not isinstance(axis, (numbers.Integral, np.integer)) or \
                isinstance(axis, (bool, np.bool_)):
            raise TypeError("%s: axis must be an int or None, got %r"
                            % (what, axis))
        if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
            raise ValueError("%s: axis %d is out of bounds for an array of "
                             "rank %d" % (what, axis, x.ndim))
        axis = int(axis) % max(x.ndim, 1)
    if x.ndim == 0:
        return wrap(np.int64(0))
    red = range(x.ndim) if axis is None else [axis]
    for a in red:
        if x.dims[a] is not ONE:
            ctx.nonempty.append((x.dims[a], "attempt to get %s of an empty "
                                 "sequence" % what.split(".")[-1]))
    pos = _positions(x, axis)
    floating = T.kind(x.dtype) == "f"

    def better(b, a):
        return b > a if largest else b < a

    def pick(acc, e):
        av, ai = acc
        bv, bi = e
        take = (ai < 0) | better(bv, av)
        if floating:
            take = take | ((bv != bv) & (av == av))
        return where(take, bv, av), where(take, bi, ai)

    init = (np.zeros((), x.dtype)[()], np.int64(-1))
    return reduce_tuple((x, pos), pick, init, axis=axis, keepdims=keepdims,
                        what=what)[1]


def argmax(x, axis=None, keepdims=False):
    """np.argmax: the position of the first largest element along axis (of
    the flattened array for None; the first NaN if there is one), int64.
    An empty array (or axis) raises ValueError before the run."""
    return _arg_extreme(x, axis, keepdims, True, "fuse.argmax")


def argmin(x, axis=None, keepdims=False):
    """np.argmin: as argmax, the first smallest element (the first NaN if
    there is one)."""
    return _arg_extreme(x, axis, keepdims, False, "fuse.argmin")
