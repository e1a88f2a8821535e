"""Value edges on the CPU backend (docs/reliability.md, row 12): NaN, +-Inf,
-0.0, denormals and the largest finite values through maps, comparisons and
selects, reductions, scans, filters and the variance / softmax workloads.

Every pipeline runs twice: as compiled by the package (fuse-to-cpu, fusion
on) and through the same IR lowered with fusion off
(`fuse-to-cpu=fusion=false`, fuse-run's --no-fusion). References are NumPy,
computed independently of fuse. Comparisons are exact (NaN == NaN, and the
sign of zeros is compared too) except for math functions on finite
arguments, which get a few ulp. The pipelines, input makers and references
live in edge_cases.py; test/Python/gpu_check.py (its edge section) runs
them on the GPU.

Where fuse's documented semantics differ from NumPy's defaults, the test
follows the documentation and says so:
  - float max/min propagate NaN (arith.maximumf/minimumf; FuseOps.td,
    docs/dialect.md "NaN policy"): the NumPy match is np.maximum / np.max,
    not np.fmax / np.nanmax;
  - a float32 add scan carries its prefix in float64 (docs/dialect.md,
    Numerics), so a prefix that overflows float32 and comes back into range
    is finite again (NumPy's float32 cumsum stays at inf).
"""

import copy

import numpy as np
import pytest

from fuse import _cpu

from edge_cases import (
    FLOATS, INF, NAN, arith, arith_ref, assert_same, compare_select,
    compare_select_ref, denormal_sum_input, edges, keep_nan, keep_positive,
    keep_positive_ref, math_fns, math_inputs, math_ref, maxmin, maxmin_ref,
    pairs, reduction_inf_cases, reduction_nan_input, reduction_nan_positions,
    reduction_ref, reductions, scan_nan_input, scan_overflow_input,
    scan_refs, scans, softmax_input, softmax_ref, softmax_rows, variance,
    variance_cases, variance_ref, zero_insensitive)


def unfused(f, *args):
    """Runs f's pipeline for args lowered with fusion off (fresh cache key:
    the pipeline name is part of it)."""
    p, arrays = f.specialize(*args)
    old = _cpu.PIPELINE
    _cpu.PIPELINE = "fuse-to-cpu=fusion=false"
    try:
        q = copy.copy(p)
        q._lib = _cpu.load(p.ir)
    finally:
        _cpu.PIPELINE = old
    return q.run(arrays)


def both(f, *args):
    """[(label, results)] for the fused and the unfused build."""
    out = []
    for label, res in (("fused", f(*args)), ("unfused", unfused(f, *args))):
        out.append((label, res if isinstance(res, tuple) else (res,)))
    return out


# ---- elementwise maps ---------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_arith_map(dtype):
    """IEEE arithmetic on all pairs of edge values: inf - inf and 0/0 are
    NaN, x/0 is +-inf with the sign of the zero, max * 2 overflows to inf,
    denormals are neither flushed on input nor on output (den * 0.5 is a
    smaller denormal, den * den underflows to +0.0)."""
    x, y = pairs(edges(dtype))
    ref = arith_ref(x, y)
    for label, got in both(arith, x, y):
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_same(g, r, "%s result %d" % (label, i))
    # Spot checks that do not depend on NumPy getting them right either.
    den = edges(dtype)[5:6]
    for label, g in both(arith, den, den):
        assert g[7][0] == den[0] / 2 and g[7][0] > 0, label  # denormal kept
        assert g[8][0] == 0 and not np.signbit(g[8][0]), label  # -> +0.0


@pytest.mark.parametrize("dtype", FLOATS)
def test_math_map(dtype):
    """exp/log/sqrt/tanh: NaN in -> NaN out, exp(-inf) = 0, exp(big) = inf,
    log(0) = -inf, log(<0) = NaN, log(inf) = inf, sqrt(-0.0) = -0.0,
    sqrt(<0) = NaN, tanh(+-inf) = +-1, tanh(-0.0) = -0.0; finite results
    within a few ulp of NumPy."""
    x = math_inputs(dtype)
    ref = math_ref(x)
    ulp_rtol = 4 * np.finfo(dtype).eps
    for label, got in both(math_fns, x):
        for name, g, r in zip(("exp", "log", "sqrt", "tanh"), got, ref):
            what = "%s %s" % (label, name)
            assert g.dtype == r.dtype, what
            special = ~np.isfinite(r) | (r == 0)
            # NaN, infinities and zeros (with their sign): exact.
            assert_same(g[special], r[special], what)
            # Finite non-zero results (denormal ones included: an absolute
            # floor of one denormal step).
            np.testing.assert_allclose(
                g[~special], r[~special], rtol=ulp_rtol,
                atol=np.finfo(dtype).smallest_subnormal * 4, err_msg=what)
    assert_same(math_fns(np.array([-0.0], dtype))[2], np.array([-0.0], dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_compare_and_select(dtype):
    """Ordered predicates are false on NaN (NaN < x, NaN == NaN are false),
    != is true (unordered-or-not-equal), -0.0 == +0.0; where() forwards the
    chosen operand bit for bit (NaN and -0.0 included)."""
    x, y = pairs(edges(dtype))
    ref = compare_select_ref(x, y)
    for label, got in both(compare_select, x, y):
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_same(g, r, "%s result %d" % (label, i))
    nan = np.array([NAN], dtype)
    lt, le, gt, ge, eq, ne = compare_select(nan, nan)[:6]
    assert not (lt[0] or le[0] or gt[0] or ge[0] or eq[0]) and ne[0]


@pytest.mark.parametrize("dtype", FLOATS)
def test_maximum_minimum_propagate_nan(dtype):
    """fuse.maximum/minimum are arith.maximumf/minimumf: NaN propagates
    (np.maximum / np.minimum), unlike np.fmax / np.fmin which drop it."""
    x, y = pairs(edges(dtype))
    ref = maxmin_ref(x, y)
    for label, got in both(maxmin, x, y):
        for i, (g, r) in enumerate(zip(got, ref)):
            assert_same(zero_insensitive(g), zero_insensitive(r),
                        "%s result %d" % (label, i))
        has_nan = np.isnan(x) | np.isnan(y)
        assert np.isnan(got[0][has_nan]).all()
        # The other variant would not match: the test can tell them apart.
        assert not np.isnan(np.fmax(x, y)[has_nan]).all()


# Was a bug (arith-expand ignored the sign of zero); fuse-to-cpu now uses
# fuse-expand-arith, which leaves maximumf/minimumf to llvm.maximum/minimum.
def test_signed_zero_elementwise():
    x = np.array([0.0, -0.0, -0.0, 0.0], np.float32)
    y = np.array([-0.0, 0.0, -0.0, 0.0], np.float32)
    mx, mn, _ = maxmin(x, y)
    np.testing.assert_array_equal(np.signbit(mx), [False, False, True, False])
    np.testing.assert_array_equal(np.signbit(mn), [True, True, True, False])


# ---- reductions ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_reductions_nan_anywhere(dtype):
    """A NaN at the first, a middle, the last position, or in a later
    1024-element block of the CPU's blocked sums, makes sum, max, min, prod
    and mean NaN (max/min: np.max/np.min, which propagate NaN; np.nanmax
    would not)."""
    for n in (1, 5, 3001):
        for pos in reduction_nan_positions(n):
            x = reduction_nan_input(n, pos, dtype)
            for label, got in both(reductions, x):
                for i, g in enumerate(got):
                    assert np.isnan(g), (label, n, pos, i)
    assert not np.isnan(np.nanmax(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_reductions_inf_and_overflow(dtype):
    """inf + -inf = NaN, inf + finite = inf, a sum past the largest finite
    value overflows to +-inf and stays there (inf - max = inf), 0 * inf =
    NaN, the product of large values overflows; max/min of infinities."""
    for c in reduction_inf_cases(dtype):
        x = np.array(c, dtype)
        ref = reduction_ref(x)
        for label, got in both(reductions, x):
            for i, (g, r) in enumerate(zip(got, ref)):
                assert_same(g, r, "%s %s result %d" % (label, c[:5], i))


@pytest.mark.parametrize("dtype", FLOATS)
def test_reductions_denormals_and_zeros(dtype):
    """Denormals are summed, compared and multiplied as themselves (no
    flush to zero); max/min of +-0.0 compare equal in value. The sum of
    -0.0 alone is +0.0: the add reduction starts from its init +0.0
    (docs/dialect.md: '0.0 + -0.0 = 0.0'), as np.sum does."""
    den = edges(dtype)[5]
    # 3000 denormals of alternating sign after 40 positive ones: every
    # partial sum stays below the smallest normal, where addition is exact
    # (fixed point), so any grouping gives exactly 40 * den.
    x = denormal_sum_input(dtype)
    ref = reduction_ref(x)
    assert ref[0] == dtype(40) * den
    for label, got in both(reductions, x):
        s, mx, mn, pr, mean = got
        assert s == ref[0], (label, s, ref[0])
        assert mx == den and mn == -den, label
        assert pr == 0, label                                # underflow
        assert mean == ref[4], label
    one = np.array([den], dtype)
    for label, got in both(reductions, one):
        assert got[0] == den and got[1] == den and got[2] == den, label
    negz = np.array([-0.0, -0.0], dtype)
    for label, got in both(reductions, negz):
        assert got[0] == 0 and not np.signbit(got[0]), label   # +0.0
        assert got[1] == 0 and got[2] == 0, label
    assert not np.signbit(np.sum(negz))


# Was a bug, fixed with the one above (fuse-expand-arith).
def test_signed_zero_reduction():
    _, mx, _, _, _ = reductions(np.array([0.0, -0.0], np.float32))
    assert not np.signbit(mx)
    _, _, mn, _, _ = reductions(np.array([-0.0, 0.0], np.float32))
    assert np.signbit(mn)


# ---- scans --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_scan_nan_propagates_forward(dtype):
    """A NaN at position k: every output before k is untouched (finite),
    every output from k on is NaN, for add, max and min scans; the
    exclusive scan's NaN starts at k + 1."""
    n = 2500
    for k in (0, 1, 1200, n - 1):
        x = scan_nan_input(n, k, dtype)
        with np.errstate(all="ignore"):
            ref_max = np.maximum.accumulate(x)
            ref_min = np.minimum.accumulate(x)
            ref_add = np.cumsum(x.astype(np.float64))
        for label, (add, mx, mn, exc) in both(scans, x):
            assert np.isfinite(add[:k]).all() and np.isnan(add[k:]).all(), \
                (label, k)
            np.testing.assert_allclose(add[:k], ref_add[:k], rtol=1e-5,
                                       atol=1e-5)
            assert_same(zero_insensitive(mx), zero_insensitive(ref_max),
                        "%s max k=%d" % (label, k))
            assert_same(zero_insensitive(mn), zero_insensitive(ref_min),
                        "%s min k=%d" % (label, k))
            assert exc[0] == 0 and np.isfinite(exc[:k + 1]).all()
            assert np.isnan(exc[k + 1:]).all(), (label, k)


@pytest.mark.parametrize("dtype", FLOATS)
def test_scan_infinities(dtype):
    fi = np.finfo(dtype)
    x = np.array([1.0, INF, 2.0, -INF, 3.0], dtype)
    ref = scan_refs(x)[:3]
    for label, got in both(scans, x):
        for i, (g, r) in enumerate(zip(got[:3], ref)):
            assert_same(g, r, "%s result %d" % (label, i))
    # [max, max, -max]: float64 overflows at the second prefix and stays
    # inf (NumPy); a float32 add scan carries its prefix in float64
    # (documented), so its third output is max again where NumPy's float32
    # cumsum stays at inf.
    x = scan_overflow_input(dtype)
    with np.errstate(all="ignore"):
        np_cumsum = np.cumsum(x)
    want = (np.array([fi.max, INF, fi.max], dtype) if dtype == np.float32
            else np_cumsum)
    for label, got in both(scans, x):
        assert_same(got[0], want, label)
    if dtype == np.float32:
        assert np.isinf(np_cumsum[2])   # NumPy's default differs
    # An inclusive scan's first output is init (+) x0 (docs/dialect.md) with
    # init +0.0: a prefix of only -0.0 is +0.0 (np.cumsum keeps -0.0).
    negz = np.array([-0.0, -0.0], dtype)
    for label, got in both(scans, negz):
        assert_same(got[0], np.zeros(2, dtype), label)


# ---- filter -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_filter_edges(dtype):
    """x > 0 keeps +inf, denormals, tiny and max; it drops NaN, -0.0, +0.0
    and negatives; the kept values, their indices and the count equal
    NumPy's boolean mask. a != a keeps exactly the NaNs."""
    x = np.tile(edges(dtype), 3)
    idx = np.arange(x.size, dtype=np.int64)
    ry, rj, rn = keep_positive_ref(x, idx)
    for label, (y, j, n) in both(keep_positive, x, idx):
        assert_same(y, ry, label)
        assert_same(j, rj, label)
        assert n == rn == 3 * 7, label
        assert not np.isnan(y).any() and not (y == 0).any()
    den = edges(dtype)[5]
    assert den in keep_positive(x, idx)[0]
    for label, (n,) in both(keep_nan, x):
        assert n == np.isnan(x).sum() == 3, label


# ---- workloads ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_variance_edges(dtype):
    """An inf makes the mean inf and inf - inf NaN: variance NaN (np.var);
    a NaN gives NaN; [max, -max] has mean 0 and an overflowing square:
    inf; huge-but-finite values that cancel stay finite."""
    for c in variance_cases(dtype):
        x = np.array(c, dtype)
        ref = variance_ref(x)
        for label, (g,) in both(variance, x):
            if np.isfinite(ref):
                np.testing.assert_allclose(g, ref, rtol=1e-6, err_msg=label)
            else:
                assert_same(g, ref, "%s %s" % (label, c))


def test_softmax_rows_infinities():
    """Rows with -inf entries (masked logits) give 0 there and a normal
    softmax elsewhere; an all -inf row is NaN (-inf - -inf), so is a row
    with +inf (inf - inf); a NaN poisons its row only."""
    X = softmax_input(np.float32)
    ref = softmax_ref(X)
    for label, (g,) in both(softmax_rows, X):
        special = ~np.isfinite(ref) | (ref == 0)
        assert_same(g[special], ref[special], label)
        np.testing.assert_allclose(g[~special], ref[~special], rtol=1e-6,
                                   err_msg=label)
        assert np.isnan(g[1]).all() and np.isnan(g[3]).all()
        assert g[0, 1] == 0 and np.isfinite(g[[0, 4]]).all()
