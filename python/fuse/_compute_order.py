"""fuse.compute's ordering algorithms, with cuda.compute's keyword
arguments: lower_bound and upper_bound (fuse.searchsorted), radix_sort
and merge_sort (fuse.sort, the second with a comparator) and unique_by_key (a fused compare-with-previous and filter).
fuse.compute exports them; they use its argument checks, plans and
runner."""

import enum

import numpy as np

from . import _sym as S
from . import compute as C
from ._algorithms import _sorted, run_starts, searchsorted


def _binary_search(what, side, d_data, num_items, d_values, num_values,
                   d_out, comp, stream):
    m, n = C._num_items(num_items), C._num_items(num_values)
    if comp not in (None, C.OpKind.LESS):
        raise TypeError("%s: comp must be None or OpKind.LESS (an ascending "
                        "d_data); other comparators are not supported yet, "
                        "got %r" % (what, comp))
    if isinstance(d_data, C._Iterator):
        raise TypeError("%s: d_data must be an array (it is read at "
                        "searched positions), not an iterator" % what)
    dd = C._check_out(d_out, "d_out", n)
    if C._dtype(d_out) not in (np.dtype(np.int64), np.dtype(np.uint64)):
        raise TypeError("%s: d_out holds positions: expected int64 or "
                        "uint64, got %s" % (what, C._dtype(d_out)))
    data = C._check_array(d_data, "d_data")
    if data.shape[0] < m:
        raise ValueError("d_data: has %d elements but num_items is %d"
                         % (data.shape[0], m))
    plan = C._new_plan(n)
    plan.depends(what, C._dtype(d_out).str)
    ia = plan.add("d_data", data if data.shape[0] == m else data[:m])
    src = C._plan_input(d_values, plan, n, "d_values")

    def build(params, nsym):
        v = C._as_scalars(src(params, nsym), what)
        return S.cast(searchsorted(params[ia], v, side=side), C._dtype(d_out))
    C._write(d_out, C._run(plan, build, d_out, stream, dd), n)


@C._streamed
def lower_bound(*, d_data, num_items, d_values, num_values, d_out,
                comp=None, stream=None):
    """d_out[i] = the first position in the ascending d_data[:num_items]
    at which d_values[i] could be inserted keeping it sorted (the number of
    elements less than it), for i < num_values; cuda.compute's arguments.
    d_out is int64 or uint64. The comparison is fuse.searchsorted's: NaN
    after every number, unsigned integers as unsigned; d_values may be an
    iterator, whose computation fuses with the search."""
    _binary_search("lower_bound", "left", d_data, num_items, d_values,
                   num_values, d_out, comp, stream)


@C._streamed
def upper_bound(*, d_data, num_items, d_values, num_values, d_out,
                comp=None, stream=None):
    """As lower_bound, the last such position (the number of elements less
    than or equal to d_values[i])."""
    _binary_search("upper_bound", "right", d_data, num_items, d_values,
                   num_values, d_out, comp, stream)


class SortOrder(enum.Enum):
    """radix_sort's order (cuda.compute's names)."""
    ASCENDING = 0
    DESCENDING = 1


@C._streamed
def radix_sort(*, d_in_keys, d_out_keys, d_in_values=None, d_out_values=None,
               num_items, order, begin_bit=None, end_bit=None, stream=None,
               _temp=C._OWN):
    """Sorts d_in_keys[:num_items] into d_out_keys, stably, and moves
    d_in_values along into d_out_values when given; cuda.compute's
    arguments. The order is fuse.sort's (CUB's radix order: -0.0 equal to
    +0.0, NaN by its sign bit). d_in_keys may be an iterator, computed in
    the pass before the sort; begin_bit/end_bit only as the keys' full
    width; d_in_keys and d_in_values are left as they were."""
    if not isinstance(order, SortOrder):
        raise TypeError("radix_sort: order must be a fuse.compute.SortOrder, "
                        "got %r" % (order,))
    bits = 8 * C._dtype(d_out_keys).itemsize
    if begin_bit not in (None, 0) or end_bit not in (None, bits):
        raise TypeError("radix_sort: only the keys' full width is sorted "
                        "(begin_bit 0, end_bit %d), got %r and %r"
                        % (bits, begin_bit, end_bit))
    return _sort_into("radix_sort", d_in_keys, d_in_values, d_out_keys,
                      d_out_values, num_items, stream,
                      order is SortOrder.DESCENDING, None, _temp)


@C._streamed
def merge_sort(d_in_keys, d_in_items, d_out_keys, d_out_items, op, num_items,
               stream=None, *, _temp=C._OWN):
    """Sorts d_in_keys[:num_items] into d_out_keys by op, stably, and moves
    d_in_items along into d_out_items when given (both None otherwise);
    cuda.compute's arguments. op is OpKind.LESS, OpKind.GREATER or a
    function of two keys returning whether the first goes strictly before
    the second (a strict weak order; keys neither of which goes before the
    other keep their input order). d_in_keys may be an iterator. The GPU
    runs the generated merge sort of fuse.sort's comparator form."""
    less = C._binary_fn(op, "merge_sort")
    return _sort_into("merge_sort", d_in_keys, d_in_items, d_out_keys,
                      d_out_items, num_items, stream, False, less, _temp)


def _sort_into(what, d_in_keys, d_in_values, d_out_keys, d_out_values,
               num_items, stream, desc, less, temp):
    """radix_sort's and merge_sort's common part: the argument checks, the
    traced fuse.sort (in fuse.sort's key order, or by `less`) and the
    writes into d_out_keys and d_out_values. temp: the object form's
    _Temp (compute._run), which writes both outputs straight."""
    n = C._num_items(num_items)
    if (d_in_values is None) != (d_out_values is None):
        items = "items" if what == "merge_sort" else "values"
        raise ValueError("%s: give both d_in_%s and d_out_%s, or neither"
                         % (what, items, items))
    plan = C._new_plan(n)
    plan.depends(what, desc, d_in_values is None, less)
    keys = C._plan_input(d_in_keys, plan, n, "d_in_keys")
    vals = None if d_in_values is None else C._plan_input(
        d_in_values, plan, n, "d_in_values")
    dk = C._check_out(d_out_keys, "d_out_keys", n)
    dv = None if vals is None else C._check_out(d_out_values,
                                                 "d_out_values", n)
    for src, out, name in ((d_in_keys, d_out_keys, "keys"),
                           (d_in_values, d_out_values, "values")):
        if src is not None and not isinstance(src, C._Iterator) and \
                C._dtype(src) != C._dtype(out):
            raise TypeError("%s: the output %s have dtype %s, the input "
                            "%s %s (a sort does not convert)"
                            % (what, name, C._dtype(out), name,
                               C._dtype(src)))

    def build(params, nsym):
        k = C._as_scalars(keys(params, nsym), what)
        k = S.cast(S.wrap(k), C._dtype(d_out_keys))
        if vals is None:
            return _sorted(k, None, desc, what, less)[0]
        v = S.cast(S.wrap(C._as_scalars(vals(params, nsym), what)),
                   C._dtype(d_out_values))
        return tuple(_sorted(k, v, desc, what, less))
    # The caller's storage: every result straight into its output.
    direct = dk if vals is None or temp is C._OWN else {0: dk, 1: dv}
    r = C._run(plan, build, d_out_keys, stream, direct, temp)
    if C._answered(temp, dk):
        return r
    if vals is None:
        C._write(d_out_keys, r, n)
        return
    C._write(d_out_keys, r[0], n)
    C._write(d_out_values, r[1], n)


@C._streamed
def unique_by_key(*, d_in_keys, d_in_items, d_out_keys, d_out_items,
                  d_out_num_selected, op, num_items, stream=None,
                  _temp=C._OWN):
    """Keeps the first key and its item of every run of consecutive keys
    that op (an equality: OpKind.EQUAL_TO or a function of the previous key
    and the key) calls equal, in order, in d_out_keys and d_out_items, and
    their count in d_out_num_selected[0]; cuda.compute's arguments. One fused pass: each
    key is compared with the one before it and the kept pairs compacted."""
    n = C._num_items(num_items)
    eq = C._binary_fn(op, "unique_by_key")
    dc = C._check_out(d_out_num_selected, "d_out_num_selected", 1)
    dk = C._check_out(d_out_keys, "d_out_keys", 0)
    di = C._check_out(d_out_items, "d_out_items", 0)
    if _temp is not C._OWN and dc is not None:
        _temp.counts = {0: C._device_count(dc, "d_out_num_selected")}
    plan = C._new_plan(n)
    plan.depends("unique_by_key", op)
    keys = C._plan_input(d_in_keys, plan, n, "d_in_keys")
    items = C._plan_input(d_in_items, plan, n, "d_in_items")

    def build(params, nsym):
        k = S.wrap(C._as_scalars(keys(params, nsym), "unique_by_key"))
        v = S.wrap(C._as_scalars(items(params, nsym), "unique_by_key"))
        # op(previous key, key), as CUB's UniqueByKey asks it.
        _, keep = run_starts(k, eq, "unique_by_key")
        kk, kv = S.filter_((k, v), lambda a, b: keep)
        return kk, kv, kk.shape[0]
    # The caller's storage: both outputs straight, the count on the device.
    r = C._run(plan, build, d_out_keys, stream,
               dk if _temp is C._OWN else {0: dk, 1: di}, _temp)
    if C._answered(_temp, dk):
        return r
    kk, kv, count = r
    C._write_selected(d_out_keys, kk, count, "d_out_keys")
    C._write_selected(d_out_items, kv, count, "d_out_items")
    d_out_num_selected.reshape(-1)[0] = count
