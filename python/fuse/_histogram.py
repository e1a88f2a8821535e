"""fuse.histogram (and np.histogram inside a traced function): NumPy's
histogram, as one fused pass that computes each element's bin and counts
it (fuse.histogram, the dialect op, counts bin indices).

Even bins follow numpy.lib._histograms_impl exactly: the outer edges from
`range` or from the data's minimum and maximum (widened by 0.5 when they
are equal), the bin dtype np.result_type(first, last, a) (a float), the
edges np.linspace(first, last, bins + 1, dtype=bin dtype) and each value's
bin ((x - first) / (last - first)) * bins truncated, then corrected against
the two edges around it. Every dtype of that computation is NumPy's,
found by asking NumPy about values of the same types (NEP 50: Python
numbers are weak), and the edges the corrections read are computed inline
as linspace computes them (in float32 where that gives the same bits,
_exact_f32_edges), so the bin of a value is arithmetic in the map that
feeds the count: no table, one pass.

Bins given as an array of edges are a fuse.searchsorted of each value in
them (side right, minus one), the last bin closed; the bin count is then
dynamic (the number of edges minus one).
"""

import numbers
import operator

import numpy as np

from . import _types as T
from ._ir import Sym, TensorVal, current
from ._algorithms import argsort
from ._segments import reduce_segments
from ._sym import (SymArray, _reduce_builtin, broadcast_1d, cast, const,
                   gather, iota, leaf, materialize, size_array, where, wrap)


def count_bins(bins, nbins, dtype=np.int64):
    """fuse.histogram of the integer bin indices `bins` (any rank):
    counts[b] = how many equal b, for b in [0, nbins), as `dtype` (int32 or
    int64). nbins: an int (a static count), or (an `index` SSA value, the
    Sym that stands for it) for a dynamic count (a Sym of kind "tensor"
    without a source becomes the result's own size)."""
    ctx = current()
    b = materialize(bins)
    if T.kind(b.dtype) not in "su":
        b = materialize(cast(bins, np.int64))
    r = ctx.fresh("h")
    if isinstance(nbins, int):
        tv = TensorVal(r, dtype, [Sym("const", nbins)], static=(nbins,))
        ctx.emit("%s = fuse.histogram %s : %s -> %s" % (
            r, b.tv.ssa, b.tv.type, tv.type))
        return leaf(tv)
    index, sym = nbins
    tv = TensorVal(r, dtype, [sym])
    if sym.kind == "tensor" and sym.src is None:
        sym.src = (tv, 0)
    ctx.emit("%s = fuse.histogram %s bins(%s) : %s -> %s" % (
        r, b.tv.ssa, index, b.tv.type, tv.type))
    return leaf(tv)


# ---- NumPy's even bins -------------------------------------------------------

def _unsigned_subtract(a, b):
    """numpy's _unsigned_subtract(a, b) of two numbers (a >= b): the
    difference in their result type, an unsigned one for signed integers."""
    dt = np.result_type(a, b)
    if dt.kind == "i":
        return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt),
                           casting="unsafe", dtype="u%d" % dt.itemsize)
    return np.subtract(a, b, dtype=dt)


def _proto(v):
    """A number of v's NumPy type, for the dtype rules: a Python number
    stays a Python number (weak), a symbolic value becomes a NumPy scalar of
    its dtype (strong, or a Python number where it is weak)."""
    if isinstance(v, SymArray):
        if v.weak:
            return {"f": 0.0, "b": False}.get(T.kind(v.dtype), 0)
        return v.dtype.type(0)
    return v


class _Even:
    """NumPy's even bins for one choice of the outer edges `first` and
    `last` (numbers, or 0-d symbolic values), `nbins` bins of data of
    `dtype`: the dtypes of every step of numpy.histogram's computation."""

    def __init__(self, first, last, dtype, nbins):
        self.nbins = nbins
        fp, lp = _proto(first), _proto(last)
        a = np.empty(0, dtype)
        bt = np.result_type(fp, lp, a)
        if bt.kind in "iub":
            bt = np.result_type(bt, float)
        self.bin_t = bt
        self.lin_t = np.linspace(fp, lp, 2).dtype
        self.sub_t = np.result_type(np.empty(0, bt), fp)
        if isinstance(first, SymArray) or isinstance(last, SymArray):
            dt = np.result_type(lp, fp)
            first, last = wrap(first), wrap(last)
            if dt.kind == "i":
                ut = np.dtype("u%d" % dt.itemsize)
                self.denom = cast(cast(last, dt), ut) - cast(cast(first, dt),
                                                             ut)
            else:
                self.denom = cast(last, dt) - cast(first, dt)
            dp = self.denom.dtype.type(1)
        else:
            d = _unsigned_subtract(last, first)
            self.denom, dp = const(d), d
        self.div_t = np.result_type(np.empty(0, self.sub_t), dp)
        self.scale = None
        if not isinstance(first, SymArray) and \
                not isinstance(last, SymArray) and \
                _well_conditioned(first, last, nbins, bt):
            self.scale = const(bt.type(nbins / (float(last) - float(first))))
        self.first, self.last = wrap(first), wrap(last)
        # (start, step) of float32 edges computed exactly (_exact_f32_edges)
        self.f32_edges = None
        if self.scale is not None:
            self.f32_edges = _exact_f32_edges(first, last, nbins, bt,
                                              self.lin_t)

    def edge(self, i):
        """Edge i (an int64 array, 0 <= i <= nbins) of np.linspace(first,
        last, nbins + 1, dtype=bin dtype): i * step + first in linspace's
        dtype ((i / nbins) * delta where the step is 0), the last edge
        `last`, cast to the bin dtype."""
        n = self.nbins
        if self.f32_edges is not None:
            start32, step32 = self.f32_edges
            return cast(i, np.float32) * const(step32) + const(start32)
        start, stop = cast(self.first, self.lin_t), cast(self.last,
                                                         self.lin_t)
        delta = stop - start
        step = delta / n
        fi = cast(i, self.lin_t)
        y = where(step == 0, (fi / n) * delta, fi * step) + start
        return cast(where(i == n, stop, y), self.bin_t)

    def _near_edge_bin(self, xb):
        """The bin of xb (in the bin dtype, inside [first, last]) where the
        bins are wide (_well_conditioned): the estimate, one multiply, lies
        within a sixteenth of a bin of xb's place, so the edge nearest to
        it, k, is the upper or the lower edge of xb's bin (the edges are
        within a 128th of a bin of their places): the bin is k - 1 below
        edge k, else k, and `last` is in the last bin. That is the bin the
        edges give, which is NumPy's: one edge a value instead of NumPy's
        two corrections."""
        n = self.nbins
        f = (xb - cast(self.first, self.bin_t)) * self.scale
        f = where(f >= 0, where(f < n, f, n), 0)   # NaN: outside `keep`
        k = cast(f + 0.5, np.int32)
        i = where(xb < self.edge(k), k - 1, k)
        return cast(where(i > n - 1, n - 1, i), np.int64)

    def bin(self, x):
        """numpy.histogram's bin of each element of x, -1 outside [first,
        last] (and for NaN)."""
        n = self.nbins
        keep = (x >= self.first) & (x <= self.last)
        xb = cast(x, self.bin_t)
        if self.scale is not None:
            return where(keep, self._near_edge_bin(xb), -1)
        num = cast(xb, self.sub_t) - cast(self.first, self.sub_t)
        f = (cast(num, self.div_t) / cast(self.denom, self.div_t)) * n
        # Truncated as astype(intp); values outside [0, n] (NaN included)
        # only arise outside `keep`, and are clamped to keep the
        # conversion defined.
        f = where(f >= 0, where(f < n, f, n), 0)
        i = cast(f, np.int64)
        i = where(i == n, n - 1, i)
        i = where(xb < self.edge(i), i - 1, i)
        i = where((xb >= self.edge(i + 1)) & (i != n - 1), i + 1, i)
        return where(keep, i, -1)


def _well_conditioned(first, last, nbins, bt):
    """Whether the bins of the constant range [first, last] are wide
    enough against the bin dtype's rounding that any estimate within a
    sixteenth of a bin of a value's position lands within one bin of the
    bin its edges give; NumPy's two corrections then return that bin
    whichever estimate they start from. With a bin at least 64 ulps wide
    (at the range's largest magnitude) and at most 2^20 bins, the edges are
    within a 128th of a bin of their exact places, and so are
    (x - first) * (bins / (last - first)) in the bin dtype (within a
    sixteenth of a bin) and NumPy's float64 quotient: NumPy's corrections
    then give the edges' answer, which _Even._near_edge_bin finds from the
    one edge nearest to the cheap estimate."""
    first, last = float(first), float(last)
    if not (last > first) or nbins > 1 << 20:
        return False
    ulp = float(np.spacing(bt.type(max(abs(first), abs(last)))))
    return (last - first) / nbins >= 64 * ulp


def _exact_f32_edges(first, last, nbins, bt, lin_t):
    """(start, step), float32, where float32 arithmetic gives NumPy's
    float32 edges of the constant range [first, last] exactly: edge k is
    k * step + start for every k in [0, nbins], the product and the sum
    each exact in float32 (so a fused multiply-add or two rounded
    operations give the same bits), which spares the float64 arithmetic
    of linspace's dtype; else None (checked on every edge, in float64
    where these products are exact and the sums' errors are measured).
    E.g. 256 bins over [-4, 4): every edge a multiple of 2^-5."""
    if bt != np.float32 or lin_t != np.float64 or nbins > 1 << 24:
        return None
    with np.errstate(all="ignore"):
        ref = np.linspace(first, last, nbins + 1, dtype=bt)
        start = np.float32(float(first))
        step = np.float32((float(last) - float(first)) / nbins)
        k = np.arange(nbins + 1, dtype=np.float64)
        prod = k * np.float64(step)               # exact: 24 + 25 bits
        a, b = prod, np.float64(start)
        s = a + b
        bb = s - a
        err = (a - (s - bb)) + (b - bb)           # TwoSum: s + err = a + b
        exact = (np.all(prod == prod.astype(np.float32)) and
                 np.all(err == 0) and np.all(s == s.astype(np.float32)) and
                 np.array_equal(s.astype(np.float32), ref))
    return (start, step) if exact else None


def _outer_edges(rng):
    """numpy's _get_outer_edges for a given range: its checks, and equal
    edges widened by 0.5."""
    try:
        first, last = rng
    except (TypeError, ValueError):
        raise TypeError("fuse.histogram: range must be a pair (min, max), "
                        "got %r" % (rng,)) from None
    ends = []
    for v in (first, last):
        if isinstance(v, SymArray):
            raise TypeError(
                "fuse.histogram: range must be numbers known when the "
                "function is traced (written in it, not its arguments); "
                "with range=None the edges come from the data's minimum "
                "and maximum on the device")
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v[()]
        if not isinstance(v, (numbers.Real, np.integer, np.floating)) or \
                isinstance(v, (bool, np.bool_)):
            raise TypeError("fuse.histogram: range must hold two numbers, "
                            "got %r" % (rng,))
        ends.append(v)
    first, last = ends
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"supplied range of [{first}, {last}] is not "
                         "finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _isfinite(v):
    return abs(v) < np.inf


def _size_of(x):
    """The number of elements of x, a 0-d int64 (1 for a 0-d x)."""
    n = None
    for d in x.dims:
        if isinstance(d, Sym):
            s = size_array(d)
            n = s if n is None else n * s
    return const(1, np.int64) if n is None else n


def _quiet_extreme(x, kind):
    """x.min() / x.max() without the non-empty check: an empty x gives the
    reduction's identity, which the caller does not use."""
    ctx = current()
    k = len(ctx.nonempty)
    r = _reduce_builtin(x, kind, None, False)
    del ctx.nonempty[k:]
    return r


def _even(x, nbins, rng):
    """(bins of x, edges as a function of an index array, bad): NumPy's
    even bins. bad (a 0-d bool or None) is where NumPy would raise on the
    data's range: non-finite, or too narrow for distinct edges."""
    dt = x.dtype
    if rng is not None:
        first, last = _outer_edges(rng)
        # NumPy's own edges on an empty array of x's dtype: the errors it
        # raises for this range and bin count, exactly (too many bins).
        np.histogram_bin_edges(np.empty(0, dt), nbins, rng)
        e = _Even(first, last, dt, nbins)
        return e.bin(x), e.edge, None
    lo, hi = _quiet_extreme(x, "min"), _quiet_extreme(x, "max")
    empty = _size_of(x) == 0
    same = lo == hi
    zero_one = _Even(0, 1, dt, nbins)      # an empty array's range: (0, 1)
    if T.kind(dt) == "f":
        # first == last widens by 0.5 in x's dtype: one rule, its edges
        # chosen on the device.
        e = _Even(where(same, lo - 0.5, lo), where(same, hi + 0.5, hi), dt,
                  nbins)
        bins = e.bin(x)

        def edge(i):
            return where(empty, zero_one.edge(i), e.edge(i))
        # An empty x has no extremes (its reductions' identities, unused).
        bad = ~(_isfinite(lo) & _isfinite(hi) | empty)
    else:
        # Integers: the widened edges are floats, another rule. Every
        # element equals the minimum then, so its bin is the minimum's.
        e = _Even(lo, hi, dt, nbins)
        w = _Even(lo - 0.5, hi + 0.5, dt, nbins)
        bins = where(same, w.bin(lo), e.bin(x))

        def edge(i):
            return where(empty, zero_one.edge(i),
                         where(same, w.edge(i), e.edge(i)))
        bad = None
    j = iota(nbins, np.int64)
    narrow = (edge(j) >= edge(j + 1)).any()
    bad = narrow if bad is None else bad | narrow
    return where(bad, -1, bins), edge, bad


# ---- bins given by edges -----------------------------------------------------

def _by_edges(x, edges):
    """(bins of x, the bin count's (index, Sym)): x falls in bin i where
    edges[i] <= x < edges[i + 1], the last bin closed, as numpy.histogram
    with an edge array (which counts through searchsorted of the edges in
    the sorted data, in the data's and edges' common dtype)."""
    from ._algorithms import searchsorted
    ctx = current()
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if edges.dtype == np.bool_:
        raise TypeError("fuse.histogram: bin edges must be numbers, got "
                        "bool")
    p = searchsorted(edges, x, side="right")
    ne = size_array(edges.dims[0])
    dt, _ = T.promote(edges.dtype, edges.weak, x.dtype, x.weak)
    # p == len(edges): x is at or past the last edge; only x == edges[-1]
    # counts (in the last bin).
    on_last = cast(x, dt) == cast(gather(edges, p - 1), dt)
    bins = where(p == ne, where(on_last, ne - 2, -1), p - 1)
    d = ctx.index_of(edges.dims[0])
    one, zero, s, nb = (ctx.fresh("c"), ctx.fresh("c"), ctx.fresh(),
                        ctx.fresh("d"))
    ctx.emit("%s = arith.constant 1 : index" % one)
    ctx.emit("%s = arith.constant 0 : index" % zero)
    ctx.emit("%s = arith.subi %s, %s : index" % (s, d, one))
    ctx.emit("%s = arith.maxsi %s, %s : index" % (nb, s, zero))
    return bins, (nb, Sym("tensor", None))


def _constant_edges(bins):
    """A NumPy array of edges from a constant `bins` (a list or array), or
    None when bins is symbolic."""
    if isinstance(bins, SymArray):
        return None
    if isinstance(bins, (list, tuple)) and any(isinstance(b, SymArray)
                                               for b in bins):
        raise TypeError("fuse.histogram: bins mixes symbolic and constant "
                        "values; pass the edges as one array")
    return np.asarray(bins)


def _by_constant_edges(x, e):
    """Bins against edges known when tracing: the in-range test and a count
    of the inner edges at or below x (edges repeated count twice: the
    empty bin between them is skipped, as a search would)."""
    if e.dtype == np.bool_ or not T.is_supported(e.dtype):
        raise TypeError("fuse.histogram: bin edges of dtype %s are not "
                        "supported" % e.dtype)
    if len(e) > 256:
        raise TypeError("fuse.histogram: %d constant bin edges; pass more "
                        "than 256 edges as an argument of the function (an "
                        "array the search reads)" % len(e))
    if np.any(e[:-1] > e[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    n = max(len(e) - 1, 0)
    if n == 0:
        return where(x == x, -1, -1), 0
    dt, _ = T.promote(e.dtype, False, x.dtype, x.weak)
    xc = cast(x, dt)
    ec = [const(v) for v in e.astype(dt)]
    bins = const(0, np.int64)
    for c in ec[1:-1]:
        bins = bins + cast(xc >= c, np.int64)
    return where((xc >= ec[0]) & (xc <= ec[-1]), bins, -1), n


# ---- the front end -----------------------------------------------------------

def histogram(a, bins=10, range=None, density=None, weights=None):
    """numpy.histogram(a, bins, range, density) inside a fuse function:
    (counts, bin_edges), counts int64. `a` of any rank is counted as
    flattened. bins: an int (known when tracing: a static count), or the
    bin edges, an increasing 1-d array (the count is then len(edges) - 1,
    dynamic; the result for edges that are not increasing is unspecified,
    where NumPy raises) or a list of at most 256 numbers. range: two
    numbers known when tracing, or None (the data's minimum and maximum,
    computed on the device: where NumPy raises because they are not finite
    or too close for distinct edges, the edges are NaN and nothing is
    counted). density=True: counts / (total * bin widths), float64.
    weights: an array of a's shape; each bin then holds the sum of its
    elements' weights in the weights' dtype (_weighted)."""
    x = wrap(a)
    if x.dtype == np.bool_:
        x = cast(x, np.uint8)        # as NumPy does (it warns)
    if x.ndim == 0:
        x = broadcast_1d(x, Sym("const", 1))
    if isinstance(bins, np.ndarray) and bins.ndim == 0:
        bins = bins[()]
    if isinstance(bins, str):
        raise TypeError("fuse.histogram: bin estimators (bins=%r) are not "
                        "supported; give a number of bins or the edges"
                        % bins)
    if isinstance(bins, (numbers.Integral, np.integer)) and not isinstance(
            bins, (bool, np.bool_)):
        n = operator.index(bins)
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        b, edge, bad = _even(x, n, range)
        counts = _counts(x, b, n, weights)
        i = iota(n + 1, np.int64)
        edges = edge(i)
        if bad is not None:
            edges = where(bad, np.nan, edges)
        if density:
            j = iota(n, np.int64)
            widths = edge(j + 1) - edge(j)
            return _density(counts, widths), edges
        return counts, edges
    if isinstance(bins, SymArray) and bins.ndim == 0:
        raise TypeError("fuse.histogram: a bin count must be known when "
                        "tracing (a Python int), not a symbolic value")
    e = _constant_edges(bins)
    if e is not None:
        if e.ndim == 0:
            raise TypeError("`bins` must be an integer, a string, or an "
                            "array")
        if e.ndim != 1:
            raise ValueError("`bins` must be 1d, when an array")
        b, n = _by_constant_edges(x, e)
        counts = _counts(x, b, n, weights)
        edges = const_array(e)
        if density:
            return _density(counts, None, e), edges
        return counts, edges
    edges = wrap(bins)
    b, nb = _by_edges(x, edges)
    counts = _counts(x, b, nb, weights)
    if density:
        j = iota(counts.shape[0], np.int64)
        widths = gather(edges, j + 1) - gather(edges, j)
        return _density(counts, widths), edges
    return counts, edges


def _counts(x, b, nbins, weights):
    """The histogram of the bin indices b: counts (int64), or with weights
    each bin's sum of weights (_weighted)."""
    counts = count_bins(b, nbins)
    if weights is None:
        return counts
    return _weighted(x, b, counts, weights)


def _weighted(x, b, counts, weights):
    """The sum of the weights of each bin, in the weights' dtype (NumPy's
    result dtype), deterministic on every backend: the elements sorted by
    bin (stable; those outside every bin, -1, first), then a segmented sum
    over the runs the counts delimit, accumulated in float64 (int64,
    uint64 for unsigned; NumPy's bincount accumulates in float64 too) and
    rounded once. No atomics: the same bits on every run."""
    w = wrap(weights)
    if x.ndim != 1 or w.ndim != 1:
        raise TypeError("fuse.histogram: weights= takes a 1-d array and 1-d "
                        "weights (pass a.ravel() and weights.ravel())")
    T.check_supported(w.dtype, "fuse.histogram weights")
    current().unify(x.dims[0], w.dims[0])
    k = T.kind(w.dtype)
    acc = np.dtype(np.float64 if k == "f" else
                   np.uint64 if k == "u" else np.int64)
    order = argsort(cast(b, np.int64))
    ws = gather(cast(w, acc), order)
    outside = size_array(x.dims[0]) - counts.sum()
    ends = np.cumsum(counts) + outside
    starts = ends - counts
    sums = reduce_segments([ws], starts, ends, kinds=["add"],
                           what="fuse.histogram weights")[0]
    return cast(sums, w.dtype)


def const_array(values):
    """A 1-d array of constants (a map over an iota that selects them)."""
    values = np.asarray(values)
    dt = T.check_supported(values.dtype, "fuse.histogram edges")
    i = iota(len(values), np.int64)
    if not len(values):
        return cast(i, dt)
    last = const(values[-1])
    r = where(i >= 0, last, last)
    for k in reversed(range(len(values) - 1)):
        r = where(i == k, const(values[k]), r)
    return r


def _density(counts, widths, const_edges=None):
    """numpy's density: n / np.array(np.diff(edges), float) / n.sum()."""
    if const_edges is not None:
        w = np.asarray(np.diff(const_edges), float)
        widths = const_array(w) if len(w) else None
        if widths is None:
            return cast(counts, np.float64)
    n = cast(counts, np.float64)
    total = cast(counts.sum(), np.float64)
    return n / cast(widths, np.float64) / total
