"""fuse.segment_sum/prod/min/max and fuse.segment_reduce over CSR offsets,
fuse.reduce_by_key, and fuse.compute.segmented_reduce with start and end
offsets, on NumPy arrays (the CPU backend), against plain loops over the
segments (segments_check.py's references, which the GPU checks share):
sizes 0, 1, 31 and 1000003, every dtype, int32 and int64 offsets (other
integer offsets converted), empty segments, one segment, every segment
empty, no segment, unsorted offsets outside the input (clamped), NaN,
result dtypes, function combiners that see the order, reduce_by_key with
ties and NaN keys, both forms of segmented_reduce and its object form, a
fused prologue, and the errors."""

import subprocess

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse._tools import find_fuse_opt
from check_util import Mismatch
import gpu_check
import segments_check as S
from segments_check import (DTYPES, SIZES, compare, compare_csr, csr,
                            offset_cases, seg_max, seg_min, seg_sum)
from test_gpu_check_edges import NumpyBackend


@pytest.mark.parametrize("dt", DTYPES + [np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_sum_min_max_match_the_loops(dt, n):
    x = S.values(dt, n)
    keep = x.copy()
    for case, o in offset_cases(n):
        compare_csr(seg_sum(x, o), x, o, "add", "sum " + case)
        compare_csr(seg_min(x, o), x, o, "min", "min " + case)
        compare_csr(seg_max(x, o), x, o, "max", "max " + case)
    np.testing.assert_array_equal(x, keep)


def test_written_out_results():
    """The results by hand (independent of the loops): empty segments give
    the identity, +-inf for floats, the dtype's ends for integers."""
    x = np.arange(1, 11, dtype=np.float32)
    o = np.array([0, 3, 3, 8, 10])
    np.testing.assert_array_equal(seg_sum(x, o), [6, 0, 30, 19])
    np.testing.assert_array_equal(seg_min(x, o), [1, np.inf, 4, 9])
    np.testing.assert_array_equal(seg_max(x, o), [3, -np.inf, 8, 10])
    np.testing.assert_array_equal(S.seg_prod(x, o), [6, 1, 6720, 90])
    i = x.astype(np.int32)
    np.testing.assert_array_equal(seg_min(i, o), [1, 2**31 - 1, 4, 9])
    np.testing.assert_array_equal(seg_max(i, o), [3, -2**31, 8, 10])
    u = x.astype(np.uint8)
    np.testing.assert_array_equal(seg_min(u, o), [1, 255, 4, 9])
    np.testing.assert_array_equal(seg_max(u, o), [3, 0, 8, 10])
    # Clamped: [-2, 2) is [0, 2), [9, 15) is [9, 10), [12, 14) is empty;
    # a decreasing pair is empty.
    o = np.array([-2, 2, 9, 15, 12, 14, 5, 3])
    got = seg_sum(x, o)
    np.testing.assert_array_equal(got, [3, 42, 10, 0, 0, 0, 0])
    o = np.array([9, 15])
    np.testing.assert_array_equal(seg_sum(x, o), [10])
    np.testing.assert_array_equal(seg_sum(x, np.array([12, 14])), [0])


@pytest.mark.parametrize("dt, want", [
    (np.float32, np.float32), (np.float64, np.float64), (np.int8, np.int64),
    (np.int32, np.int64), (np.int64, np.int64), (np.uint8, np.uint64),
    (np.uint32, np.uint64), (np.uint64, np.uint64), (np.bool_, np.int64)],
    ids=lambda d: np.dtype(d).name)
def test_result_dtypes(dt, want):
    """Sums and products as x.sum(): small integers and booleans in int64
    (uint64 unsigned); min and max keep x's dtype."""
    x = S.values(dt, 31)
    o = np.array([0, 10, 31])
    assert seg_sum(x, o).dtype == want
    assert S.seg_prod(x, o).dtype == want
    assert seg_min(x, o).dtype == np.dtype(dt)
    assert seg_max(x, o).dtype == np.dtype(dt)


def test_wrapping_sums_and_bool_counts():
    """Integer sums wrap in the accumulator (int64 for int32 data, here
    past 2^31), booleans count their True values, bool min/max are
    and/or (an empty segment: True and False)."""
    x = np.full(5, 2**31 - 1, np.int32)
    assert seg_sum(x, np.array([0, 5]))[0] == 5 * (2**31 - 1)
    y = np.full(3, 2**63 - 1, np.int64)
    assert seg_sum(y, np.array([0, 3]))[0] == np.int64(2**63 - 3)
    b = np.array([True, False, True, True, False])
    o = np.array([0, 2, 2, 5, 5])
    np.testing.assert_array_equal(seg_sum(b, o), [1, 0, 2, 0])
    np.testing.assert_array_equal(seg_min(b, o), [False, True, False, True])
    np.testing.assert_array_equal(seg_max(b, o), [True, False, True, False])


@pytest.mark.parametrize("odt", [np.int32, np.int64, np.int8, np.uint16,
                                 np.uint64], ids=lambda d: np.dtype(d).name)
def test_offset_dtypes(odt):
    """int32 and int64 offsets as they are, other integers converted."""
    n = 100
    x = S.values(np.float64, n)
    o = csr(np.random.default_rng(2), n, 12)
    assert o.max() <= np.iinfo(odt).max
    compare_csr(seg_sum(x, o.astype(odt)), x, o, "add")
    compare_csr(seg_max(x, o.astype(odt)), x, o, "max")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_nan_propagates(dt, n):
    """min and max are NaN where the segment holds a NaN (as fuse.reduce's
    and np.minimum's), and so are sums."""
    x = S.values(dt, n, nan=True)
    o = csr(np.random.default_rng(n), n, max(n // 50, 2))
    for f, kind in ((seg_sum, "add"), (seg_min, "min"), (seg_max, "max")):
        got = f(x, o)
        compare_csr(got, x, o, kind)
        if n >= 100:
            lo, hi = o[:-1], o[1:]
            has = np.array([np.isnan(x[a:b]).any() for a, b in zip(lo, hi)])
            assert has.any() and (np.isnan(got) == has).all()


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int8, np.int64,
                                np.uint32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_prod(dt, n):
    x = S.prod_values(dt, n)
    o = S.short_offsets(n)
    compare_csr(S.seg_prod(x, o), x, o, "mul")


def test_a_float_sum_that_is_wrong_fails_the_comparison():
    """The tolerance of float sums is tight enough to see one element
    missing."""
    x = S.values(np.float32, 100003)
    o = csr(np.random.default_rng(0), len(x), 1000)
    got = seg_sum(x, o)
    compare_csr(got, x, o, "add")
    bad = got.copy()
    s = int(np.argmax(np.diff(o)))
    bad[s] -= x[o[s]]
    with pytest.raises(Mismatch):
        compare_csr(bad, x, o, "add")


def test_the_prologue_is_computed_at_the_positions_read():
    n = 1000003
    x = S.values(np.float32, n, nan=True)
    o = csr(np.random.default_rng(1), n, 1 << 14)
    compare_csr(S.seg_sum_sq(x, o), x * x, o, "add")
    ir = S.seg_sum_sq.lower(x, o)
    assert ir.count("fuse.segmented_reduce add") == 1, ir
    assert ir.count("fuse.gather") == 2, ir
    out = subprocess.run([find_fuse_opt(), "-", "--fuse-fusion",
                          "--fuse-explain", "-o", "/dev/null"], input=ir,
                         capture_output=True, text=True, check=True).stderr
    group = [ln for ln in out.splitlines()
             if 'group "segmented_reduce"' in ln]
    assert len(group) == 1, out
    fused = out.split('group "segmented_reduce"')[1].split("\n")[1]
    assert "fuse.map" in fused and fused.count("fuse.gather") == 2, out
    assert "total for @main: 1 pass, 1 kernel" in out, out


# ---- function combiners -----------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_keep_last_sees_the_order(n):
    x = S.values(np.float32, n)
    for case, o in offset_cases(n):
        compare(S.seg_last(x, o), S.last_reference(x, o[:-1], o[1:],
                                                   np.float32(-1)),
                what=case)


@pytest.mark.parametrize("n", [0, 1, 31, 100003])
def test_affine_composition_in_order(n):
    """Composition of affine maps modulo 2^64: associative, not
    commutative (a reversed or regrouped-out-of-order segment differs)."""
    a, b = S.values(np.uint64, n, seed=1), S.values(np.uint64, n, seed=2)
    o = S.short_offsets(n)
    ga, gb = S.seg_affine(a, b, o)
    ra, rb = S.affine_reference(a, b, o)
    compare(ga, ra, what="a")
    compare(gb, rb, what="b")
    if n > 100:
        rev = S.affine_reference(a[::-1], b[::-1], np.array([0, 50]))
        fwd = S.affine_reference(a, b, np.array([n - 50, n]))
        assert rev[1][0] != fwd[1][0]     # the order matters


@pytest.mark.parametrize("n", SIZES)
def test_argmax_of_a_pair(n):
    x = S.values(np.float32, n, nan=True)
    if n > 40:
        x[10:20] = 0.75                    # ties: the first index wins
    o = csr(np.random.default_rng(n), n, max(n // 20, 2))
    mv, mi = S.seg_argmax(x, o)
    wv, wi = S.argmax_reference(x, o)
    compare(mv, wv, what="max")
    compare(mi, wi, what="index")


def test_initial_with_builtin_ops():
    f = fuse.jit(lambda x, o: (
        fuse.segment_reduce(x, o, "sum", initial=10),
        fuse.segment_reduce(x, o, "max", initial=np.int32(4)),
        fuse.segment_reduce(x, o, "min", initial=-5)))
    x = np.array([1, 7, 3, 2], np.int32)
    o = np.array([0, 2, 2, 4])
    s, mx, mn = f(x, o)
    np.testing.assert_array_equal(s, [18, 10, 15])
    assert s.dtype == np.int64
    np.testing.assert_array_equal(mx, [7, 4, 4])
    np.testing.assert_array_equal(mn, [-5, -5, -5])
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        fuse.jit(lambda x, o: fuse.segment_reduce(x, o, "min", -1))(
            x.astype(np.uint8), o)


# ---- reduce_by_key ----------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", ["add", "min", "max"])
def test_reduce_by_key(n, kind):
    """Runs of equal keys, ties between runs (a key after another run
    starts a new run), NaN runs merged, -0.0 next to +0.0 one run."""
    k, v = S.keys_values(n)
    f = {"add": S.rbk_sum, "min": S.rbk_min, "max": S.rbk_max}[kind]
    gk, gv = f(k, v)
    wk, wv = S.by_key_reference(k, v, kind)
    compare(gk, wk, what="keys")
    compare(gv, wv, what="values")


def test_reduce_by_key_by_hand():
    k = np.array([1, 1, 2, np.nan, np.nan, -0.0, 0.0, 2, 2], np.float64)
    v = np.arange(9, dtype=np.int16)
    gk, gv = S.rbk_sum(k, v)
    np.testing.assert_array_equal(gk, [1, 2, np.nan, -0.0, 2])
    assert np.signbit(gk[3])               # the run keeps its first key
    np.testing.assert_array_equal(gv, [1, 2, 7, 11, 15])
    assert gv.dtype == np.int64
    ik, iv = S.rbk_last(np.array([1, 1, 2]), v[:3])
    np.testing.assert_array_equal(ik, [1, 2])
    np.testing.assert_array_equal(iv, [1, 2])


# ---- fuse.compute.segmented_reduce ------------------------------------------

@pytest.mark.parametrize("case", list(range(len(list(S.compute_cases())))))
@pytest.mark.parametrize("keywords", [False, True])
def test_compute_offsets(case, keywords):
    """Overlapping, out-of-order, empty and clamped segments; int32, int64
    and mixed offsets; a function op; cuda.compute 1.1.1's keywords and
    the positional form."""
    name, x, s, e, op, init, want = list(S.compute_cases())[case]
    ns = len(s)
    out = np.full(ns + 3, 9, x.dtype)
    S.compute_into(None, x, out, s, e, op, init, ns, keywords)
    compare(out[ns:], np.full(3, 9, x.dtype), what="past the end")
    if op is fuse.OpKind.PLUS and x.dtype.kind == "f":
        compare(out[:ns], want, x, s, e, what=name)
    else:
        compare(out[:ns], want, what=name)


def test_compute_non_commutative_op_in_order():
    """A function op that is associative and not commutative (keep the
    first): segments read in index order, whatever their order and
    overlap."""
    x = np.arange(100, dtype=np.int64) * 3
    s = np.array([50, 10, 10, 0, 99, 60, 40])
    e = np.array([60, 11, 10, 100, 200, 50, 55])
    out = np.zeros(7, np.int64)
    fc.segmented_reduce(x, out, s, e, lambda a, b: fuse.where(a < 0, b, a),
                        np.int64(-1), 7)
    np.testing.assert_array_equal(out, [150, 30, -1, 0, 297, -1, 120])


def test_compute_iterators_and_both_forms():
    x = S.values(np.float32, 7000)
    out = np.zeros(1000, np.float32)
    starts = fc.TransformIterator(fc.CountingIterator(np.int64(0)),
                                  lambda i: i * 7)
    ends = fc.TransformIterator(fc.CountingIterator(np.int64(1)),
                                lambda i: i * 7)
    fc.segmented_reduce(fc.TransformIterator(x, lambda a: a * a), out,
                        starts, ends, fuse.OpKind.PLUS, np.float32(0), 1000)
    rows = np.zeros(1000, np.float32)
    fc.segmented_reduce(x * x, rows, fuse.OpKind.PLUS, 0, 1000, 7)
    np.testing.assert_allclose(out, (x * x).reshape(1000, 7).sum(1),
                               rtol=1e-6)
    np.testing.assert_allclose(rows, out, rtol=1e-6)
    # fewer segments than the offsets hold: the first num_segments
    st = np.arange(0, 7000, 7)
    out = np.full(10, -3, np.float32)
    fc.segmented_reduce(x, out, st, st + 7, fuse.OpKind.MAXIMUM,
                        np.float32(-np.inf), 4)
    np.testing.assert_array_equal(out[:4], x[:28].reshape(4, 7).max(1))
    assert (out[4:] == -3).all()


def test_compute_object_form():
    """make_segmented_reduce in the offsets form: the query answers 1 on
    the CPU, the call runs as without temp_storage."""
    x = S.values(np.float64, 1000)
    s = np.array([0, 500, 10, 990])
    e = np.array([500, 1000, 10, 2000])
    out = np.zeros(4)
    red = fc.make_segmented_reduce(d_in=x, d_out=out, start_offsets_in=s,
                                   end_offsets_in=e, op=fuse.OpKind.MINIMUM,
                                   h_init=np.float64(7))
    args = dict(d_in=x, d_out=out, num_segments=4, start_offsets_in=s,
                end_offsets_in=e, op=fuse.OpKind.MINIMUM,
                h_init=np.float64(7))
    assert red(temp_storage=None, **args) == 1
    red(temp_storage=np.zeros(8, np.uint8), **args)
    np.testing.assert_array_equal(out, [x[:500].min(), x[500:].min(), 7,
                                        min(x[990:].min(), 7)])
    red2 = fc.make_segmented_reduce(x, out, fuse.OpKind.PLUS, np.float64(0))
    red2(None, x, out, 2, 500, np.float64(0))
    red2(np.zeros(8, np.uint8), x, out, 2, 500, np.float64(0))
    np.testing.assert_allclose(out[:2], x.reshape(2, 500).sum(1))


# ---- errors -----------------------------------------------------------------

@pytest.mark.parametrize("fn, args, exc, msg", [
    (lambda x, o: fuse.segment_sum(x, o), (np.zeros((2, 3)), np.zeros(2, int)),
     ValueError, r"^fuse.segment_sum: x must have rank 1, got rank 2"),
    (lambda x, o: fuse.segment_max(x, o), (np.zeros(3), np.zeros((2, 2), int)),
     ValueError, r"^fuse.segment_max: offsets must have rank 1, got rank 2"),
    (lambda x, o: fuse.segment_min(x, o), (np.zeros(3), np.zeros(2)),
     TypeError, r"^fuse.segment_min: offsets must be integers \(int32 or "
     r"int64\), got float64"),
    (lambda x, o: fuse.segment_prod(x, o), (np.zeros(3), np.zeros(2, bool)),
     TypeError, r"^fuse.segment_prod: offsets must be integers"),
    (lambda x, o: fuse.segment_sum(x, o), (np.zeros(3), np.zeros(0, int)),
     ValueError, r"^fuse.segment_sum: offsets must hold m \+ 1 entries"),
    (lambda x, o: fuse.segment_reduce(x, o, "mean"), (np.zeros(3),
                                                      np.zeros(2, int)),
     ValueError, r"^fuse.segment_reduce: unknown op 'mean'"),
    (lambda x, o: fuse.segment_reduce(x, o, 3), (np.zeros(3),
                                                 np.zeros(2, int)),
     TypeError, r"^fuse.segment_reduce: op must be a string or a function"),
    (lambda x, o: fuse.segment_reduce(x, o, lambda a, b: a + b),
     (np.zeros(3), np.zeros(2, int)), ValueError,
     r"^fuse.segment_reduce: a function op needs initial"),
    (lambda x, o: fuse.segment_reduce((x, x), o, "sum"),
     (np.zeros(3), np.zeros(2, int)), TypeError,
     r"^fuse.segment_reduce: several arrays need a function op"),
    (lambda x, o: fuse.segment_reduce((x, x), o, lambda a, b: a,
                                      initial=(0,)),
     (np.zeros(3), np.zeros(2, int)), ValueError,
     r"^fuse.segment_reduce: initial must hold one value per array \(2\)"),
    (lambda k, v: fuse.reduce_by_key(k, v), (np.zeros((3, 1)), np.zeros(3)),
     ValueError, r"^fuse.reduce_by_key: keys must have rank 1, got rank 2"),
    (lambda k, v: fuse.reduce_by_key(k, v, "min"), (np.zeros(3),
                                                    np.zeros(())),
     ValueError, r"^fuse.reduce_by_key: values must have rank 1, got rank 0"),
    (lambda k, v: fuse.reduce_by_key(k, v), (np.zeros(3), np.zeros(4)),
     ValueError, r"size mismatch"),
])
def test_errors(fn, args, exc, msg):
    with pytest.raises(exc, match=msg):
        fuse.jit(fn)(*args)


def test_compute_errors():
    x = np.zeros(10, np.float32)
    out = np.zeros(3, np.float32)
    s = np.array([0, 1, 2])
    with pytest.raises(TypeError, match="segmented_reduce: the start "
                       "offsets must be integers"):
        fc.segmented_reduce(x, out, s.astype(np.float32), s,
                            fuse.OpKind.PLUS, np.float32(0), 3)
    with pytest.raises(ValueError, match="start_offsets_in: has 3 elements "
                       "but num_items is 4"):
        fc.segmented_reduce(x, np.zeros(4, np.float32), s, s,
                            fuse.OpKind.PLUS, np.float32(0), 4)
    with pytest.raises(ValueError, match="d_out: has 3 elements but 5"):
        fc.segmented_reduce(x, out, s, s, fuse.OpKind.PLUS, np.float32(0),
                            5)
    with pytest.raises(TypeError, match="d_in must be an array or an "
                       "iterator over arrays"):
        fc.segmented_reduce(fc.CountingIterator(np.float32(0)), out, s, s,
                            fuse.OpKind.PLUS, np.float32(0), 3)
    with pytest.raises(TypeError, match="op must be a fuse.OpKind or a "
                       "function"):
        fc.segmented_reduce(d_in=x, d_out=out, start_offsets_in=s,
                            end_offsets_in=s, op="plus",
                            h_init=np.float32(0), num_segments=3)
    with pytest.raises(TypeError, match="max_segment_size must be None or"):
        fc.segmented_reduce(d_in=x, d_out=out, start_offsets_in=s,
                            end_offsets_in=s, op=fuse.OpKind.PLUS,
                            h_init=np.float32(0), num_segments=3,
                            max_segment_size=-1)


# ---- the GPU check's sections on the CPU ------------------------------------

def _cpu_run(section):
    passed, failed = gpu_check.passed, gpu_check.failed
    section()
    return gpu_check.passed - passed, gpu_check.failed - failed


def test_gpu_check_sections_pass_on_the_cpu(capsys):
    """segments_check's checks as gpu_check runs them, on NumPy arrays
    (the size-0 and size-31 data; the tests above take every size): the
    references, tolerances and the second-run comparison hold for the
    CPU backend."""
    ok, bad = _cpu_run(lambda: S.segments_checks(
        NumpyBackend(), True, gpu_check, sizes=[0, 31]))
    out = capsys.readouterr().out
    assert bad == 0, out
    n_stats = len(DTYPES) * sum(len(list(offset_cases(n))) for n in (0, 31))
    assert ok == 2 * (n_stats + 3 + 5 + 3 * len(SIZES)), out
    ok, bad = _cpu_run(lambda: S.compute_checks(NumpyBackend(), True,
                                                gpu_check))
    out = capsys.readouterr().out
    # Each offsets case, then the iterator case; each twice.
    assert bad == 0 and ok == 2 * (len(list(S.compute_cases())) + 1), out
