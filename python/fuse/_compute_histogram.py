"""fuse.compute.histogram_even, with cuda.compute's arguments: CUB's
DeviceHistogram::HistogramEven rule (the bin of each sample computed in
the C++ types CUB computes it in), one fused pass that bins and counts
(fuse.histogram). fuse.compute exports it."""

import numbers

import numpy as np

from . import _sym as S
from . import _types as T
from . import compute as C
from ._histogram import count_bins
from ._ir import Sym, TensorVal, TraceContext, current


# ---- C++'s types -------------------------------------------------------------

def _promoted(dt):
    """C's integer promotion: types narrower than int become int32."""
    dt = np.dtype(dt)
    if dt.kind in "iu" and dt.itemsize < 4:
        return np.dtype(np.int32)
    return dt


def cpp_common_type(a, b):
    """std::common_type_t of two arithmetic types (NumPy dtypes): the type
    of `cond ? a : b`. A type with itself is itself (int8 stays int8);
    otherwise the usual arithmetic conversions: a float wins (the wider
    float of two), integers are promoted (int8, uint8, int16, uint16 to
    int32), then the wider, and of a signed and an unsigned type of one
    width the unsigned one (int64 with uint64 is uint64, int64 with uint32
    int64)."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    if a.kind == "f" or b.kind == "f":
        fl = [d for d in (a, b) if d.kind == "f"]
        return max(fl, key=lambda d: d.itemsize)
    a, b = _promoted(a), _promoted(b)
    if a == b:
        return a
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    u, s = (a, b) if a.kind == "u" else (b, a)
    if u.itemsize >= s.itemsize:
        return u
    return s        # the signed type is wider: it holds every unsigned value


def int_arithmetic_type(sample, common):
    """CUB's IntArithmeticT: uint32 where the sample and common types take
    4 bytes together, else uint64."""
    if np.dtype(sample).itemsize + np.dtype(common).itemsize <= 4:
        return np.dtype(np.uint32)
    return np.dtype(np.uint64)


def _wrap(v, dt):
    """The Python int v converted to the integer dtype dt, modulo 2^bits."""
    dt = np.dtype(dt)
    bits = dt.itemsize * 8
    v &= (1 << bits) - 1
    if dt.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def may_overflow(level_t, sample_t, lower, upper, num_bins):
    """CUB's MayOverflow check (cudaErrorInvalidValue from HistogramEven):
    for integer levels and samples, (IntArithmeticT)(upper - lower), the
    difference in the levels' promoted type, exceeds the largest
    IntArithmeticT over num_bins: (sample - lower) * bins could wrap."""
    common = cpp_common_type(level_t, sample_t)
    if common.kind == "f":
        return False
    it = int_arithmetic_type(sample_t, common)
    d = _wrap(int(upper) - int(lower), _promoted(level_t))
    d = _wrap(d, it)
    return d > (2 ** (it.itemsize * 8) - 1) // num_bins


def cub_bin(x, lower, upper, bins, level_t):
    """CUB's ScaleTransform bin of each sample x (symbolic): -1 where the
    sample is outside [lower, upper) (in the common type of the level and
    sample types). Floats: int((x - lower) * (T(bins) / (upper - lower)))
    (a NaN product, -inf lower, gives bin 0 as the GPU's conversion does);
    integers: int((U)(x - lower) * (U)(T)bins / (U)(T)(upper - lower)) with
    U CUB's IntArithmeticT, every step wrapping as in C++. bins: the bin
    count as a symbolic int64."""
    ct = cpp_common_type(level_t, x.dtype)
    xc, mn, mx = S.cast(x, ct), S.cast(lower, ct), S.cast(upper, ct)
    valid = (xc >= mn) & (xc < mx)
    if ct.kind == "f":
        recip = S.cast(bins, ct) / (mx - mn)
        v = (xc - mn) * recip
        v = S.where(v != v, 0, v)
        inside = valid & (v >= 0) & (S.cast(v, np.float64) <
                                     S.cast(bins, np.float64))
        return S.where(inside, S.cast(S.where(inside, v, 0), np.int32), -1)
    it = int_arithmetic_type(x.dtype, ct)
    pt = _promoted(ct)
    diff = S.cast(S.cast(xc, pt) - S.cast(mn, pt), it)
    rng = S.cast(S.cast(S.cast(mx, pt) - S.cast(mn, pt), ct), it)
    nb = S.cast(S.cast(bins, ct), it)
    q = (diff * nb) // rng      # unsigned; rng is 0 only where not valid
    return S.where(valid, S.cast(q, np.int32), -1)


# ---- the algorithm -----------------------------------------------------------

def _level(v, name):
    """A level as cuda.compute takes it (np.array([v], type(v))): a NumPy
    scalar keeps its dtype, a Python int is int64, a float float64."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError("%s: expected a number, got a bool" % name)
    if isinstance(v, np.generic):
        T.check_supported(v.dtype, name)
        return v
    if isinstance(v, numbers.Integral):
        info = np.iinfo(np.int64)
        if not info.min <= v <= info.max:
            raise OverflowError("%s: Python integer %d out of bounds for "
                                "int64" % (name, v))
        return np.int64(v)
    if isinstance(v, numbers.Real):
        return np.float64(v)
    raise TypeError("%s: expected a NumPy scalar or a Python number, got %s"
                    % (name, type(v).__name__))


_COUNTS = {np.dtype(np.int32): np.int32, np.dtype(np.uint32): np.int32,
           np.dtype(np.int64): np.int64, np.dtype(np.uint64): np.int64}


def _sample_dtype(d_samples, n):
    """The samples' dtype: an array's, or an iterator's values' (traced on
    symbolic inputs of the iterator's arrays, compiling nothing)."""
    if not isinstance(d_samples, C._Iterator):
        return C._dtype(d_samples)
    from . import gpu
    plan = C._new_plan(n)
    src = C._plan_input(d_samples, plan, n, "d_samples")
    with TraceContext(plan.names) as ctx:
        params = []
        for i, v in enumerate(plan.values):
            if isinstance(v, (np.ndarray, np.generic)):
                dt, nd = v.dtype, np.ndim(v)
            else:
                d = gpu.device_array(v, plan.names[i])
                dt, nd = d.dtype, len(d.shape)
            tv = TensorVal("%%arg%d" % i, dt,
                           [Sym("input", (i, k)) for k in range(nd)])
            ctx.args.append(tv)
            params.append(S.leaf(tv))
        x = C._as_scalars(src(params, Sym("value", 0)), "histogram_even")
        return S.wrap(x).dtype


@C._streamed
def histogram_even(d_samples, d_histogram, num_output_levels, lower_level,
                   upper_level, num_samples, stream=None, *, _temp=C._OWN):
    """d_histogram[b] = the number of samples among d_samples[:num_samples]
    in bin b of num_output_levels - 1 even bins over [lower_level,
    upper_level) (upper EXCLUSIVE), for b < num_output_levels - 1;
    cuda.compute's arguments and CUB's DeviceHistogram::HistogramEven rule
    (cub_bin). The levels' dtype is lower_level's (a Python int is int64, a
    float float64); upper_level must have it. d_histogram holds int32,
    uint32, int64 or uint64 counts; its elements past the bins are left as
    they were. d_samples may be an iterator, computed in the counting
    pass. Integer levels whose range times the bin count may overflow
    CUB's arithmetic raise ValueError, as CUB refuses them."""
    n = C._num_items(num_samples)
    if isinstance(num_output_levels, (bool, np.bool_)) or not isinstance(
            num_output_levels, (numbers.Integral, np.integer)):
        raise TypeError("histogram_even: num_output_levels must be an int, "
                        "got %r" % (num_output_levels,))
    levels = int(num_output_levels)
    if not 2 <= levels <= 2 ** 31 - 1:
        raise ValueError("histogram_even: num_output_levels must be in [2, "
                         "2^31 - 1] (num_output_levels - 1 bins), got %d"
                         % levels)
    bins = levels - 1
    lo = _level(lower_level, "lower_level")
    hi = _level(upper_level, "upper_level")
    if lo.dtype != hi.dtype:
        raise TypeError("histogram_even: lower_level is %s and upper_level "
                        "%s; give both levels one type (cuda.compute reads "
                        "them as lower_level's)" % (lo.dtype, hi.dtype))
    dd = C._check_out(d_histogram, "d_histogram", bins)
    out_t = C._dtype(d_histogram)
    if out_t not in _COUNTS:
        raise TypeError("histogram_even: d_histogram holds counts: expected "
                        "int32, uint32, int64 or uint64, got %s" % out_t)
    if lo.dtype.kind != "f" and may_overflow(
            lo.dtype, _sample_dtype(d_samples, n), lo, hi, bins):
        raise ValueError(
            "histogram_even: the levels' range [%s, %s) times %d bins may "
            "overflow CUB's integer bin arithmetic (cub::DeviceHistogram "
            "refuses it with cudaErrorInvalidValue)" % (lo, hi, bins))
    plan = C._new_plan(n)
    plan.depends("histogram_even", out_t.str, lo.dtype.str)
    src = C._plan_input(d_samples, plan, n, "d_samples")
    il = plan.add("lower_level", lo)
    iu = plan.add("upper_level", hi)
    ib = plan.add("num_bins", np.int64(bins))

    def build(params, nsym):
        x = S.wrap(C._as_scalars(src(params, nsym), "histogram_even"))
        if x.dtype == np.bool_:
            raise TypeError("histogram_even: bool samples are not supported")
        nb = params[ib]
        b = cub_bin(x, params[il], params[iu], nb, lo.dtype)
        sym = S.as_sym(nb, "histogram_even bins")
        counts = count_bins(b, (current().index_of(sym), sym),
                            _COUNTS[out_t])
        return S.cast(counts, out_t)
    return C._finish(d_histogram,
                     C._run(plan, build, d_histogram, stream, dd, _temp),
                     bins, _temp, dd)
