"""Segment reductions of traced functions: fuse.segment_sum, segment_prod,
segment_min, segment_max and segment_reduce over CSR offsets (as
torch.segment_reduce's offsets=), and fuse.reduce_by_key over runs of
equal consecutive keys (CUB's DeviceReduce::ReduceByKey). All of them
emit the dialect's fuse.segmented_reduce (reduce_segments below, which
fuse.compute.segmented_reduce shares), whose group also computes the
offsets and what follows per segment, and recomputes a cheap map feeding
it at the positions it reads."""

import numbers

import numpy as np

from . import _types as T
from ._algorithms import equal_keys, run_ends, run_starts
from ._ir import Sym, TensorVal, current
from ._sym import (_KINDS as KINDS, SymArray, _dialect_kind, _emit_region,
                   _operand, _scalar_operand, _trace_combiner, cast, filter_,
                   gather, iota, leaf, materialize, size_array, wrap)

_OFFSET_TYPES = (np.dtype(np.int32), np.dtype(np.int64))


def offsets_of(o, what, name="offsets"):
    """o as segment offsets: int32 and int64 as they are, other integer
    dtypes as int64; bool, float and rank other than 1 raise."""
    o = wrap(o)
    if o.ndim != 1:
        raise ValueError("%s: %s must have rank 1, got rank %d"
                         % (what, name, o.ndim))
    if o.dtype in _OFFSET_TYPES:
        return o
    if T.kind(o.dtype) not in "su":
        raise TypeError("%s: %s must be integers (int32 or int64), got %s"
                        % (what, name, o.dtype))
    return cast(o, np.int64)


def _offset_pair(starts, ends, what):
    """starts and ends in one element type, int32 or int64, the dialect's
    rule (int64 unless both are int32)."""
    starts = offsets_of(starts, what, "the start offsets")
    ends = offsets_of(ends, what, "the end offsets")
    if starts.dtype != ends.dtype:
        starts, ends = cast(starts, np.int64), cast(ends, np.int64)
    return starts, ends


def reduce_segments(xs, starts, ends, kinds=None, fn=None, inits=None,
                    what="fuse.segmented_reduce"):
    """fuse.segmented_reduce of the rank-1 arrays xs (one length) over the
    segments [starts[s], ends[s]) (rank-1 integer arrays of one length,
    any order, overlapping or empty, clamped to the inputs by the op):
    one result per array, one element per segment, in its array's dtype.
    The combiner is `kinds` (the built-in kind of each array, as
    fuse.reduce's: "add", "mul", "min", "max"; unsigned and boolean
    min/max become umin/umax) or `fn` (acc, elem -> acc; for several
    arrays (accs), (elems) -> accs), traced into the op's region. inits:
    one initial value per array (numbers or 0-d arrays, taken as the
    array's dtype; needed with fn, else each kind's identity)."""
    ctx = current()
    xs = [wrap(x) for x in xs]
    for k, x in enumerate(xs):
        if x.ndim != 1:
            raise ValueError("%s: the input%s must have rank 1, got rank %d"
                             % (what, "" if len(xs) == 1 else " %d" % k,
                                x.ndim))
        ctx.unify(xs[0].dims[0], x.dims[0])
    starts, ends = _offset_pair(starts, ends, what)
    ctx.unify(starts.dims[0], ends.dims[0])
    if fn is not None:
        ps, res = _trace_combiner(fn, [x.dtype for x in xs],
                                  what + " combiner")
    lfs = [materialize(x) for x in xs]
    st, en = materialize(starts), materialize(ends)
    ivs = None
    if inits is not None:
        ivs = [_init_ssa(ctx, v, lf, what) for v, lf in zip(inits, lfs)]
    names = [ctx.fresh("sr") for _ in lfs]
    text = ""
    if kinds is not None:
        ks = [_dialect_kind(k, x.dtype) for k, x in zip(kinds, xs)]
        text = " " + (ks[0] if len(ks) == 1 else "(%s)" % ", ".join(ks))
    text += " " + ", ".join(lf.tv.ssa for lf in lfs)
    if ivs is not None:
        text += " init(%s : %s)" % (", ".join(ivs), ", ".join(
            lf.tv.elem for lf in lfs))
    rtypes = [T.tensor_type(lf.tv.storage, 1) for lf in lfs]
    ctx.emit("%s = fuse.segmented_reduce%s segments(%s, %s : %s, %s) : "
             "%s -> %s%s" % (", ".join(names), text, st.tv.ssa, en.tv.ssa,
                             st.tv.type, en.tv.type,
                             ", ".join(lf.tv.type for lf in lfs),
                             ", ".join(rtypes), " {" if fn else ""))
    if fn is not None:
        _emit_region(ctx, ps, res)
        ctx.emit("}")
    sym = st.tv.syms[0]
    return [leaf(TensorVal(r, x.dtype, [sym])) for r, x in zip(names, xs)]


def _init_ssa(ctx, v, lf, what):
    """The init operand of the op for input leaf lf: v (a number or a 0-d
    array) as lf's dtype (a Python int outside it raises OverflowError, as
    NumPy's initial=), stored as the input's element (a boolean on the GPU
    is a byte)."""
    dt = lf.dtype
    if isinstance(v, SymArray):
        v = _operand(v, dt)
    elif isinstance(v, (numbers.Number, np.generic)):
        _operand(wrap(v), dt)            # the range check
    s = _scalar_operand(ctx, v, dt, what + " initial")
    if lf.tv.storage != dt:
        e = ctx.fresh()
        ctx.emit("%s = arith.extui %s : %s to %s" % (
            e, s, T.mlir(dt), T.mlir(lf.tv.storage)))
        s = e
    return s


# ---- CSR offsets ------------------------------------------------------------

def _csr_segments(offsets, what):
    """(starts, ends) of the CSR offsets o (m + 1 entries, m segments):
    gathers of o at iota(m) and iota(m) + 1, computed in the segments'
    pass. An empty o raises before the run when its length is an
    argument's; m is max(len(o) - 1, 0)."""
    ctx = current()
    o = offsets_of(offsets, what)
    ctx.nonempty.append((o.dims[0], "%s: offsets must hold m + 1 entries "
                         "for m segments (the first segment's start, then "
                         "each segment's end), got none" % what))
    d = ctx.index_of(o.dims[0])
    one, zero, s, m = (ctx.fresh("c"), ctx.fresh("c"), ctx.fresh(),
                       ctx.fresh("d"))
    ctx.emit("%s = arith.constant 1 : index" % one)
    ctx.emit("%s = arith.constant 0 : index" % zero)
    ctx.emit("%s = arith.subi %s, %s : index" % (s, d, one))
    ctx.emit("%s = arith.maxsi %s, %s : index" % (m, s, zero))
    sym = Sym("tensor", None)
    ctx.index_memo[id(sym)] = m      # the segment count is that index
    ctx.alive.append(sym)
    i = iota(size_array(sym), np.int64)
    sym.src = (i.tv, 0)
    return gather(o, i), gather(o, i + 1)


def _builtin(op, what):
    """The fuse.reduce kind of a built-in op name, or None for a
    function."""
    if isinstance(op, str):
        if op not in KINDS:
            raise ValueError("%s: unknown op %r (expected one of %s or a "
                             "function)" % (what, op, sorted(set(KINDS))))
        return KINDS[op]
    if not callable(op):
        raise TypeError("%s: op must be a string or a function, got %r"
                        % (what, op))
    return None


def _reduce_runs(xs, starts, ends, op, initial, what):
    """The segment reduction of xs (one array, or a tuple for a function
    op) with op: a built-in kind (sums and products of booleans and
    integers narrower than 64 bits in int64 or uint64, the front end's
    .sum() rule; min and max in the array's dtype) or a function with
    `initial` (the accumulator's dtype is initial's when it is a NumPy
    scalar or a 0-d array, else the array's)."""
    kind = _builtin(op, what)
    single = not isinstance(xs, (tuple, list))
    xs = [wrap(x) for x in ([xs] if single else xs)]
    if not xs:
        raise ValueError("%s: needs at least one array" % what)
    if kind is not None:
        if not single:
            raise TypeError("%s: several arrays need a function op (a "
                            "built-in op reduces one array)" % what)
        x = xs[0]
        if kind in ("add", "mul"):
            x = cast(x, T.sum_dtype(x.dtype))
        inits = None if initial is None else [initial]
        return reduce_segments([x], starts, ends, kinds=[kind], inits=inits,
                               what=what)[0]
    if initial is None:
        raise ValueError("%s: a function op needs initial (the value of an "
                         "empty segment)" % what)
    inits = [initial] if single else initial
    if not isinstance(inits, (tuple, list)) or len(inits) != len(xs):
        raise ValueError("%s: initial must hold one value per array (%d)"
                         % (what, len(xs)))
    xs = [cast(x, v.dtype) if isinstance(v, (SymArray, np.generic)) else x
          for x, v in zip(xs, inits)]
    r = reduce_segments(xs, starts, ends, fn=op, inits=inits, what=what)
    return r[0] if single else tuple(r)


def segment_reduce(x, offsets, op="sum", initial=None):
    """The reduction of each segment x[offsets[s]:offsets[s + 1]] of the
    1-d x, s < m = len(offsets) - 1 (CSR offsets, torch.segment_reduce's
    offsets=): m results. op: "sum", "prod", "min", "max" (or "add",
    "mul", "maximum", "minimum") or a function combiner `lambda acc,
    elem: ...` with `initial`; x may be a tuple of arrays of one length
    for a function of (accs), (elems) (an argmax, say), which gives a
    tuple; a function must be associative, NaN included (fuse may
    regroup initial and a segment's elements, never reorder them).
    Elements combine in index order from `initial`, or from the op's
    identity without it: an empty segment (offsets[s + 1] <=
    offsets[s]) gives that (0 for sum, 1 for prod, +inf / the dtype's
    largest value for min, -inf / its smallest for max). Sums and
    products of booleans and integers narrower than 64 bits are int64
    (uint64 for unsigned), as x.sum() (NumPy's rule); other results have
    x's dtype. min and max propagate NaN, as fuse.reduce does. offsets:
    int32 or int64 (other integer dtypes are converted to int64), at
    least one entry; they are clamped to [0, len(x)] (positions outside
    x belong to no segment). One pass over the segments: the offsets are
    gathered in it, and an elementwise x (x * x) is computed at the
    positions it reads."""
    return _segment_reduce(x, offsets, op, initial, "fuse.segment_reduce")


def _segment_reduce(x, offsets, op, initial, what):
    if isinstance(x, (tuple, list)):
        xs = [wrap(v) for v in x]
    else:
        xs = [wrap(x)]
    for v in xs:
        if v.ndim != 1:
            raise ValueError("%s: x must have rank 1, got rank %d"
                             % (what, v.ndim))
    _builtin(op, what)
    starts, ends = _csr_segments(offsets, what)
    return _reduce_runs(x if isinstance(x, (tuple, list)) else xs[0],
                        starts, ends, op, initial, what)


def segment_sum(x, offsets):
    """The sum of each segment x[offsets[s]:offsets[s + 1]] (segment_reduce
    with "sum"): 0 for an empty segment; booleans and integers narrower
    than 64 bits sum in int64 (uint64 for unsigned), as x.sum()."""
    return _segment_reduce(x, offsets, "sum", None, "fuse.segment_sum")


def segment_prod(x, offsets):
    """The product of each segment (segment_reduce with "prod"): 1 for an
    empty segment; small integers multiply in int64 or uint64."""
    return _segment_reduce(x, offsets, "prod", None, "fuse.segment_prod")


def segment_min(x, offsets):
    """The minimum of each segment, in x's dtype (segment_reduce with
    "min"): NaN where the segment holds one, +inf (the largest integer)
    for an empty segment."""
    return _segment_reduce(x, offsets, "min", None, "fuse.segment_min")


def segment_max(x, offsets):
    """The maximum of each segment, in x's dtype (segment_reduce with
    "max"): NaN where the segment holds one, -inf (the smallest integer)
    for an empty segment."""
    return _segment_reduce(x, offsets, "max", None, "fuse.segment_max")


# ---- runs of equal keys -----------------------------------------------------

def reduce_by_key(keys, values, op="sum", initial=None):
    """(unique_keys, reduced): for every run of equal consecutive keys of
    the 1-d `keys`, its first key and the reduction of the `values` (1-d,
    keys' length) at its positions, in order of the runs; CUB's
    DeviceReduce::ReduceByKey (sort the keys first, with fuse.argsort, for
    a reduction per distinct key). op and initial as segment_reduce's
    (sums of small integers in int64 or uint64; a function needs
    initial, from which every run's elements combine in index order;
    values may then be a tuple of arrays, reduced together).
    Keys are equal as ==, except that NaNs are equal to each other
    (fuse.unique's rule): a run of NaN keys is one run; -0.0 and +0.0 are
    equal (the run keeps its first key). The runs' starts are found in
    one fused pass that compares each key with the one before it and
    compacts the starts (fuse.unique's), then the reduction runs over
    the runs; the length is result.shape[0]."""
    what = "fuse.reduce_by_key"
    ctx = current()
    k = wrap(keys)
    vs = [wrap(a) for a in values] if isinstance(values, (tuple, list)) \
        else [wrap(values)]
    for name, a in [("keys", k)] + [("values", a) for a in vs]:
        if a.ndim != 1:
            raise ValueError("%s: %s must have rank 1, got rank %d"
                             % (what, name, a.ndim))
        ctx.unify(k.dims[0], a.dims[0])
    _builtin(op, what)
    i, keep = run_starts(k, equal_keys(k.dtype), what)
    uk, starts = filter_((k, i), lambda *_: keep)
    ends = run_ends(starts, k.shape[0])
    v = tuple(vs) if isinstance(values, (tuple, list)) else vs[0]
    return uk, _reduce_runs(v, starts, ends, op, initial, what)
