"""Value edges (docs/reliability.md, row 12): the @fuse.jit pipelines, the
input makers and the NumPy references, shared by the CPU tests
(test_value_edges.py, pytest) and the GPU check (gpu_check.py, plain
Python: this module must not import pytest, the GPU machine may not have
it).

Edge values: NaN, +-Inf, -0.0 and +0.0, float32/float64 denormals, the
smallest normal and the largest finite values.

Semantics the references follow (docs/dialect.md):
  - float max/min propagate NaN (arith.maximumf/minimumf, "NaN policy"):
    np.maximum / np.max, not np.fmax / np.nanmax; and -0.0 < +0.0
    (ieee_maximum / ieee_minimum below honour the sign of zero, NumPy's
    do not);
  - an add reduction or scan starts from its init, +0.0 by default, so a
    sum or prefix of only -0.0 is +0.0;
  - the CPU backend carries a float32 add scan in float64 (docs/dialect.md,
    Numerics, CPU); other backends need not.
"""

import numpy as np

import fuse

NAN, INF = np.nan, np.inf
FLOATS = [np.float32, np.float64]


# ---- inputs -------------------------------------------------------------------

def edges(dtype):
    fi = np.finfo(dtype)
    den = 1e-40 if dtype == np.float32 else 1e-310
    assert 0 < den < fi.tiny          # a denormal, not flushed by NumPy
    v = [NAN, INF, -INF, -0.0, 0.0, den, -den, fi.tiny, -fi.tiny, fi.max,
         -fi.max, fi.max / 2, 1.0, -2.5, 0.5]
    return np.array(v, dtype)


def pairs(x):
    """Every (a, b) combination of the edge values, as two flat arrays."""
    return np.repeat(x, x.size), np.tile(x, x.size)


def math_inputs(dtype):
    """The edge values plus arguments whose exp over/underflows."""
    return np.concatenate([edges(dtype), np.array(
        [-1000.0, 1000.0, -100.0, 88.0, 700.0], dtype)])


# More finite arguments for exp/log/sqrt/tanh: exp(-720) is a float64
# denormal, exp(-100) a float32 one; tanh near its polynomial/exp switch.
MATH_EXTRA = [-745.0, -720.0, -87.0, -20.0, -0.55, -1e-30, 1e-30, 0.3,
              0.65, 3.0, 9.5, 20.0, 80.0]


def reduction_nan_input(n, pos, dtype):
    x = np.full(n, 0.75, dtype)
    x[pos] = NAN
    return x


def reduction_nan_positions(n):
    """First, middle, last, and a later 1024-element block."""
    return sorted({0, n // 2, n - 1, min(n - 1, 2047)})


def reduction_inf_cases(dtype, any_order=False):
    """Reduction inputs with infinities and overflow. any_order=True keeps
    only those whose sum, max, min, prod and mean are the same in every
    grouping (what a backend that reassociates, like the GPU's tree, must
    match exactly); it drops [max, max, -max, -max], whose sum is inf
    left to right (NumPy, the CPU's blocks) but 0 as (max + -max) +
    (max + -max) or NaN as (max + max) + (-max + -max)."""
    fi = np.finfo(dtype)
    cases = [[INF, 1.0], [-INF, 1.0], [INF, -INF], [-INF, 2.0, INF],
             [fi.max, fi.max], [-fi.max, -fi.max],
             [fi.max, fi.max, -fi.max, -fi.max], [fi.max / 2] * 3,
             [0.0, INF], [fi.max, 2.0], [-INF, -INF], [INF, INF],
             [fi.max, -fi.max], [1.0] * 2000 + [INF] + [-1.0] * 3000]
    if any_order:
        cases = [c for c in cases
                 if c != [fi.max, fi.max, -fi.max, -fi.max]]
    return cases


def denormal_sum_input(dtype, n=3000):
    """3000 denormals of alternating sign after 40 positive ones (the CPU
    test's input): every left-to-right partial sum stays below the
    smallest normal, where addition is exact (fixed point), so the sum is
    exactly 40 * den."""
    den = edges(dtype)[5]
    x = np.full(n, den, dtype)
    x[41::2] = -den
    return x


def exact_denormal_input(dtype, n, seed=0):
    """(x, exact sum): n denormals +-d with d a power of two so small that
    n * d stays below the smallest normal. Every partial sum, in any
    grouping, is then an integer multiple of the smallest denormal below
    2^23 of them: exact. So a sum must equal the exact value whatever the
    order, and any flush to zero shows."""
    fi = np.finfo(dtype)
    k = int(np.ceil(np.log2(n))) + 1          # n * d <= tiny / 2
    d = dtype(np.ldexp(1.0, fi.minexp - k))
    assert 0 < d < fi.tiny and n * float(d) < float(fi.tiny)
    rng = np.random.default_rng(seed)
    sign = np.where(rng.random(n) < 0.55, 1.0, -1.0)
    sign[:40] = 1.0
    x = (sign * d).astype(dtype)
    exact = dtype((int((sign > 0).sum()) - int((sign < 0).sum())) * float(d))
    return x, exact


def scan_nan_input(n, k, dtype):
    x = np.linspace(-1, 1, n).astype(dtype)
    x[k] = NAN
    return x


def scan_overflow_input(dtype):
    """[max, max, -max]: float64 (and NumPy's float32) overflow at the
    second prefix and stay inf; a float32 add scan carried in float64 (the
    CPU backend) comes back to max."""
    fi = np.finfo(dtype)
    return np.array([fi.max, fi.max, -fi.max], dtype)


def variance_cases(dtype):
    fi = np.finfo(dtype)
    return [[1.0, INF, 2.0], [1.0, -INF], [NAN, 1.0], [fi.max, -fi.max],
            [INF], [1e-40 if dtype == np.float32 else 1e-310] * 4,
            [fi.max / 4, fi.max / 4]]


def variance_cases_any_order(dtype):
    """variance_cases (every one gives the same result in any summation
    order) plus [max, -max, 0, 0]: its sums never overflow in any grouping
    (every partial sum is 0 or +-max), so the mean is 0 and the variance
    overflows to inf whatever the order."""
    fi = np.finfo(dtype)
    return variance_cases(dtype) + [[fi.max, -fi.max, 0.0, 0.0]]


def softmax_input(dtype=np.float32):
    """Rows with -inf entries (masked logits), all -inf, +inf, a NaN, and
    signed zeros with denormals."""
    return np.array([[0.0, -INF, 1.0, 2.0],
                     [-INF, -INF, -INF, -INF],
                     [1.0, INF, 0.0, -1.0],
                     [NAN, 0.0, 1.0, 2.0],
                     [-0.0, 0.0, 1e-40, -1e-40]], dtype)


def softmax_long_rows(dtype, cols=5003):
    """Rows longer than one block's registers hold (the GPU's re-reading
    fallback): -inf masks, a NaN late in a row, all -inf, a late +inf, and
    a plain row."""
    X = np.tile(np.linspace(-1, 1, cols), (5, 1))
    X[0, ::7] = -INF
    X[1, cols - 3] = NAN
    X[2, :] = -INF
    X[3, cols - 2] = INF
    return X.astype(dtype)


# ---- pipelines ----------------------------------------------------------------

@fuse.jit
def arith(x, y):
    return (x + y, x - y, x * y, x / y, -x, abs(x), x * 2.0, x * 0.5,
            x * x)


@fuse.jit
def passthrough(x, y):
    """Arguments returned unchanged beside a computed result: the GPU
    trace copies them (a map yielding the element, fused with the
    product's), bit for bit, NaN, inf and -0.0 included."""
    return x, x * y, y


@fuse.jit
def math_fns(x):
    return fuse.exp(x), fuse.log(x), fuse.sqrt(x), fuse.tanh(x)


@fuse.jit
def compare_select(x, y):
    return (x < y, x <= y, x > y, x >= y, x == y, x != y,
            fuse.where(x > y, x, y), fuse.where(x == x, x, 0.0))


@fuse.jit
def compare_select_i32(x, y):
    """compare_select with the predicates as int32 0/1: GPU code generation
    rejects bool (i1) tensors at a group boundary, so the GPU check runs
    this one."""
    return ((x < y).astype(np.int32), (x <= y).astype(np.int32),
            (x > y).astype(np.int32), (x >= y).astype(np.int32),
            (x == y).astype(np.int32), (x != y).astype(np.int32),
            fuse.where(x > y, x, y), fuse.where(x == x, x, 0.0))


@fuse.jit
def maxmin(x, y):
    return fuse.maximum(x, y), fuse.minimum(x, y), fuse.relu(x)


@fuse.jit
def reductions(x):
    return x.sum(), x.max(), x.min(), x.prod(), x.mean()


@fuse.jit
def scans(x):
    return (fuse.scan(x, op="add"), fuse.scan(x, op="max"),
            fuse.scan(x, op="min"), fuse.scan(x, op="add", exclusive=True))


@fuse.jit
def keep_positive(x, i):
    y, j = fuse.filter((x, i), lambda a, b: a > 0)
    return y, j, y.shape[0]


@fuse.jit
def keep_nan(x):
    y = fuse.filter(x, lambda a: a != a)
    return y.shape[0]


@fuse.jit
def keep_nan_values(x):
    """keep_nan returning the kept values too: on the GPU a filter's count
    comes with the filter result it counts (a count alone is refused)."""
    y = fuse.filter(x, lambda a: a != a)
    return y, y.shape[0]


@fuse.jit
def variance(x):
    return ((x - x.mean()) ** 2).mean()


@fuse.jit
def softmax_rows(X):
    e = fuse.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---- references ---------------------------------------------------------------

def arith_ref(x, y):
    dt = x.dtype.type
    with np.errstate(all="ignore"):
        return (x + y, x - y, x * y, x / y, -x, np.abs(x), x * dt(2),
                x * dt(0.5), x * x)


def passthrough_ref(x, y):
    with np.errstate(all="ignore"):
        return (x, x * y, y)


def math_ref(x):
    """exp, log, sqrt, tanh in x's dtype, computed by NumPy in x's dtype."""
    with np.errstate(all="ignore"):
        return (np.exp(x), np.log(x), np.sqrt(x), np.tanh(x))


def math_ref_wide(x):
    """The same, float32 ones computed in float64 and rounded once (within
    half an ulp of the exact value)."""
    if x.dtype != np.float32:
        return math_ref(x)
    with np.errstate(over="ignore"):
        return tuple(r.astype(np.float32)
                     for r in math_ref(x.astype(np.float64)))


def compare_select_ref(x, y):
    dt = x.dtype.type
    with np.errstate(invalid="ignore"):
        return (x < y, x <= y, x > y, x >= y, x == y, x != y,
                np.where(x > y, x, y), np.where(x == x, x, dt(0)))


def compare_select_i32_ref(x, y):
    r = compare_select_ref(x, y)
    return tuple(a.astype(np.int32) for a in r[:6]) + r[6:]


def maxmin_ref(x, y):
    """NumPy's maximum/minimum (NaN propagates; the sign of a zero result
    is NumPy's choice, see ieee_maximum)."""
    return (np.maximum(x, y), np.minimum(x, y),
            np.maximum(x, x.dtype.type(0)))


def ieee_maximum(a, b):
    """IEEE 754-2019 maximum (arith.maximumf, llvm.maximum): NaN if either
    is NaN, and -0.0 < +0.0, so max(-0.0, +0.0) = +0.0 in either order."""
    a, b = np.asarray(a), np.asarray(b)
    r = np.array(np.maximum(a, b))
    z = (a == 0) & (b == 0)
    r[z] = np.where(np.signbit(a) & np.signbit(b), -0.0, 0.0)[z]
    return r


def ieee_minimum(a, b):
    """IEEE 754-2019 minimum: min(-0.0, +0.0) = -0.0 in either order."""
    a, b = np.asarray(a), np.asarray(b)
    r = np.array(np.minimum(a, b))
    z = (a == 0) & (b == 0)
    r[z] = np.where(np.signbit(a) | np.signbit(b), -0.0, 0.0)[z]
    return r


def ieee_maxmin_ref(x, y):
    """maxmin's results with the sign of zero of the documented semantics."""
    return (ieee_maximum(x, y), ieee_minimum(x, y),
            ieee_maximum(x, np.zeros_like(x)))


def ieee_max_accumulate(x):
    """Inclusive max scan from -inf with -0.0 < +0.0: a zero prefix maximum
    is +0.0 once a +0.0 has been seen."""
    r = np.maximum.accumulate(x)
    pos0 = np.cumsum((x == 0) & ~np.signbit(x)) > 0
    z = r == 0
    r[z] = np.where(pos0, 0.0, -0.0)[z]
    return r


def ieee_min_accumulate(x):
    """Inclusive min scan from +inf: a zero prefix minimum is -0.0 once a
    -0.0 has been seen."""
    r = np.minimum.accumulate(x)
    neg0 = np.cumsum((x == 0) & np.signbit(x)) > 0
    z = r == 0
    r[z] = np.where(neg0, -0.0, 0.0)[z]
    return r


def reduction_ref(x):
    with np.errstate(all="ignore"):
        return (np.add.reduce(x, initial=x.dtype.type(0)), np.max(x),
                np.min(x), np.prod(x), np.add.reduce(x, initial=x.dtype.type(0))
                / x.dtype.type(x.size))


def ieee_reduction_ref(x):
    """reduction_ref with the documented sign of zero for max/min (the sum
    starts from +0.0, the product's sign is the parity of the negative
    factors in any order)."""
    s, mx, mn, pr, mean = reduction_ref(x)
    if x.size:
        mx = ieee_max_accumulate(x.copy())[-1]
        mn = ieee_min_accumulate(x.copy())[-1]
    return s, mx, mn, pr, mean


def scan_refs(x):
    """(add, max, min, exclusive add) in NumPy's sequential order, the add
    scans in x's dtype."""
    dt = x.dtype.type
    with np.errstate(all="ignore"):
        add = np.cumsum(x)
        exc = np.concatenate([[dt(0)], add[:-1]]).astype(x.dtype)
    return (add, np.maximum.accumulate(x), np.minimum.accumulate(x), exc)


def ieee_scan_refs(x):
    """scans' results under the documented semantics, in sequential order
    (so for inputs whose results do not depend on the order): the add
    scans start from their init +0.0 (a prefix of only -0.0 is +0.0), max
    and min scans honour -0.0 < +0.0."""
    dt = x.dtype.type
    with np.errstate(all="ignore"):
        add = np.cumsum(np.concatenate([[dt(0)], x]).astype(x.dtype))
    return (add[1:], ieee_max_accumulate(x.copy()),
            ieee_min_accumulate(x.copy()), add[:-1])


def keep_positive_ref(x, idx):
    with np.errstate(invalid="ignore"):
        mask = x > 0
    return x[mask], idx[mask], int(mask.sum())


def variance_ref(x):
    with np.errstate(all="ignore"):
        return np.var(x)


def softmax_ref(X):
    with np.errstate(all="ignore"):
        e = np.exp(X - X.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def zero_insensitive(a):
    """a with -0.0 replaced by +0.0 (for the checks that leave the sign of
    zero to test_signed_zero_elementwise)."""
    a = a.copy()
    a[a == 0] = 0
    return a


# ---- comparison ---------------------------------------------------------------

def same_diff(got, ref):
    """None when got equals ref at the bit level that matters (same dtype and
    shape, NaN where NaN, equal values elsewhere, the same sign on zeros),
    else a one-line description of the first difference."""
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype != ref.dtype:
        return "dtype %s, expected %s" % (got.dtype, ref.dtype)
    if got.shape != ref.shape:
        return "shape %s, expected %s" % (got.shape, ref.shape)
    # bfloat16 (ml_dtypes) is kind 'V' but a float for the comparison.
    if ref.dtype.kind == "f" or ref.dtype.name == "bfloat16":
        bad = ~((got == ref) | (np.isnan(got) & np.isnan(ref)))
        zero = (ref == 0) & (got == 0)
        bad |= zero & (np.signbit(got) != np.signbit(ref))
    else:
        bad = got != ref
    if not bad.any():
        return None
    i = np.flatnonzero(bad)[0]
    return "%d of %d differ (first at %d: %r, expected %r)" % (
        bad.sum(), ref.size, i, got.flat[i], ref.flat[i])


def assert_same(got, ref, what=""):
    """Bitwise-level equality: same dtype and shape, NaN where NaN, equal
    values otherwise, and the same sign on zeros."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, (what, got.dtype, ref.dtype)
    assert got.shape == ref.shape, (what, got.shape, ref.shape)
    np.testing.assert_array_equal(got, ref, err_msg=what)
    zero = ref == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(ref[zero]),
                                  err_msg="sign of zero: " + what)
