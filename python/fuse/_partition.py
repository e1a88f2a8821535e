"""The selection family of traced functions, composed from fuse's own ops:
fuse.topk (a stable sort carrying the indices, then a gather of the first
k) and fuse.partition (two compactions, then one pass that puts them one
after the other)."""

import numbers

import numpy as np

from . import _types as T
from ._algorithms import _sorted
from ._ir import Sym, current
from ._sym import (SymArray, as_sym, broadcast_1d, filter_, gather, iota,
                   materialize, materialize_many, size_array, where, wrap)


def _known_before_run(sym):
    """Whether the size sym is known before the compiled code runs (an
    argument's length, a constant, a 0-d integer argument): the sizes
    Pipeline.check can read."""
    r = sym.find()
    return r.checkable or (r.kind == "scalar" and
                           r.src.ssa.startswith("%arg"))


def _k_size(k, n, what):
    """The Sym of topk's k: a Python or NumPy integer (checked against a
    constant length here), x.shape[i] or a 0-d integer argument; k <= n
    (and k >= 0 for a runtime k) is checked before each run."""
    ctx = current()
    if isinstance(k, (bool, np.bool_)):
        raise TypeError("%s: k must be an integer, got a bool" % what)
    if isinstance(k, (numbers.Integral, np.integer)):
        k = int(k)
        if k < 0:
            raise ValueError("%s: k must be >= 0, got %d" % (what, k))
        r = n.find()
        if r.kind == "const" and r.src < k:
            raise ValueError("%s: k is %d but the input has only %d elements"
                             % (what, k, r.src))
        ks = Sym("const", k)
    elif isinstance(k, SymArray):
        if k.ndim != 0 or T.kind(k.dtype) not in "su":
            raise TypeError("%s: k must be an integer (a Python int, "
                            "x.shape[i] or a 0-d integer argument), got a "
                            "%d-d %s array" % (what, k.ndim, k.dtype))
        ks = as_sym(k, what + " k")
        if not _known_before_run(ks):
            raise ValueError("%s: k is computed while running; it must be "
                             "known before the run (a Python int, x.shape[i] "
                             "or a 0-d integer argument)" % what)
        ctx.at_least.append((ks, Sym("const", 0), what + ": k must be at "
                             "least %d, got %d"))
    else:
        raise TypeError("%s: k must be an integer, got %s"
                        % (what, type(k).__name__))
    if not _known_before_run(n):
        raise ValueError("%s: the input's length is known only while running "
                         "(a filter's count, say), so k cannot be checked "
                         "against it before the run; take the top k of an "
                         "array whose length is an argument's or a constant"
                         % what)
    ctx.at_least.append((n, ks, what + ": k is %d but the input has only %d "
                         "elements"))
    return ks


def topk(x, k, largest=True, sorted=True):  # noqa: A002 (torch's name)
    """(values, indices): the k largest elements of the 1-d x (the k
    smallest with largest=False) in order, largest first (smallest first),
    and their int64 positions in x, as torch.topk(x, k, largest=largest):
    values is x[indices], bit for bit. Equal elements come in index order
    (the lower position first), -0.0 and +0.0 being equal; every NaN
    (whatever its sign bit) counts as larger than every number, as in
    torch: first with largest=True, last with largest=False, NaNs in index
    order. k: a Python int (or x.shape[i], or a 0-d integer argument)
    with 0 <= k <= len(x); a larger k raises ValueError naming fuse.topk,
    while tracing where both are constants, else before the run. The
    result is always sorted: sorted=False (which lets torch return any
    order) gives the same arrays.

    Composed from fuse's ops: one pass that makes the sort keys (NaNs made
    one positive NaN), a stable sort of (key, position) pairs (descending
    for largest; on the GPU CUB's radix sort, O(n log n) work whatever k),
    and gathers of the first k positions and of x at them."""
    what = "fuse.topk"
    x = wrap(x)
    if x.ndim != 1:
        raise ValueError("%s: the input must have rank 1, got rank %d"
                         % (what, x.ndim))
    for name, v in (("largest", largest), ("sorted", sorted)):
        if v not in (True, False):
            raise TypeError("%s: %s must be True or False, got %r"
                            % (what, name, v))
    n = x.dims[0]
    ks = _k_size(k, n, what)
    if T.kind(x.dtype) == "f":
        # One NaN key for every NaN: the radix order puts a NaN whose sign
        # bit is set (x86's inf - inf) before -inf, np.nan after +inf.
        nan = np.asarray(np.nan, x.dtype)[()]
        keys = where(x != x, nan, x)
        x, keys = materialize_many([x, keys])
    else:
        keys = x
    _, order = _sorted(keys, iota(x.shape[0], np.int64), bool(largest), what)
    idx = gather(order, iota(size_array(ks), np.int64))
    return gather(x, idx), idx


def _flags(pred, what):
    """pred, checked to give booleans of its arrays' shape (a message that
    names `what`)."""
    def flags(*v):
        f = wrap(pred(*v))
        if f.dtype != np.bool_:
            raise TypeError("%s: the predicate must return booleans, got %s"
                            % (what, f.dtype))
        if f.ndim != 1 or f.dims[0] == 1 or \
                f.dims[0].find() is not v[0].dims[0].find():
            raise ValueError("%s: the predicate must give one boolean per "
                             "element (elementwise), got %d-d booleans"
                             % (what, f.ndim))
        return f
    return flags


def partition(x, pred):
    """(partitioned, count): the elements of the 1-d x where pred holds,
    in order, then the others, in order (a stable partition, as C++'s
    std::stable_partition), and how many hold pred (the length of the
    first part: an int64 0-d result, as x.sum()'s, a NumPy int64 on the
    CPU and a 0-d device array on the GPU, where it is computed). pred
    works elementwise (lambda a: a > 0) and must give booleans. x may be
    a tuple of arrays of one length: pred then gets one value per array
    (lambda k, v: k > 0), every array is partitioned alike, and the
    result is the partitioned arrays, then the count (one flat tuple, as
    a fuse function returns). Unlike numpy.partition (an order around a
    k-th element), this splits by a predicate.

    Composed from fuse's ops: two compactions of x (fuse.filter with pred
    and with its negation; an elementwise pred is computed in each), one
    pass over the n outputs, result[i] = kept[i] if i < count else
    rest[i - count] (two gathers and a select), and a one-element pass
    that gives the count."""
    what = "fuse.partition"
    ctx = current()
    single = not isinstance(x, (tuple, list))
    xs = [wrap(a) for a in ([x] if single else x)]
    if not xs:
        raise ValueError("%s: needs at least one array" % what)
    for k, a in enumerate(xs):
        if a.ndim != 1:
            raise ValueError("%s: the input%s must have rank 1, got rank %d"
                             % (what, "" if single else " %d" % k, a.ndim))
        ctx.unify(xs[0].dims[0], a.dims[0])
    if not callable(pred):
        raise TypeError("%s: pred must be a function" % what)
    # pred is traced once, on the arrays both filters read: an elementwise
    # pred is computed inside each filter, anything else it computes (a
    # reduction, x.mean()) once before them.
    xs = [materialize(a) for a in xs]
    flags = _flags(pred, what)(*xs)
    kept = filter_(tuple(xs), lambda *_: flags)
    rest = filter_(tuple(xs), lambda *_: ~flags)
    count = kept[0].shape[0]
    i = iota(xs[0].shape[0], np.int64)
    # Positions past a part read 0 (gather's rule); where() picks the
    # part each position belongs to.
    out = tuple(where(i < count, gather(a, i), gather(b, i - count))
                for a, b in zip(kept, rest))
    # The count as an array computed from the filter's count where it
    # lives (on the GPU, the device: the entry returns the counts of the
    # filters it returns, and `kept` is not one), a reduction of one
    # element.
    return out + (broadcast_1d(count, Sym("const", 1)).sum(),)
