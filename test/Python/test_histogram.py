"""fuse.histogram and np.histogram inside @fuse.jit, and
fuse.compute.histogram_even, on NumPy arrays (the CPU backend).

np.histogram is the reference, exactly (counts, edges and their dtypes):
every dtype, sizes 0, 1, 31 and 1000003, 1 to 1000 even bins with and
without a range, values on and around the edges, outside the range, NaN
and infinities, ties; edge arrays, constant edges, density, a rank-2 input
and a computed value (its map fused with the count); the errors NumPy
raises and what a traced range=None does where NumPy would raise.
histogram_even against a NumPy model of CUB's HistogramEven (upper level
exclusive) and C++'s type rules. The data and functions are
histogram_check.py's (the same checks on the GPU)."""

import subprocess

import numpy as np
import pytest

import fuse
import fuse.compute as fc
import histogram_check as H
from fuse._compute_histogram import cpp_common_type, int_arithmetic_type
from fuse._histogram import _exact_f32_edges
from fuse._tools import find_fuse_opt
from histogram_check import (DTYPES, EVEN, FIXED_EDGES, SIZES, by_edges,
                             by_edges_density, by_fixed_edges,
                             cub_even_model, edge_cases, even_compute_cases,
                             even_data, even_fn, nan_data, of_square,
                             of_square_reference, range_for, same)

EVEN_CASES = [(np.dtype(dt).name, bins, given) for dt in DTYPES
              for bins, given in EVEN]


@pytest.mark.parametrize("dt, bins, given", EVEN_CASES, ids=[
    "%s-%d-%s" % (d, b, "range" if g else "auto") for d, b, g in EVEN_CASES])
def test_even_bins_match_numpy(dt, bins, given):
    rng = range_for(dt) if given else None
    f = even_fn(bins, rng)
    for n in SIZES:
        x = even_data(dt, n, bins, rng)
        keep = x.copy()
        c, e = f(x)
        want = np.histogram(x, bins, rng)
        assert same(c, want[0]), (n, np.flatnonzero(c != want[0])[:5])
        assert same(e, want[1]), (n, e[:4], want[1][:4])
        np.testing.assert_array_equal(x, keep)


def test_fuse_histogram_is_np_histogram():
    @fuse.jit
    def f(x):
        return fuse.histogram(x) + fuse.histogram(x, 3, (0, 1), density=True)
    x = even_data(np.float64, 1001, 10, None)
    c, e, d, e2 = f(x)
    assert same(c, np.histogram(x)[0]) and same(e, np.histogram(x)[1])
    want = np.histogram(x, 3, (0, 1), density=True)
    assert same(d, want[0]) and same(e2, want[1])
    g = fuse.jit(lambda x: np.histogram(x, np.array(4), np.array([0, 1.0])))
    c, e = g(x)
    want = np.histogram(x, np.array(4), np.array([0, 1.0]))
    assert same(c, want[0]) and same(e, want[1])


def test_ranges_of_other_types():
    """Python floats with integer data, NumPy scalars (strong types: the
    bins' dtype follows them), equal ends (widened by 0.5), a range
    beyond an unsigned dtype's values."""
    i = even_data(np.int16, 1001, 9, (-3, 100))
    u = np.arange(256, dtype=np.uint8)
    f = even_data(np.float32, 1001, 9, (-1.5, 2.25))
    for x, rng in ((i, (0.5, 99.5)), (i, (np.int8(-3), np.int8(100))),
                   (f, (np.float64(-1.5), np.float64(2.25))),
                   (f, (np.float32(-0.1), np.float32(0.3))), (f, (1, 1)),
                   (u, (-1, 300)), (f, (0.0, 1e-30)), (i, (7, 7))):
        c, e = even_fn(9, rng)(x)
        want = np.histogram(x, 9, rng)
        assert same(c, want[0]) and same(e, want[1]), (x.dtype, rng)


def test_extremes_of_the_integer_dtypes():
    """range=None over the widest spans: max - min needs every bit (an
    unsigned difference, rounded to float64 in the division)."""
    for dt in (np.int64, np.uint64, np.int32, np.int8):
        info = np.iinfo(dt)
        x = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1,
                      info.max // 3, info.min // 3], dt)
        for bins in (1, 3, 7, 1000):
            c, e = even_fn(bins)(x)
            want = np.histogram(x, bins)
            assert same(c, want[0]) and same(e, want[1]), (dt, bins)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("lo,hi", [(-4.0, 4.0), (0.1, 0.7), (-3, 5),
                                   (1000.0, 1000.001), (1e6, 1e6 + 3),
                                   (-1e-30, 3e-30)])
def test_constant_ranges_wide_and_narrow_bins(dt, lo, hi):
    """A constant range takes one multiply for the estimate where its bins
    are wide against the rounding, NumPy's float64 division where they are
    not (1000.0 to 1000.001 in float32: a bin is 0.05 ulp); both must give
    NumPy's counts for values on every edge, one ulp either side, and in
    and around the range."""
    rng = np.random.default_rng(7)
    for bins in (1, 7, 256, 100000):
        try:
            e = np.histogram(np.zeros(1, dt), bins, (lo, hi))[1]
        except ValueError:      # NumPy's "Too many bins for data range"
            continue
        x = lo + (rng.random(5000) * 1.2 - 0.1) * (hi - lo)
        if np.dtype(dt).kind == "i":
            x = np.round(x)
        x = np.concatenate([x.astype(dt), e.astype(dt),
                            np.nextafter(e, np.inf).astype(dt),
                            np.nextafter(e, -np.inf).astype(dt)])
        got = fuse.jit(lambda a: np.histogram(a, bins, (lo, hi))[0])(x)
        np.testing.assert_array_equal(got, np.histogram(x, bins,
                                                        (lo, hi))[0])


def test_float32_edges_exact_where_chosen():
    """Where _exact_f32_edges returns (start, step), float32 arithmetic
    gives NumPy's edges bit for bit, both rounded twice (multiply, add) and
    once (a fused multiply-add, modelled in float64 where the product is
    exact); ranges whose edges it would round differently get None."""
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    g = np.random.default_rng(3)
    chosen = 0
    cases = [(-4, 4, 256), (0, 16, 256), (-1.5, 2.25, 256), (0, 1, 1 << 20),
             (0, 1, 100), (0.1, 0.7, 7), (1e6, 1e6 + 3, 1000)]
    for _ in range(300):
        lo = float(g.integers(-64, 64)) / 2.0 ** g.integers(0, 12)
        hi = lo + float(g.integers(1, 4096)) / 2.0 ** g.integers(0, 12)
        bins = int(2 ** g.integers(0, 13) if g.random() < 0.7 else
                   g.integers(1, 5000))
        cases.append((lo, hi, bins))
    for lo, hi, bins in cases:
        ref = np.linspace(lo, hi, bins + 1, dtype=f32)
        got = _exact_f32_edges(lo, hi, bins, f32, f64)
        if got is None:
            continue
        chosen += 1
        start, step = got
        k = np.arange(bins + 1).astype(np.float32)
        np.testing.assert_array_equal(k * step + start, ref)
        fma = (k.astype(np.float64) * np.float64(step) +
               np.float64(start)).astype(np.float32)
        np.testing.assert_array_equal(fma, ref)
    assert chosen > 50
    assert _exact_f32_edges(0, 1, 100, f32, f64) is None
    assert _exact_f32_edges(-4, 4, 256, f64, f64) is None


def test_equal_values_widen_the_range():
    """min == max: the edges widen by 0.5 (floats for integer data); where
    that gives no distinct edges (values past 2^53), NumPy raises and fuse
    gives NaN edges and no counts."""
    for x, raises in ((np.full(31, 2.5, np.float32), ()),
                      (np.full(5, -7, np.int64), ()),
                      (np.full(3, 2**40 + 1, np.int64), ()),
                      (np.full(3, 2**52 + 1, np.int64), (7,)),
                      (np.full(3, 2**60 + 1, np.int64), (1, 7)),
                      (np.array([1e20]), (1, 7)),
                      (np.full(4, 2**53 + 1, np.uint64), (1, 7))):
        for bins in (1, 7):
            c, e = even_fn(bins)(x)
            if bins in raises:
                with pytest.raises(ValueError, match="Too many bins"):
                    np.histogram(x, bins)
                assert not c.any() and np.isnan(e).all(), (x[0], bins)
                continue
            want = np.histogram(x, bins)
            assert same(c, want[0]) and same(e, want[1]), (x[0], bins)


@pytest.mark.parametrize("name, x, edges", list(edge_cases()),
                         ids=[c[0] for c in edge_cases()])
def test_edge_arrays_match_numpy(name, x, edges):
    c, e = by_edges(x, edges)
    want = np.histogram(x, edges)
    assert same(c, want[0]) and same(e, want[1])
    if len(edges) > 1:
        d, e = by_edges_density(x, edges)
        with np.errstate(all="ignore"):          # empty bins: 0 / 0
            want = np.histogram(x, edges, density=True)
        assert same(d, want[0]) and same(e, want[1])


def test_no_edges_and_one_edge():
    x = np.array([0.5, 1.0, 2.0])
    for edges in (np.zeros(0), np.array([1.0])):
        c, e = by_edges(x, edges)
        assert c.shape == (0,) and c.dtype == np.int64
        assert same(e, edges)


def test_constant_edges():
    x = even_data(np.float32, 100003, 10, (-1.5, 2.25))
    c, e = by_fixed_edges(x)
    want = np.histogram(x, FIXED_EDGES)
    assert same(c, want[0]) and same(e, want[1])

    @fuse.jit
    def f(x):
        return np.histogram(x, [3, 10, 100], density=True) + \
            np.histogram(x, np.array([-1, 0, 5], np.int8))
    i = even_data(np.int32, 1001, 7, (-3, 100))
    d, e1, c2, e2 = f(i)
    want = np.histogram(i, [3, 10, 100], density=True)
    assert same(d, want[0]) and same(e1, want[1])
    want = np.histogram(i, np.array([-1, 0, 5], np.int8))
    assert same(c2, want[0]) and same(e2, want[1])


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int16,
                                np.uint64])
@pytest.mark.parametrize("given", [False, True])
def test_density(dt, given):
    rng = range_for(dt) if given else None
    f = even_fn(10, rng, True)
    for n in (0, 1, 31, 1000003):
        x = even_data(dt, n, 10, rng)
        d, e = f(x)
        with np.errstate(all="ignore"):
            want = np.histogram(x, 10, rng, density=True)
        assert same(d, want[0]) and same(e, want[1]), n


def test_rank_2_and_0_inputs():
    m = even_data(np.float32, 31 * 17, 7, None).reshape(31, 17)
    c, e = even_fn(7)(m)
    want = np.histogram(m, 7)
    assert same(c, want[0]) and same(e, want[1])
    s = np.float32(0.25)
    c, e = even_fn(7)(s)
    want = np.histogram(s, 7)
    assert same(c, want[0]) and same(e, want[1])
    b = np.array([[True, False], [True, True]])
    c, e = even_fn(7)(b)
    with pytest.warns(RuntimeWarning):
        want = np.histogram(b, 7)      # NumPy counts booleans as uint8
    assert same(c, want[0]) and same(e, want[1])


def test_counts_feed_other_ops():
    """A bin count known when tracing gives counts of static type
    (tensor<7xi64>); the ops after them take it, those whose result type
    is their operand's (scan, sort) keep it."""
    @fuse.jit
    def f(x):
        c, e = np.histogram(x, 7)
        return (fuse.filter(c, lambda v: v > 100), fuse.scan(c),
                fuse.sort(c), fuse.argsort(c), np.unique(c),
                fuse.gather(e, c * 0 + 1), c[:, None] * 2, c.max())
    x = even_data(np.float32, 1001, 7, None)
    c, e = np.histogram(x, 7)
    want = (c[c > 100], np.cumsum(c), np.sort(c), np.argsort(c, kind="stable"),
            np.unique(c), np.full(7, e[1], np.float32), c[:, None] * 2,
            c.max())
    for got, w in zip(f(x), want):
        assert same(got, w), (got, w)
    assert "fuse.histogram %m" in f.lower(x) and "-> tensor<7xi64>" in \
        f.lower(x)


def test_histogram_of_a_computed_value_is_one_pass():
    x = even_data(np.float32, 1000003, 10, (-1.5, 2.25))
    c, e = of_square(x)
    want = of_square_reference(x)
    assert same(c, want[0]) and same(e, want[1])
    ir = of_square.lower(x)
    out = subprocess.run([find_fuse_opt(), "-", "--fuse-fusion",
                          "--fuse-explain", "-o", "/dev/null"], input=ir,
                         capture_output=True, text=True, check=True).stderr
    group = [ln for ln in out.splitlines() if 'group "histogram"' in ln]
    assert len(group) == 1 and "read 4*n bytes" in group[0], out
    assert "fuse.map" in out.split('group "histogram"')[1].split(
        "remark")[0], out


def test_where_numpy_raises_on_the_data_range():
    """range=None: the extremes are device values. Where NumPy raises (not
    finite, or too close for distinct edges), the edges are NaN and
    nothing is counted."""
    f = even_fn(7)
    x = nan_data()
    with pytest.raises(ValueError, match="not finite"):
        np.histogram(x, 7)
    for x in (nan_data(), np.array([1.0, np.inf], np.float32),
              np.array([-np.inf, 2.0]),
              np.array([1.0, np.nextafter(np.float32(1), np.float32(2))],
                       np.float32)):
        c, e = f(x)
        assert same(c, np.zeros(7, np.int64)), x
        assert e.dtype == x.dtype and np.isnan(e).all(), x
    g = even_fn(1000)
    x = np.array([1.0, 1.0 + 2 ** -20], np.float32)
    with pytest.raises(ValueError, match="Too many bins"):
        np.histogram(x, 1000)
    c, e = g(x)
    assert not c.any() and np.isnan(e).all()


def test_errors():
    x = np.linspace(0, 1, 11, dtype=np.float32)

    def raises(exc, match, **kw):
        f = fuse.jit(lambda x: np.histogram(x, **kw))
        with pytest.raises(exc, match=match):
            f(x)
    raises(TypeError, "bin estimators", bins="auto")
    raises(TypeError, "must be an integer, a string, or an array", bins=4.0)
    raises(ValueError, "must be positive", bins=0)
    raises(ValueError, "max must be larger than min", range=(1, 0))
    raises(ValueError, "supplied range of", range=(0, np.inf))
    raises(ValueError, "Too many bins", bins=100, range=(1.0, 1.0000001))
    raises(ValueError, "must increase monotonically", bins=[0, 2, 1])
    raises(ValueError, "must be 1d", bins=[[0, 1], [2, 3]])
    raises(TypeError, "more than 256", bins=list(range(300)))
    g = fuse.jit(lambda x, lo: np.histogram(x, 5, (lo, 1.0)))
    with pytest.raises(TypeError, match="known when the function is traced"):
        g(x, 0.0)
    h = fuse.jit(lambda x, n: np.histogram(x, n))
    with pytest.raises(TypeError, match="bin count must be known"):
        h(x, 5)
    k = fuse.jit(lambda x, e: np.histogram(x, e))
    with pytest.raises(ValueError, match="must be 1d"):
        k(x, np.ones((2, 2)))


# ---- histogram_even ------------------------------------------------------------

def test_cpp_common_type():
    """std::common_type of the levels' and samples' types (CUB's CommonT)
    and CUB's IntArithmeticT."""
    want = {("int8", "int8"): "int8", ("int8", "uint8"): "int32",
            ("int16", "int8"): "int32", ("uint16", "uint16"): "uint16",
            ("int32", "uint32"): "uint32", ("int64", "uint32"): "int64",
            ("int64", "uint64"): "uint64", ("int32", "uint64"): "uint64",
            ("float32", "int64"): "float32", ("uint8", "float64"): "float64",
            ("float32", "float64"): "float64", ("uint8", "int64"): "int64",
            ("uint16", "int16"): "int32", ("uint32", "int16"): "uint32"}
    for (a, b), c in want.items():
        assert cpp_common_type(a, b) == np.dtype(c), (a, b)
        assert cpp_common_type(b, a) == np.dtype(c), (b, a)
    assert int_arithmetic_type("int8", "int8") == np.uint32
    assert int_arithmetic_type("int16", "int16") == np.uint32
    assert int_arithmetic_type("int8", "int32") == np.uint64
    assert int_arithmetic_type("uint8", "int64") == np.uint64


@pytest.mark.parametrize("name, x, levels, lo, hi",
                         list(even_compute_cases()),
                         ids=[c[0] for c in even_compute_cases()])
def test_histogram_even_matches_cubs_rule(name, x, levels, lo, hi):
    out = np.full(levels + 2, 7, np.int32)
    fc.histogram_even(x, out, levels, lo, hi, len(x))
    want = cub_even_model(x, levels, lo, hi)
    assert same(out[:levels - 1], want.astype(np.int32))
    assert (out[levels - 1:] == 7).all()          # past the bins: untouched


def test_histogram_even_upper_level_is_exclusive():
    """Unlike np.histogram, a sample equal to upper_level is not counted;
    elsewhere the counts are NumPy's for levels that are exact."""
    x = np.array([0.0, 0.25, 0.5, 0.75, 1.0, -0.0, 0.999, 1.5, np.nan],
                 np.float32)
    for dt in (np.int32, np.int64, np.uint32, np.uint64):
        out = np.zeros(4, dt)
        fc.histogram_even(x, out, 5, 0.0, 1.0, len(x))
        assert same(out, np.array([2, 1, 1, 2], dt))
        assert np.histogram(x[x < 1], 4, (0, 1))[0].tolist() == [2, 1, 1, 2]
    out = np.zeros(4, np.int32)
    fc.histogram_even(x, out, 5, 0.0, 1.0, 3)        # num_samples: a prefix
    assert out.tolist() == [1, 1, 1, 0]


def test_histogram_even_counts_negative_int8_samples():
    """CUB before the fix of NVIDIA/cccl#10977 drops negative int8 samples
    (its byte-sample path); fuse counts them as the bin rule says."""
    x = np.array([-60, -1, 10, 63], np.int8)
    out = np.zeros(4, np.int32)
    fc.histogram_even(x, out, 5, -60, 64, 4)
    assert out.tolist() == [1, 1, 1, 1]


def test_histogram_even_errors():
    x = np.linspace(0, 1, 11, dtype=np.float32)
    out = np.zeros(10, np.int32)
    with pytest.raises(ValueError, match="num_output_levels must be in"):
        fc.histogram_even(x, out, 1, 0.0, 1.0, 11)
    with pytest.raises(TypeError, match="num_output_levels must be an int"):
        fc.histogram_even(x, out, 5.0, 0.0, 1.0, 11)
    with pytest.raises(TypeError, match="give both levels one type"):
        fc.histogram_even(x, out, 5, 0, 1.0, 11)
    with pytest.raises(TypeError, match="expected a number, got a bool"):
        fc.histogram_even(x, out, 5, True, 1, 11)
    with pytest.raises(TypeError, match="d_histogram holds counts"):
        fc.histogram_even(x, np.zeros(10, np.float32), 5, 0.0, 1.0, 11)
    with pytest.raises(ValueError, match="has 10 elements but 11"):
        fc.histogram_even(x, out, 12, 0.0, 1.0, 11)
    with pytest.raises(ValueError, match="has 11 elements but num_items"):
        fc.histogram_even(x, out, 5, 0.0, 1.0, 12)
    i = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match="may overflow"):
        fc.histogram_even(i, out, 10, -2**62, 2**62, 10)
    with pytest.raises(ValueError, match="may overflow"):
        fc.histogram_even(i.astype(np.int8), out, 3, 5, 1, 10)   # lower > upper
    small = np.zeros(4, np.int32)
    fc.histogram_even(x, small, 5, 1.0, 0.0, 11)   # floats: nothing counted
    assert not small.any()
    with pytest.raises(ValueError, match="may overflow"):
        fc.histogram_even(fc.TransformIterator(i, lambda a: a * 2), out, 10,
                          -2**62, 2**62, 10)


@pytest.mark.parametrize("n", [0, 1, 31, 1000003])
def test_weights_against_numpy(n):
    for name, x, w in H.weighted_cases([n]):
        H.check_weighted(H.weighted_even(x, w), H.weighted_reference(
            x, 16, (-2.0, 2.0), w), np.asarray)
        H.check_weighted(H.weighted_edges(x, H.WEIGHT_EDGES, w),
                         H.weighted_reference(x, H.WEIGHT_EDGES, None, w),
                         np.asarray)


def test_weights_with_constant_edges_density_and_range_none():
    x = np.random.default_rng(3).normal(size=5000)
    w = np.random.default_rng(4).uniform(-1, 1, 5000)
    for kw in ({"bins": [-1.0, 0.0, 0.5, 3.0]}, {"bins": 7},
               {"bins": 7, "density": True},
               {"bins": [-1.0, 0.0, 0.5, 3.0], "density": True}):
        got = fuse.jit(lambda a, ww: np.histogram(a, weights=ww, **kw))(x, w)
        want = np.histogram(x, weights=w, **kw)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(got[1], want[1])


def test_weights_errors():
    f = fuse.jit(lambda a, ww: np.histogram(a, bins=4, weights=ww))
    with pytest.raises(TypeError, match="weights= takes a 1-d array"):
        f(np.ones(11), np.ones((11, 1)))
    with pytest.raises(TypeError, match="weights= takes a 1-d array"):
        f(np.ones((11, 1)), np.ones((11, 1)))


def test_weights_sizes_must_match():
    f = fuse.jit(lambda a, ww: np.histogram(a, bins=4, weights=ww))
    with pytest.raises(ValueError, match="size mismatch"):
        f(np.ones(10), np.ones(9))
