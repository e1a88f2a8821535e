"""fuse.compute.segmented_reduce in its two forms: cuda.compute's, with
start and end offset arrays (the dialect's fuse.segmented_reduce), and
fuse's equal-length rows (compute._segmented_rows, a reduction of the
rows of a matrix). fuse.compute exports segmented_reduce; the object form
(make_segmented_reduce) takes the same two forms."""

import numbers

import numpy as np

from . import _sym as S
from . import compute as C
from ._ir import Sym
from ._segments import reduce_segments

# Arguments only the offsets form has (cuda.compute's names).
_OFFSET_NAMES = ("start_offsets_in", "end_offsets_in", "max_segment_size")


def offsets_form(args, kwargs, at=2):
    """Whether a call's arguments are the offsets form: it names an offset
    argument, or its third argument (args[at], the op in the rows form) is
    an array or an iterator rather than an OpKind or a function."""
    if any(k in kwargs for k in _OFFSET_NAMES):
        return True
    if "segment_size" in kwargs or len(args) <= at:
        return False
    third = args[at]
    return not (isinstance(third, C.OpKind) or callable(third))


def segmented_reduce(*args, **kwargs):
    """Either form, told apart by the third argument (an offsets array or
    iterator, or the op) or the keywords used:

    segmented_reduce(d_in, d_out, start_offsets_in, end_offsets_in, op,
    h_init, num_segments, stream=None, max_segment_size=None) (the
    names of cuda.compute 1.1.1, which takes them as keywords):
    d_out[s] = h_init op d_in[p0] op d_in[p0 + 1] op ... over the
    positions start_offsets_in[s] <= p < end_offsets_in[s], in index
    order, for s < num_segments. Segments may overlap, leave gaps and come
    in any order; one whose end is not past its start gives h_init;
    offsets are clamped to [0, len(d_in)]. The offsets are int32 or int64
    arrays (other integer dtypes are converted to int64) or iterators;
    d_in is an array or an iterator over arrays (TransformIterator,
    ZipIterator, PermutationIterator: its length bounds the segments;
    its computation runs at the positions the segments read).
    max_segment_size, a hint in cuda.compute, is accepted and not used.

    segmented_reduce(d_in, d_out, op, h_init, num_segments, segment_size,
    stream=None) (fuse's): the num_segments rows of segment_size
    elements of d_in, d_out[s] = h_init op d_in[s * segment_size] op ...

    The accumulator has h_init's dtype (a Python number takes d_out's);
    op is an OpKind or a function of two values, as reduce_into's; the
    results are converted to d_out's dtype."""
    if offsets_form(args, kwargs):
        return _by_offsets(*args, **kwargs)
    return C._segmented_rows(*args, **kwargs)


def _length(it, name):
    """The number of elements of d_in (an array, or an iterator over
    arrays); unbounded iterators raise TypeError."""
    if isinstance(it, C.TransformIterator):
        return _length(it.it, name)
    if isinstance(it, C.ZipIterator):
        return min(_length(p, name) for p in it.its)
    if isinstance(it, C.PermutationIterator):
        return _length(it.indices, name)
    if isinstance(it, C._Iterator):
        raise TypeError("segmented_reduce: %s must be an array or an "
                        "iterator over arrays (its length bounds the "
                        "segments), not a %s" % (name, type(it).__name__))
    return C._size(C._check_array(it, name))


def _max_segment_size(v):
    if v is None:
        return
    if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (numbers.Integral, np.integer)) or v < 0:
        raise TypeError("segmented_reduce: max_segment_size must be None or "
                        "an int >= 0, got %r" % (v,))


@C._streamed
def _by_offsets(d_in, d_out, start_offsets_in, end_offsets_in, op, h_init,
                num_segments, stream=None, max_segment_size=None, *,
                _temp=C._OWN):
    ns = C._num_items(num_segments)
    _max_segment_size(max_segment_size)
    dd = C._check_out(d_out, "d_out", ns)
    init = C._scalar_value(h_init, "h_init", None if isinstance(
        h_init, (np.generic, np.ndarray)) else C._dtype(d_out))
    fn = C._binary_fn(op, "segmented_reduce")
    n = _length(d_in, "d_in")
    plan = C._new_plan(ns)
    plan.depends("segmented_reduce offsets", op, C._dtype(d_out).str)
    ni = plan.add("d_in.size", np.int64(n))
    src = C._plan_input(d_in, plan, n, "d_in")
    starts = C._plan_input(start_offsets_in, plan, ns, "start_offsets_in")
    ends = C._plan_input(end_offsets_in, plan, ns, "end_offsets_in")
    ii = plan.add("h_init", init)
    acc = init.dtype
    kind = C._BUILTIN_KIND.get(op) if acc != np.bool_ else None

    def build(params, nsym):
        x = S.cast(C._as_scalars(src(params, Sym("value", ni)),
                                 "segmented_reduce"), acc)
        s = C._as_scalars(starts(params, nsym), "segmented_reduce")
        e = C._as_scalars(ends(params, nsym), "segmented_reduce")
        what = "segmented_reduce"
        if kind is not None:
            r = reduce_segments([x], s, e, kinds=[kind], inits=[params[ii]],
                                what=what)[0]
        else:
            r = reduce_segments([x], s, e, fn=fn, inits=[params[ii]],
                                what=what)[0]
        return S.cast(r, C._dtype(d_out))
    return C._finish(d_out, C._run(plan, build, d_out, stream, dd, _temp),
                     ns, _temp, dd)
