"""float16 and bfloat16 (and int8/uint8) on the CPU backend: half_check.py's
GPU checks held to the same exact expectations on NumPy arrays, then what
they do not take: the f32 accumulation that makes a half-precision sum
count past 2048 (f16) or 256 (bf16), NumPy's float32 mean of float16,
constants and casts rounded as NumPy rounds them, NaN and infinities,
axes, and the errors."""

import numpy as np
import pytest

import fuse
import gpu_check
import half_check as H
from test_gpu_check_edges import NumpyBackend

CPU = NumpyBackend()
BF16 = H.BF16
HALVES = [np.dtype(np.float16), BF16]


def test_gpu_check_sections_pass_on_the_cpu(capsys):
    passed, failed = gpu_check.passed, gpu_check.failed
    H.half_checks(CPU, True, gpu_check, sizes=[1, 31, 2049],
                  rows=[(1, 1), (3, 129), (20, 300)])
    out = capsys.readouterr().out
    ok, bad = gpu_check.passed - passed, gpu_check.failed - failed
    assert bad == 0, out
    # Per half type and size: sumsq and chain twice (aligned, at an
    # offset), dot, mean, cumsum, filter, max/argmax, sort, scale; softmax
    # per shape; mixed per size; int8/uint8 sum/max and uint8 / 255.
    # ... and int32/int64 to bfloat16 next to its ties.
    assert ok == 2 * (3 * 11 + 3) + 4 + 3 * 3 + 2, out


@pytest.mark.parametrize("dt", HALVES, ids=["float16", "bfloat16"])
def test_sums_accumulate_in_float32(dt):
    # Steps of one: an f16 total stops at 2048, a bf16 one at 256.
    x = np.ones(5000, dt)
    assert float(fuse.jit(lambda v: v.sum())(x)) == float(dt.type(5000))
    c = fuse.jit(lambda v: np.cumsum(v))(x)
    assert c.dtype == dt
    assert np.array_equal(c, np.arange(1, 5001).astype(dt))
    rows = fuse.jit(lambda v: v.sum(axis=1))(np.ones((3, 4000), dt))
    assert rows.tolist() == [float(dt.type(4000))] * 3


def test_sum_overflows_where_the_type_ends():
    # f32 accumulation, rounded once: 70000 is beyond float16's 65504.
    s = fuse.jit(lambda v: v.sum())(np.ones(70000, np.float16))
    assert s.dtype == np.float16 and np.isinf(s)
    b = fuse.jit(lambda v: v.sum())(np.ones(70000, BF16))
    assert float(b) == float(BF16.type(70000))


def test_mean_of_float16_is_numpys():
    # NumPy sums float16 in float32 for a mean: no overflow at 65504.
    x = np.full(100000, 2.0, np.float16)
    m = fuse.jit(lambda v: v.mean())(x)
    assert m.dtype == np.float16 and float(m) == 2.0 == float(np.mean(x))
    y = np.random.default_rng(0).standard_normal((50, 70)).astype(np.float16)
    got = fuse.jit(lambda v: v.mean(axis=0))(y)
    assert got.dtype == np.float16
    assert np.array_equal(got, np.mean(y, axis=0))


@pytest.mark.parametrize("dt", HALVES, ids=["float16", "bfloat16"])
def test_constants_and_casts_round_as_numpy(dt):
    x = np.array([1.0, -3.0, 1e-3, 1000.0], dt)
    got = fuse.jit(lambda v: v * 0.1 + 1e-4)(x)
    assert got.dtype == dt
    # NumPy: the weak Python floats become dt, each operation rounds.
    want = x * dt.type(0.1) + dt.type(1e-4)
    assert np.array_equal(got, want)
    w = np.array([1.0000001, 3.14159265358979, -2.5e-5, 7e4, 1e39, -0.0,
                  np.inf, np.nan], np.float64)
    got = fuse.jit(lambda v: v.astype(dt))(w)
    H.same(got, w.astype(dt), "float64 -> %s" % dt)
    got = fuse.jit(lambda v: v.astype(np.float64))(w.astype(dt))
    H.same(got, w.astype(dt).astype(np.float64), "%s -> float64" % dt)


def test_float64_to_bfloat16_rounds_once():
    # Halfway cases of bfloat16 that an f64 -> f32 -> bf16 double rounding
    # gets wrong: 1 + 2^-8 + 2^-30 is above the bf16 midpoint 1 + 2^-8,
    # but rounds to exactly it in f32 and then to even (1.0).
    w = np.array([1 + 2.0 ** -8 + 2.0 ** -30, -(1 + 2.0 ** -8 + 2.0 ** -30),
                  1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8 - 2.0 ** -40,
                  2.0 ** -133 * 1.5, 3.4e38 * 1.001])
    got = fuse.jit(lambda v: v.astype(BF16))(w)
    H.same(got, w.astype(BF16), "f64 -> bf16")
    assert float(got[0]) == 1 + 2.0 ** -7


@pytest.mark.parametrize("dt", HALVES, ids=["float16", "bfloat16"])
def test_nan_and_infinities(dt):
    x = np.array([1.0, np.nan, -np.inf, 2.0, np.inf], dt)
    m = fuse.jit(lambda v: (v.max(), v.min(), fuse.argmax(v)))(x)
    assert np.isnan(m[0]) and np.isnan(m[1]) and int(m[2]) == 1
    e = fuse.jit(lambda v: np.exp(v))(x)
    H.same(e, np.exp(x.astype(np.float32)).astype(dt), "exp")
    s = fuse.jit(lambda v: fuse.sort(v))(x)
    H.same(s, np.sort(x.astype(np.float32)).astype(dt), "sort")


def test_math_functions_in_float32_rounded_once():
    x = np.linspace(-4, 4, 1001).astype(np.float16)
    for name in ("exp", "log1p", "tanh", "sqrt", "sin"):
        fn = getattr(np, name)
        with np.errstate(all="ignore"):
            got = fuse.jit(lambda v: fn(v))(x)
            want = fn(x.astype(np.float32)).astype(np.float16)
        assert got.dtype == np.float16
        # libm's float32 results differ from NumPy's in the last f32 bit
        # at most; rounded to f16 they agree but at rare midpoints.
        with np.errstate(all="ignore"):
            diff = np.abs(got.astype(np.float32) - want.astype(np.float32))
        ok = (diff <= 2.0 ** -10 * np.abs(want.astype(np.float32))) | \
            (np.isnan(got) & np.isnan(want)) | (got == want)
        assert ok.all(), name


def test_exp_of_uint8_is_float16_as_in_numpy():
    x = np.arange(12, dtype=np.uint8)
    got = fuse.jit(lambda v: np.exp(v))(x)
    assert got.dtype == np.exp(x).dtype == np.float16
    assert np.array_equal(got, np.exp(x))


def test_promotion_follows_numpy():
    h = np.ones(4, np.float16)
    b = np.ones(4, BF16)
    f = np.ones(4, np.float32)
    i8 = np.ones(4, np.int8)
    for a, c in ((h, f), (b, f), (h, b), (b, i8), (h, i8)):
        got = fuse.jit(lambda u, v: u + v)(a, c)
        assert got.dtype == (a + c).dtype, (a.dtype, c.dtype)


def test_half_scalars_as_arguments():
    x = np.arange(6).astype(np.float16)
    got = fuse.jit(lambda v, s: v * s)(x, np.float16(0.333))
    assert got.dtype == np.float16
    assert np.array_equal(got, x * np.float16(0.333))
    y = np.arange(6).astype(BF16)
    got = fuse.jit(lambda v, s: v + s)(y, BF16.type(0.1))
    assert np.array_equal(got, y + BF16.type(0.1))


def test_unsupported_dtypes_still_name_the_argument():
    with pytest.raises(TypeError, match="argument 'v'.*complex64"):
        fuse.jit(lambda v: v.sum())(np.ones(3, np.complex64))


def test_rows_check_sections_pass_on_the_cpu(capsys):
    import rows_check
    passed, failed = gpu_check.passed, gpu_check.failed
    rows_check.rows_checks(CPU, True, gpu_check,
                           ln_shapes=[(1, 1), (3, 129), (20, 300)],
                           ln_edge_shapes=[(5, 300)],
                           rank3_shapes=[(1, 1, 1), (2, 3, 129)],
                           scattered_shapes=rows_check.SCATTERED_SHAPES[:3],
                           leading_shapes=rows_check.LEADING_SHAPES[:4])
    out = capsys.readouterr().out
    assert gpu_check.failed - failed == 0, out
    assert gpu_check.passed - passed == (
        3 * (3 + 2) + 1 + 3 + len(rows_check.ROWS_COMPUTED_SHAPES) + 2 * 4),\
        out


def test_leading_verify_catches_a_wrong_result():
    import rows_check
    from check_util import Mismatch
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 7)).astype(np.float32)
    k = rng.integers(-9, 9, (2, 40, 3)).astype(np.int32)
    good = list(rows_check.leading_axes(x, k))
    rows_check.leading_verify(CPU, good, x, k)
    for i, bump in ((0, 0.1), (1, 1e-6), (2, 1e-3), (3, 1)):
        bad = [np.array(g, copy=True) for g in good]
        bad[i].flat[1] += bump
        with pytest.raises(Mismatch, match="result %d" % i):
            rows_check.leading_verify(CPU, bad, x, k)


def test_relu_column_verify_catches_a_wrong_result():
    import rows_check
    from check_util import Mismatch
    x = np.random.default_rng(3).standard_normal((300, 7)).astype(np.float32)
    good = list(rows_check.relu_column_sums(x))
    rows_check.relu_column_verify(CPU, good, x)
    for i, at, what in ((0, 1, "sums"), (1, np.flatnonzero(x > 0)[0], "relu")):
        bad = [np.array(g, copy=True) for g in good]
        bad[i].flat[at] *= 1.01
        with pytest.raises(Mismatch, match=what):
            rows_check.relu_column_verify(CPU, bad, x)


def test_rows_computed_verify_catches_a_wrong_result():
    import rows_check
    from check_util import Mismatch
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 33)).astype(np.float32)
    src = rng.standard_normal(77).astype(np.float32)
    idx = rng.integers(-20, 100, (5, 33)).astype(np.int32)
    edges = np.sort(rng.standard_normal(64)).astype(np.float32)
    good = list(rows_check.rows_computed(x, src, idx, edges))
    rows_check.rows_computed_verify(CPU, good, x, src, idx, edges)
    # Out-of-range indices read 0: a gather that clamped them instead.
    clamped = np.clip(idx, 0, 76)
    for i, bad in ((0, good[0] * (1 + 1e-3)),
                   (1, (src[clamped] * x).sum(axis=1)),
                   (2, good[2] + 1), (3, good[3] + 1)):
        wrong = list(good)
        wrong[i] = bad
        with pytest.raises(Mismatch):
            rows_check.rows_computed_verify(CPU, wrong, x, src, idx, edges)


def test_scattered_axes_verify_catches_a_wrong_result():
    import rows_check
    from check_util import Mismatch
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 7)).astype(np.float32)
    k = rng.integers(-9, 9, (2, 3, 5, 7)).astype(np.int32)
    good = list(rows_check.scattered_ref(x, k))
    rows_check.scattered_verify(CPU, good, x, k)
    for i, bad in ((0, good[0] * (1 + 1e-3)), (4, good[4] + 1),
                   (2, good[3])):
        wrong = list(good)
        wrong[i] = bad
        with pytest.raises(Mismatch):
            rows_check.scattered_verify(CPU, wrong, x, k)


def test_wide_integers_to_bfloat16_round_once():
    # 606076929 lies above a bfloat16 midpoint that float32 rounds it onto.
    got = fuse.jit(lambda v: v.astype(BF16))(
        np.array([606076929, -606076929, 20774913], np.int32))
    assert got.view(np.uint16).tolist() == [0x4E11, 0xCE11, 0x4B9F]
    for dt in (np.uint32, np.uint64, np.int64):
        v = H.near_ties(dt) if np.iinfo(dt).min < 0 else np.abs(
            H.near_ties(np.int64)).astype(dt)
        got = fuse.jit(lambda x: x.astype(BF16))(v)
        H.same(got, v.astype(np.float64).astype(BF16), str(dt))
