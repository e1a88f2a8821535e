"""fuse.compute.three_way_partition, with cuda.compute's arguments: three
compactions of one input (fuse.filter), one for each part. fuse.compute
exports it; the object form is _compute_temp.make_three_way_partition."""

import numpy as np

from . import _sym as S
from . import _types as T
from . import compute as C

_COUNT_TYPES = (np.dtype(np.int64), np.dtype(np.uint64))


def _selector(op, name):
    """op (an OpKind or a function of one value) as a function giving
    booleans: integers select where nonzero (cuda.compute's predicates
    return uint8 1 or 0); other results raise TypeError."""
    fn = C._unary_fn(op, "three_way_partition")

    def select(v):
        f = S.wrap(fn(v))
        if f.dtype == np.bool_:
            return f
        if T.kind(f.dtype) in "su":
            return f != 0
        raise TypeError("three_way_partition: %s must return booleans or "
                        "integers (nonzero selects), got %s" % (name,
                                                                 f.dtype))
    return select


def _device_counts(d_num_selected_out):
    """The two count elements as 8-byte DeviceArrays, where the
    capture-safe form writes the counts on the device."""
    from . import gpu
    d = gpu.checked_device_array(d_num_selected_out, "d_num_selected_out")
    if d.dtype not in _COUNT_TYPES:
        raise TypeError("d_num_selected_out: with temp_storage the counts "
                        "are written on the device as 8 bytes each: "
                        "expected int64 or uint64, got %s" % d.dtype)
    flat = d_num_selected_out.reshape(-1)
    return {r: gpu.device_array(flat[r:r + 1], "d_num_selected_out")
            for r in (0, 1)}


@C._streamed
def three_way_partition(d_in, d_first_part_out, d_second_part_out,
                        d_unselected_out, d_num_selected_out,
                        select_first_part_op, select_second_part_op,
                        num_items, stream=None, *, _temp=C._OWN):
    """Splits d_in[:num_items] in three, each part in input order (a
    stable partition, CUB's three-way DevicePartition::If):
    d_first_part_out gets the items for which select_first_part_op
    holds, d_second_part_out those for which it does not and
    select_second_part_op does (an item both select is in the first part
    only), d_unselected_out the others, in input order (as CUB's kernel
    writes them and cuda.compute's tests expect; CUB's documentation says
    reverse order, which its example contradicts).
    d_num_selected_out[0] and [1] get the sizes of the first two parts;
    the unselected part has num_items minus both. cuda.compute 1.1.1's
    names, which it takes as keywords. The operators are OpKinds (unary)
    or functions of one value giving booleans or integers (nonzero
    selects); d_in may be an iterator over values. Each output needs room
    for its part (num_items is always enough); elements past a part stay
    as they were. Three compactions (fuse.filter) of d_in, each with its
    own predicate."""
    what = "three_way_partition"
    n = C._num_items(num_items)
    first = _selector(select_first_part_op, "select_first_part_op")
    second = _selector(select_second_part_op, "select_second_part_op")
    dc = C._check_out(d_num_selected_out, "d_num_selected_out", 2)
    names = ("d_first_part_out", "d_second_part_out", "d_unselected_out")
    outs = (d_first_part_out, d_second_part_out, d_unselected_out)
    direct = {r: C._check_out(o, name, 0)
              for r, (o, name) in enumerate(zip(outs, names))}
    if _temp is not C._OWN and dc is not None:
        _temp.counts = _device_counts(d_num_selected_out)
    plan = C._new_plan(n)
    plan.depends(what, select_first_part_op, select_second_part_op)
    src = C._plan_input(d_in, plan, n, "d_in")

    def build(params, nsym):
        x = S.materialize(S.wrap(C._as_scalars(src(params, nsym), what)))
        # Each predicate traced once; elementwise, both are computed
        # inside each filter.
        fa, fb = first(x), second(x)
        a = S.filter_(x, lambda _: fa)
        b = S.filter_(x, lambda _: ~fa & fb)
        c = S.filter_(x, lambda _: ~(fa | fb))
        return a, b, c, a.shape[0], b.shape[0], c.shape[0]
    # Direct (the entry writes a part into its d_out) where that d_out
    # holds num_items elements of the items' dtype; else copied and cast.
    r = C._run(plan, build, d_first_part_out, stream, direct, _temp)
    if C._answered(_temp, direct[0]):
        return r
    a, b, c, na, nb, nc = r
    for o, part, count, name in zip(outs, (a, b, c), (na, nb, nc), names):
        C._write_selected(o, part, count, name)
    flat = d_num_selected_out.reshape(-1)
    flat[0] = na
    flat[1] = nb
