"""GPU checks of the Python package, in plain Python (no pytest).

Every WORKLOADS pipeline, both front ends (@fuse.jit and fuse.compute), on
PyTorch CUDA tensors and CuPy arrays, sizes 0, 1, 31, 1000003 (rows shapes
as test_workloads.py), against NumPy float64 references with the CPU tests'
tolerances; the value edges of test_value_edges.py (edge_cases.py: NaN,
+-Inf, -0.0, denormals, largest finite values; float32 and float64) against
NumPy under the documented semantics; plus argument errors raised before any
launch, the cache, stream=, and that fuse.compute writes its results
straight into d_out (no output allocated) where d_out can take them, and
CUDA graph capture and replay (graph_check.py); fuse.compute with the
caller's temporary storage (temp_storage_check.py); fuse.sort and
fuse.argsort through the runtime's radix sort (sort_check.py);
fuse.searchsorted fused into its groups (searchsorted_check.py).

Modes:
  - a GPU (fuse.gpu.available()): the full checks, per backend found
    (torch, cupy); a missing backend is a FAIL with FUSE_REQUIRE_GPU=1
    (scripts/gpu/run-python-tests.sh sets it), else a SKIP line.
  - FUSE_GPU_COMPILE_ONLY=1: the same calls on fuse.gpu.StandIn arrays
    (host memory posing as CUDA arrays): fills the cache with exactly the
    entries the GPU run needs (scripts/gpu/prepare-python.sh).
  - no GPU otherwise: the same calls, look-ups only (as on the GPU machine,
    run with FUSE_GPU_NO_COMPILE=1 to hide fuse-compile): every pipeline
    must be found in the cache, without compiling.
One line per check (PASS/FAIL/SKIP name: detail); the last line is
"N passed, N failed"; the exit status is 1 on any failure.
"""

import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import fuse  # noqa: E402
import fuse.compute as fc  # noqa: E402
from fuse import OpKind  # noqa: E402
import edge_cases as E  # noqa: E402
import graph_check  # noqa: E402
import searchsorted_check  # noqa: E402
import sort_check  # noqa: E402
import temp_storage_check  # noqa: E402
import workloads as W  # noqa: E402

SIZES = [0, 1, 31, 1000003]
SHAPES = [(0, 4), (1, 1), (31, 17), (1, 1000003), (1000003, 1)]
REQUIRE = os.environ.get("FUSE_REQUIRE_GPU", "") not in ("", "0")

passed = failed = 0


def report(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                       ": " + detail if detail else ""), flush=True)


def rand(shape, dtype=np.float32, seed=0):
    """Uniform in [-1, 1), with no zeros (as conftest.rand)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    x[x == 0] = 0.5
    return x.astype(dtype)


def sum_rtol(n):
    return 1e-5 + 2e-9 * n


# ---- backends ----------------------------------------------------------------

class TorchBackend:
    name = "torch"

    def __init__(self):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch = torch

    def dev(self, a):
        return self.torch.from_numpy(np.ascontiguousarray(a)).cuda()

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=fuse.gpu._torch_dtype(dtype),
                                device="cuda")

    def host(self, a):
        if isinstance(a, (int, float, np.generic)):
            return np.asarray(a)
        return a.cpu().numpy()

    def host_array_for_gpu(self, a):
        return self.torch.from_numpy(a)          # a CPU tensor

    def half(self, a):
        return self.dev(a).half()


class CupyBackend:
    name = "cupy"

    def __init__(self):
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device for CuPy")
        self.cupy = cupy

    def dev(self, a):
        return self.cupy.asarray(a)

    def empty(self, shape, dtype):
        return self.cupy.empty(shape, dtype)

    def host(self, a):
        if isinstance(a, (int, float, np.generic)):
            return np.asarray(a)
        return self.cupy.asnumpy(a)

    def host_array_for_gpu(self, a):
        return a                                  # a NumPy array

    def half(self, a):
        return self.cupy.asarray(a.astype(np.float16))


class StandInBackend:
    """Host arrays posing as CUDA arrays: compile-only / look-up runs."""
    name = "standin"

    def dev(self, a):
        return fuse.gpu.StandIn(np.array(a))

    def empty(self, shape, dtype):
        return fuse.gpu.StandIn(np.zeros(shape, dtype))

    def host(self, a):
        if isinstance(a, fuse.gpu.StandIn):
            return a.numpy()
        return np.asarray(a)

    def host_array_for_gpu(self, a):
        return a

    def half(self, a):
        return fuse.gpu.StandIn(a.astype(np.float16))


# ---- the cuda.compute-style pipelines on device arrays -----------------------
# As workloads.cc_*, with outputs allocated by the backend.

def cc_sumsq(B, x, n):
    out = B.empty((1,), np.float32)
    fc.reduce_into(fc.TransformIterator(x, lambda a: a * a), out,
                   OpKind.PLUS, n, np.float32(0))
    return out[0]


def cc_dot(B, x, y, n):
    out = B.empty((1,), np.float32)
    fc.reduce_into(fc.TransformIterator(fc.ZipIterator(x, y),
                                        lambda t: t[0] * t[1]),
                   out, OpKind.PLUS, n, np.float32(0))
    return out[0]


def cc_chain(B, x, n):
    y = B.empty((n,), np.float32)
    fc.unary_transform(x, y, lambda a: fuse.relu(1.5 * a + 0.25) * 0.5 + a,
                       n)
    return y


def cc_scan(B, x, n):
    y = B.empty((n,), np.float32)
    fc.inclusive_scan(fc.TransformIterator(x, lambda a: a * a), y,
                      OpKind.PLUS, None, n)
    return y


def cc_select(B, x, n):
    y = B.empty((n,), np.float32)
    count = np.empty(1, np.int64)
    fc.select(x, y, count, lambda a: a > 0, n)
    return y[:int(count[0])], int(count[0])


def _rows(B, X, shape):
    R, C = shape
    m = B.empty((R,), np.float32)
    fc.segmented_reduce(X, m, OpKind.MAXIMUM, -np.inf, R, C)
    e = B.empty((R * C,), np.float32)
    fc.binary_transform(X, fc.RowIterator(m, max(C, 1)), e,
                        lambda a, b: fuse.exp(a - b), R * C)
    s = B.empty((R,), np.float32)
    fc.segmented_reduce(e, s, OpKind.PLUS, 0, R, C)
    return m, e, s


def cc_softmax_rows(B, X, shape):
    R, C = shape
    m, e, s = _rows(B, X, shape)
    y = B.empty((R * C,), np.float32)
    fc.binary_transform(e, fc.RowIterator(s, max(C, 1)), y, OpKind.DIVIDES,
                        R * C)
    return y.reshape(R, C)


def cc_logsumexp_rows(B, X, shape):
    R, C = shape
    m, e, s = _rows(B, X, shape)
    y = B.empty((R,), np.float32)
    fc.binary_transform(s, m, y, lambda a, b: fuse.log(a) + b, R)
    return y


def cc_variance(B, x, n):
    s = B.empty((1,), np.float32)
    fc.reduce_into(x, s, OpKind.PLUS, n, np.float32(0))
    # The mean goes back to the host: a ConstantIterator value is a scalar.
    total = np.float32(B.host(s)[0])
    mean = total / np.float32(n) if n else np.float32(np.nan)
    fc.reduce_into(fc.TransformIterator(
        fc.ZipIterator(x, fc.ConstantIterator(mean)),
        lambda t: (t[0] - t[1]) ** 2), s, OpKind.PLUS, n, np.float32(0))
    v = np.float32(B.host(s)[0])
    return v / np.float32(n) if n else np.float32(np.nan)


# ---- comparisons ---------------------------------------------------------------

class Mismatch(Exception):
    pass


def close(got, ref, rtol, atol=0.0):
    got = np.asarray(got)
    ref = np.asarray(ref)
    if got.shape != ref.shape:
        raise Mismatch("shape %s, expected %s" % (got.shape, ref.shape))
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.float64) - ref)
        bad = ~(err <= atol + rtol * np.abs(ref))
        bad &= ~(np.isnan(got) & np.isnan(ref))
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise Mismatch("%d of %d off (first at %d: %r, expected %r)" % (
            bad.sum(), ref.size, i, got.flat[i], ref.flat[i]))


def f32(got):
    if np.asarray(got).dtype != np.float32:
        raise Mismatch("dtype %s, expected float32" % np.asarray(got).dtype)


# ---- the checks ------------------------------------------------------------------

def run_check(name, fn, verify):
    try:
        out = fn()
        if verify is not None:
            verify(out)
        report(True, name)
    except Mismatch as e:
        report(False, name, str(e))
    except fuse.gpu.GPUCacheMissError as e:
        report(False, name, str(e))
    except Exception as e:  # noqa: BLE001 (report and go on)
        report(False, name, "%s: %s" % (type(e).__name__, e))
        if os.environ.get("FUSE_CHECK_TRACEBACK"):
            traceback.print_exc()


def workload_checks(B, numeric):
    """numeric=False: only run the calls (compile-only or look-ups)."""
    H = B.host

    def chk(name, fn, verify):
        run_check("%s %s" % (B.name, name), fn, verify if numeric else None)

    for front in ("jit", "cc"):
        for n in SIZES:
            x = rand(n)
            dx = B.dev(x)

            def v_sumsq(g, x=x, n=n):
                g = H(g)
                f32(g)
                close(g, W.ref_sumsq(x), sum_rtol(n))
            chk("%s sumsq n=%d" % (front, n),
                (lambda dx=dx: W.jit_sumsq(dx)) if front == "jit" else
                (lambda dx=dx, n=n: cc_sumsq(B, dx, n)), v_sumsq)

            y = rand(n, seed=2)
            x1 = rand(n, seed=1)
            dx1, dy = B.dev(x1), B.dev(y)

            def v_dot(g, x1=x1, y=y, n=n):
                g = H(g)
                f32(g)
                scale = np.abs(x1.astype(np.float64) * y).sum()
                ref = W.ref_dot(x1, y)
                if not abs(float(g) - ref) <= sum_rtol(n) * scale + 1e-30:
                    raise Mismatch("got %r, expected %r" % (float(g), ref))
            chk("%s dot n=%d" % (front, n),
                (lambda: W.jit_dot(dx1, dy)) if front == "jit" else
                (lambda n=n: cc_dot(B, dx1, dy, n)), v_dot)

            def v_chain(g, x=x, n=n):
                g = H(g)
                f32(g)
                close(g, W.ref_chain(x), 1e-6, 1e-7)
            chk("%s chain n=%d" % (front, n),
                (lambda dx=dx: W.jit_chain(dx)) if front == "jit" else
                (lambda dx=dx, n=n: cc_chain(B, dx, n)), v_chain)

            def v_scan(g, x=x, n=n):
                g = H(g)
                close(g, W.ref_scan(x), sum_rtol(n))
            chk("%s scan n=%d" % (front, n),
                (lambda dx=dx: W.jit_scan(dx)) if front == "jit" else
                (lambda dx=dx, n=n: cc_scan(B, dx, n)), v_scan)

            def v_select(g, x=x):
                y, count = g
                ry, rc = W.ref_select(x)
                if not isinstance(count, int) or count != rc:
                    raise Mismatch("count %r, expected %d" % (count, rc))
                y = H(y)
                if y.shape != ry.shape or not np.array_equal(y, ry):
                    raise Mismatch("kept values differ from x[x > 0]")
            chk("%s select n=%d" % (front, n),
                (lambda dx=dx: W.jit_select(dx)) if front == "jit" else
                (lambda dx=dx, n=n: cc_select(B, dx, n)), v_select)

            def v_var(g, x=x, n=n):
                g = H(g)
                if n == 0:
                    if not np.isnan(g):
                        raise Mismatch("got %r, expected nan" % g)
                    return
                close(g, W.ref_variance(x), sum_rtol(n), 1e-7)
            chk("%s variance n=%d" % (front, n),
                (lambda dx=dx: W.jit_variance(dx)) if front == "jit" else
                (lambda dx=dx, n=n: cc_variance(B, dx, n)), v_var)

        for shape in SHAPES:
            X = rand(shape)
            dX = B.dev(X)
            tag = "%dx%d" % shape

            def v_soft(g, X=X, shape=shape):
                g = H(g)
                f32(g)
                close(g, W.ref_softmax_rows(X), sum_rtol(shape[1]), 1e-7)
            chk("%s softmax_rows %s" % (front, tag),
                (lambda dX=dX: W.jit_softmax_rows(dX)) if front == "jit" else
                (lambda dX=dX, shape=shape: cc_softmax_rows(B, dX, shape)),
                v_soft)

            def v_lse(g, X=X, shape=shape):
                g = H(g)
                f32(g)
                close(g, W.ref_logsumexp_rows(X), sum_rtol(shape[1]), 1e-6)
            chk("%s logsumexp_rows %s" % (front, tag),
                (lambda dX=dX: W.jit_logsumexp_rows(dX)) if front == "jit"
                else (lambda dX=dX, shape=shape:
                      cc_logsumexp_rows(B, dX, shape)), v_lse)


# ---- value edges (docs/reliability.md, row 12) -----------------------------
# The pipelines, inputs and NumPy references of test_value_edges.py
# (edge_cases.py), float32 and float64, each at the CPU test's sizes and at
# sizes that take the GPU's other paths (16-byte vector loads and the
# unrolled loop, several blocks with a finish kernel past 32768 elements,
# several look-back tiles, rows longer than the register path). Expected
# values follow docs/dialect.md: IEEE-754 per operation, no flush to zero,
# NaN propagates through max/min (and -0.0 < +0.0 there), sums start from
# +0.0.
#
# Where the GPU may legitimately differ from the CPU check:
#  - the GPU sums in a tree: only results that are the same in every
#    grouping are compared exactly (NaN anywhere -> NaN, inf + -inf -> NaN,
#    one infinity -> inf, sums of denormals bounded so that every partial
#    sum is exact); [max, max, -max, -max] (E.reduction_inf_cases, any_order)
#    is left out: its sum is inf left to right but 0 or NaN in other
#    groupings;
#  - the CPU carries a float32 add scan in float64 (docs/dialect.md,
#    Numerics, CPU); the GPU scan accumulates float32 in float32 (the PTX has
#    add.rn.f32 only). Finite prefixes are held to a bound on any grouping's
#    rounding error, and the CPU test's [max, max, -max] scan (inf or max
#    depending on the order and the accumulator type) is left out;
#  - exp/log/tanh (libdevice) on finite arguments: 4 ulp (4 eps relative)
#    of the correctly rounded value, 4 denormal steps absolute; NaN,
#    infinities and zeros (with their sign) exactly; sqrt is sqrt.rn (was
#    libdevice's sqrt.approx.f32 until F8) and is compared bit for bit;
#  - softmax: exp, a tree sum and a division: 64 eps relative for finite
#    non-zero results.
# variance: the GPU trace passes n as a scalar, so fuse-fusion rewrites the
# pipeline into its Welford reduction (fuse.welford: per-thread shifted
# sums, Chan merges); the CPU trace's n is a broadcast tensor, which the
# rewrite does not match, so test_value_edges.py runs the two-pass form.
# The expected values are np.var's, which are the same in any summation
# order for these inputs (E.variance_cases_any_order).
# Left out because GPU code generation rejects them with a diagnostic (or
# the GPU trace refuses them): compare_select (bool results: "element type
# 'i1' cannot be read or written by a kernel"; compare_select_i32 runs the
# same predicates as int32) and keep_nan (a filter's count returned without
# the filter result: "a size computed while running is returned without the
# filter result it counts"; keep_nan_values returns both).

EDGE_SIZES = [70001, 1000003]     # past one block, grid-stride (reductions)
SCAN_N = 70001                    # several look-back tiles


def same(got, ref, what):
    d = E.same_diff(got, ref)
    if d is not None:
        raise Mismatch("%s: %s" % (what, d))


def near(got, ref, rtol, atol, what):
    """NaN, infinities and zeros of ref exactly (sign of zero included);
    finite non-zero values within rtol * |ref| + atol."""
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype != ref.dtype or got.shape != ref.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, ref.dtype, ref.shape))
    special = ~np.isfinite(ref) | (ref == 0)
    same(got[special], ref[special], what + " (NaN/inf/zero)")
    g = got[~special].astype(np.float64)
    r = ref[~special].astype(np.float64)
    with np.errstate(all="ignore"):
        bad = ~(np.abs(g - r) <= rtol * np.abs(r) + atol)
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise Mismatch("%s: %d of %d off by more than %g rel (first: %r, "
                       "expected %r)" % (what, bad.sum(), r.size, rtol, g[i],
                                         r[i]))


def add_scan_near(got, x, exclusive, what):
    """A float add scan of x with a NaN or infinities in it, in any
    grouping: NaN from the first NaN (or the first prefix holding both
    infinities), +-inf from the first infinity, finite before, and finite
    prefixes within a bound on the rounding error of any grouping of depth
    D: eps * (|ref| + D * sum |x_j|), ref the float64 sum of the prefix.
    D = 64 + n / 1024 is above the GPU look-back scan's depth (16 items per
    thread, 5 warp shuffles, 4 rows, 8 warps, one fold per 4096-element
    tile) and, on these inputs, passes a float32 scan left to right too."""
    got = np.asarray(got)
    if got.dtype != x.dtype or got.shape != x.shape:
        raise Mismatch("%s: %s %s, expected %s %s" % (
            what, got.dtype, got.shape, x.dtype, x.shape))
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        ref = np.cumsum(np.where(np.isfinite(x64), x64, 0.0))
        pinf = np.cumsum(x64 == np.inf) > 0
        ninf = np.cumsum(x64 == -np.inf) > 0
        nan = (np.cumsum(np.isnan(x64)) > 0) | (pinf & ninf)
        scale = np.cumsum(np.where(np.isfinite(x64), np.abs(x64), 0.0))
    if exclusive:
        ref, pinf, ninf, nan, scale = (
            np.concatenate([[v0], a[:-1]]) for a, v0 in
            ((ref, 0.0), (pinf, False), (ninf, False), (nan, False),
             (scale, 0.0)))
    want = np.where(nan, np.nan, np.where(pinf, np.inf, np.where(
        ninf, -np.inf, ref)))
    special = nan | pinf | ninf
    same(got[special], want[special].astype(x.dtype), what + " (NaN/inf)")
    eps = float(np.finfo(x.dtype).eps)
    depth = 64 + x.size // 1024
    g = got[~special].astype(np.float64)
    with np.errstate(all="ignore"):
        bad = ~(np.abs(g - ref[~special]) <=
                eps * (np.abs(ref[~special]) + depth * scale[~special]))
    if bad.any():
        i = np.flatnonzero(bad)[0]
        raise Mismatch("%s: %d finite prefixes off (first: %r, expected "
                       "%r)" % (what, bad.sum(), g[i], ref[~special][i]))


def edge_checks(B, numeric):
    """numeric=False: only run the calls (compile-only or look-ups)."""
    def chk(name, fn, verify):
        run_check("%s edge %s" % (B.name, name), fn,
                  verify if numeric else None)

    def call(f, *arrays):
        """f on device copies of arrays; the results on the host (a tuple;
        filter counts stay ints)."""
        res = f(*[B.dev(a) for a in arrays])
        res = res if isinstance(res, tuple) else (res,)
        return tuple(r if isinstance(r, int) else B.host(r) for r in res)

    for dtype in E.FLOATS:
        t = {np.float32: "f32", np.float64: "f64"}[dtype]
        e = E.edges(dtype)
        px, py = E.pairs(e)
        # 225 pairs (scalar loop), and 37 copies (vector loads, unrolled).
        pairs = [(px, py), (np.tile(px, 37), np.tile(py, 37))]

        # ---- elementwise ----------------------------------------------------
        def v_pairs(outs, ref_fn, name):
            for (x, y), got in outs:
                for i, (g, r) in enumerate(zip(got, ref_fn(x, y))):
                    same(g, r, "%s result %d, n=%d" % (name, i, x.size))

        chk("%s arith on all pairs: IEEE, no flush, exact" % t,
            lambda: [((x, y), call(E.arith, x, y)) for x, y in pairs],
            lambda o: v_pairs(o, E.arith_ref, "arith"))

        chk("%s arguments returned unchanged beside a product: copied, "
            "exact" % t,
            lambda: [((x, y), call(E.passthrough, x, y)) for x, y in pairs],
            lambda o: v_pairs(o, E.passthrough_ref, "passthrough"))

        chk("%s compare/select on all pairs (int32 predicates): ordered "
            "false on NaN, exact" % t,
            lambda: [((x, y), call(E.compare_select_i32, x, y))
                     for x, y in pairs],
            lambda o: v_pairs(o, E.compare_select_i32_ref, "compare"))

        chk("%s maximum/minimum/relu on all pairs: NaN propagates, "
            "-0.0 < +0.0" % t,
            lambda: [((x, y), call(E.maxmin, x, y)) for x, y in pairs],
            lambda o: v_pairs(o, E.ieee_maxmin_ref, "maxmin"))

        mx = np.concatenate([E.math_inputs(dtype),
                             np.array(E.MATH_EXTRA, dtype)])
        mxs = [mx, np.tile(mx, 64)]

        def v_math(outs, dtype=dtype):
            for x, got in outs:
                for name, g, r in zip(("exp", "log", "sqrt", "tanh"), got,
                                      E.math_ref_wide(x)):
                    if name == "sqrt":
                        # sqrt.rn: correctly rounded, bit for bit NumPy's
                        with np.errstate(all="ignore"):
                            same(g, np.sqrt(x), "sqrt n=%d" % x.size)
                        continue
                    near(g, r, 4 * np.finfo(dtype).eps,
                         4 * np.finfo(dtype).smallest_subnormal,
                         "%s n=%d" % (name, x.size))
        chk("%s exp/log/tanh: specials exact, finite within 4 ulp; sqrt "
            "exact" % t,
            lambda: [(x, call(E.math_fns, x)) for x in mxs], v_math)

        # ---- reductions -----------------------------------------------------
        nan_cases = []
        for n in [1, 5, 3001] + EDGE_SIZES:
            for pos in sorted(set(E.reduction_nan_positions(n)) |
                              {min(n - 1, 40000)}):
                nan_cases.append((n, pos))

        def v_red_nan(outs):
            for (n, pos), got in outs:
                for i, g in enumerate(got):
                    if not np.isnan(g):
                        raise Mismatch("n=%d NaN at %d: result %d is %r, "
                                       "expected nan" % (n, pos, i, g))
        chk("%s sum/max/min/prod/mean with a NaN anywhere: NaN" % t,
            lambda dtype=dtype: [
                ((n, pos), call(E.reductions,
                                E.reduction_nan_input(n, pos, dtype)))
                for n, pos in nan_cases], v_red_nan)

        inf_cases = [np.array(c, dtype)
                     for c in E.reduction_inf_cases(dtype, any_order=True)]

        def v_red_exact(outs):
            for x, got in outs:
                for i, (g, r) in enumerate(zip(got,
                                               E.ieee_reduction_ref(x))):
                    same(g, r, "%s... (n=%d) result %d" % (
                        x[:4].tolist(), x.size, i))
        chk("%s reductions with infinities and overflow (order-independent "
            "cases): exact" % t,
            lambda: [(x, call(E.reductions, x)) for x in inf_cases],
            v_red_exact)

        den_cases = [E.exact_denormal_input(dtype, n)[0]
                     for n in [3000] + EDGE_SIZES]
        den_cases.append(e[5:6])                       # one denormal alone

        def v_red_den(outs):
            for x, got in outs:
                s = x.sum(dtype=np.float64)            # exact: see the maker
                want = (dtype(s), x.max(), x.min(), E.reduction_ref(x)[3],
                        dtype(s) / dtype(x.size))
                for i, (g, r) in enumerate(zip(got, want)):
                    same(g, np.asarray(r, dtype), "denormals n=%d result %d"
                         % (x.size, i))
        chk("%s reductions of denormals (every partial sum exact): exact, "
            "no flush to zero" % t,
            lambda: [(x, call(E.reductions, x)) for x in den_cases],
            v_red_den)

        zero_cases = [np.array(c, dtype) for c in
                      ([-0.0, -0.0], [0.0, -0.0], [-0.0, 0.0],
                       [-0.0] * 5 + [0.0])]
        zero_cases.append(np.full(70001, -0.0, dtype))
        chk("%s reductions of signed zeros: sum +0.0 (init), max/min "
            "-0.0 < +0.0, prod sign parity" % t,
            lambda: [(x, call(E.reductions, x)) for x in zero_cases],
            v_red_exact)

        # ---- scans ----------------------------------------------------------
        ks = (0, 1, 1200, 4095, 4096, 40000, SCAN_N - 1)

        def v_scan_nan(outs):
            for (k, x), (add, smax, smin, exc) in outs:
                what = "k=%d" % k
                add_scan_near(add, x, False, "add " + what)
                add_scan_near(exc, x, True, "exclusive add " + what)
                same(exc[:1], np.zeros(1, x.dtype), "exclusive first " + what)
                same(smax, E.ieee_max_accumulate(x.copy()), "max " + what)
                same(smin, E.ieee_min_accumulate(x.copy()), "min " + what)
        chk("%s scans with a NaN at k: NaN from k on (exclusive: k + 1), "
            "untouched before" % t,
            lambda dtype=dtype: [
                ((k, x), call(E.scans, x)) for k, x in
                ((k, E.scan_nan_input(SCAN_N, k, dtype)) for k in ks)],
            v_scan_nan)

        long_inf = np.linspace(-1, 1, SCAN_N).astype(dtype)
        long_inf[5000], long_inf[60000] = E.INF, -E.INF

        def v_scan_inf(outs):
            short, got = outs[0]
            for i, (g, r) in enumerate(zip(got, E.ieee_scan_refs(short))):
                same(g, r, "[1, inf, 2, -inf, 3] result %d" % i)
            x, (add, smax, smin, exc) = outs[1]
            add_scan_near(add, x, False, "add, inf at 5000, -inf at 60000")
            add_scan_near(exc, x, True, "exclusive add, inf at 5000")
            same(smax, E.ieee_max_accumulate(x.copy()), "max, inf at 5000")
            same(smin, E.ieee_min_accumulate(x.copy()), "min, -inf at 60000")
        chk("%s scans with infinities: inf from the first, NaN once both "
            "signs are in" % t,
            lambda dtype=dtype: [
                (x, call(E.scans, x)) for x in
                (np.array([1.0, E.INF, 2.0, -E.INF, 3.0], dtype), long_inf)],
            v_scan_inf)

        zden = [np.array([-0.0, -0.0, 0.0, -0.0], dtype),
                E.exact_denormal_input(dtype, 3000)[0],
                E.exact_denormal_input(dtype, SCAN_N, seed=1)[0]]

        def v_scan_exact(outs):
            for x, got in outs:
                for i, (g, r) in enumerate(zip(got, E.ieee_scan_refs(x))):
                    same(g, r, "n=%d result %d" % (x.size, i))
        chk("%s scans of signed zeros and denormals: add from +0.0, exact, "
            "no flush to zero" % t,
            lambda: [(x, call(E.scans, x)) for x in zden], v_scan_exact)

        # ---- filter ---------------------------------------------------------
        fx = [np.tile(e, 3), np.tile(e, 5000)]      # one tile, several

        def v_filter(outs):
            for x, (y, j, n), (z, nn) in outs:
                ry, rj, rn = E.keep_positive_ref(
                    x, np.arange(x.size, dtype=np.int64))
                if n != rn:
                    raise Mismatch("x > 0 kept %r, expected %d" % (n, rn))
                same(y, ry, "x > 0 values n=%d" % x.size)
                same(j, rj, "x > 0 indices n=%d" % x.size)
                want = int(np.isnan(x).sum())
                if nn != want or z.shape != (want,) or \
                        not np.isnan(z).all():
                    raise Mismatch("a != a kept %r (%d values), expected "
                                   "%d NaNs" % (nn, z.size, want))
        chk("%s filter x > 0 (drops NaN and -0.0, keeps denormals) and "
            "a != a" % t,
            lambda: [(x, call(E.keep_positive, x,
                              np.arange(x.size, dtype=np.int64)),
                      call(E.keep_nan_values, x)) for x in fx],
            v_filter)

        # ---- workloads ------------------------------------------------------
        var_cases = [np.array(c, dtype)
                     for c in E.variance_cases_any_order(dtype)]

        def v_var(outs):
            bad = []                      # every case, not just the first
            for x, (g,) in outs:
                ref = E.variance_ref(x)
                what = "variance of %s" % x.tolist()
                try:
                    if np.isfinite(ref):
                        near(g, ref, 1e-6, 0.0, what)
                    else:
                        same(g, ref, what)
                except Mismatch as m:
                    bad.append(str(m))
            if bad:
                raise Mismatch("; ".join(bad))
        chk("%s variance with inf/NaN/overflow: as np.var" % t,
            lambda: [(x, call(E.variance, x)) for x in var_cases], v_var)

        sms = [E.softmax_input(dtype), E.softmax_long_rows(dtype)]

        def v_soft(outs, dtype=dtype):
            for X, (g,) in outs:
                near(g, E.softmax_ref(X), 64 * np.finfo(dtype).eps, 0.0,
                     "softmax %dx%d" % X.shape)
        chk("%s softmax rows with -inf masks, inf, NaN" % t,
            lambda: [(X, call(E.softmax_rows, X)) for X in sms], v_soft)


def expect_error(name, exc, pattern, fn):
    try:
        fn()
    except exc as e:
        ok = pattern in str(e)
        report(ok, name, "" if ok else "message %r lacks %r" % (str(e),
                                                               pattern))
        return
    except Exception as e:  # noqa: BLE001
        report(False, name, "raised %s: %s, expected %s" % (
            type(e).__name__, e, exc.__name__))
        return
    report(False, name, "no exception, expected %s" % exc.__name__)


# ---- unsigned integers and bool (docs/python.md, "Integer signedness and
# bool") ----------------------------------------------------------------------
# Values above the signed range sit at the end of the arrays (the last
# block of a multi-block reduction, the last scan tiles), so a signed
# compare anywhere gives another answer. Every result is compared exactly
# with NumPy's, dtype included.

_U_BIG = {np.uint8: [200, 255, 129], np.uint16: [40000, 65535],
          np.uint32: [3000000000, 2 ** 32 - 1],
          np.uint64: [2 ** 63 + 5, 2 ** 64 - 1]}


def unsigned_input(dtype, n, seed=0):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, int(info.max) // 2, n, dtype=dtype, endpoint=True)
    big = np.array(_U_BIG[dtype], dtype)[:n]
    if big.size:
        x[n - big.size:] = big
    return x


@fuse.jit
def u_max(x):
    return x.max()


@fuse.jit
def u_min(x):
    return x.min()


@fuse.jit
def u_sum(x):
    return x.sum()


@fuse.jit
def u_scan_max(x):
    return fuse.scan(x, op="max")


@fuse.jit
def u_elementwise(x):
    return x // 7, x % 7, x >> 3, x.astype(np.float64), (x >= 128).sum()


@fuse.jit
def bool_not_count(b):
    return (~b).sum()


def exact(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    if got.dtype != ref.dtype or got.shape != ref.shape:
        raise Mismatch("%s %s, expected %s %s" % (got.dtype, got.shape,
                                                  ref.dtype, ref.shape))
    if not np.array_equal(got, ref):
        i = np.flatnonzero(got.ravel() != ref.ravel())[0]
        raise Mismatch("%d of %d differ (first at %d: %r, expected %r)" % (
            (got.ravel() != ref.ravel()).sum(), ref.size, i, got.flat[i],
            ref.flat[i]))


def unsigned_checks(B, numeric):
    H = B.host

    def chk(name, fn, verify):
        run_check("%s %s" % (B.name, name), fn, verify if numeric else None)

    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        dn = np.dtype(dtype).name
        for n in (31, 1000003):
            x = unsigned_input(dtype, n)
            dx = B.dev(x)
            chk("%s max n=%d" % (dn, n), lambda dx=dx: u_max(dx),
                lambda g, x=x: exact(H(g), x.max()))
            chk("%s min n=%d" % (dn, n), lambda dx=dx: u_min(dx),
                lambda g, x=x: exact(H(g), x.min()))
            chk("%s sum n=%d" % (dn, n), lambda dx=dx: u_sum(dx),
                lambda g, x=x: exact(H(g), x.sum()))
            chk("%s scan max n=%d" % (dn, n), lambda dx=dx: u_scan_max(dx),
                lambda g, x=x: exact(H(g), np.maximum.accumulate(x)))

            def v_elem(g, x=x):
                q, r, sh, f, c = g
                exact(H(q), x // 7)
                exact(H(r), x % 7)
                exact(H(sh), x >> 3)
                exact(H(f), x.astype(np.float64))
                exact(np.asarray(H(c)), np.asarray((x >= 128).sum()))
            chk("%s // %% >> astype compare n=%d" % (dn, n),
                lambda dx=dx: u_elementwise(dx), v_elem)
    b = np.random.default_rng(3).random(1000003) < 0.3
    db = B.dev(b)
    chk("bool ~ and sum n=1000003", lambda: bool_not_count(db),
        lambda g: exact(H(g), (~b).sum()))


# ---- fuse.compute writes into d_out (docs/python.md, "Where fuse.compute
# writes") --------------------------------------------------------------------
# Each algorithm with a d_out that can take its result: d_out keeps its
# pointer, fuse allocates no output (the entry wrote into d_out), the values
# are NumPy's and the elements past the result are untouched (d_out is
# poisoned and larger than needed). Then the two fallbacks (select into a
# d_out of another dtype, a transform in place), which allocate an output
# and copy it into d_out.

class CountAllocs:
    """Counts the outputs fuse allocates (fuse.gpu.allocator_like, through
    which fuse.compute's launches allocate) while active."""

    def __enter__(self):
        self.n = 0
        self.real = real = fuse.gpu.allocator_like

        def like(a):
            empty = real(a)

            def counted(shape, dtype):
                self.n += 1
                return empty(shape, dtype)
            return counted
        fuse.gpu.allocator_like = like
        return self

    def __exit__(self, *exc):
        fuse.gpu.allocator_like = self.real


POISON = 0x7B


def poisoned(n, dtype):
    a = np.empty(n, dtype)
    a.view(np.uint8)[...] = POISON
    return a


def direct_checks(B, numeric):
    H = B.host
    n = 1000003
    x, y = rand(n, seed=21), rand(n, seed=22)
    xi = np.random.default_rng(23).integers(-100, 100, n).astype(np.int32)
    R, C = 1001, 999
    X = rand((R, C), seed=24)
    dx, dy, dxi, dX = B.dev(x), B.dev(y), B.dev(xi), B.dev(X)
    rowmax = X.max(axis=1)
    drowmax = B.dev(rowmax)
    kept = x[x > 0]
    ptr = lambda a: fuse.gpu.device_array(a).ptr  # noqa: E731
    f32_, i32_ = np.float32, np.int32

    def exact(g, r):
        if not np.array_equal(g, r):
            raise Mismatch("%d of %d differ" % (
                (g != r).sum(), r.size))

    def row_sums(g):
        """Signed sums: held to the sum of the magnitudes (as v_dot), not
        to a result that cancellation makes small."""
        X64 = X.astype(np.float64)
        ref, scale = X64.sum(axis=1), np.abs(X64).sum(axis=1)
        bad = ~(np.abs(g.astype(np.float64) - ref) <= sum_rtol(C) * scale)
        if bad.any():
            i = np.flatnonzero(bad)[0]
            raise Mismatch("%d of %d off (first at %d: %r, expected %r)" % (
                bad.sum(), R, i, g[i], ref[i]))

    # name, d_out dtype, elements needed, call(d_out), check(got), allocs
    cases = [
        ("reduce_into sumsq", f32_, 1,
         lambda o: fc.reduce_into(fc.TransformIterator(dx, lambda a: a * a),
                                  o, OpKind.PLUS, n, f32_(0)),
         lambda g: close(g, [W.ref_sumsq(x)], sum_rtol(n)), 0),
        ("reduce_into max", f32_, 1,
         lambda o: fc.reduce_into(dx, o, OpKind.MAXIMUM, n, f32_(-np.inf)),
         lambda g: exact(g, [x.max()]), 0),
        ("segmented_reduce sum %dx%d" % (R, C), f32_, R,
         lambda o: fc.segmented_reduce(dX, o, OpKind.PLUS, 0, R, C),
         row_sums, 0),
        ("inclusive_scan int32", i32_, n,
         lambda o: fc.inclusive_scan(dxi, o, OpKind.PLUS, None, n),
         lambda g: exact(g, np.cumsum(xi, dtype=np.int32)), 0),
        ("exclusive_scan int32 init 5", i32_, n,
         lambda o: fc.exclusive_scan(dxi, o, OpKind.PLUS, i32_(5), n),
         lambda g: exact(g, 5 + np.concatenate(
             [[0], np.cumsum(xi)[:-1]]).astype(np.int32)), 0),
        ("inclusive_scan of squares", f32_, n,
         lambda o: fc.inclusive_scan(fc.TransformIterator(
             dx, lambda a: a * a), o, OpKind.PLUS, None, n),
         lambda g: close(g, W.ref_scan(x), sum_rtol(n)), 0),
        ("unary_transform chain", f32_, n,
         lambda o: fc.unary_transform(
             dx, o, lambda a: fuse.relu(1.5 * a + 0.25) * 0.5 + a, n),
         lambda g: close(g, W.ref_chain(x), 1e-6, 1e-7), 0),
        ("binary_transform multiplies", f32_, n,
         lambda o: fc.binary_transform(dx, dy, o, OpKind.MULTIPLIES, n),
         lambda g: exact(g, x * y), 0),
        ("binary_transform exp(X - rowmax)", f32_, R * C,
         lambda o: fc.binary_transform(dX, fc.RowIterator(drowmax, C), o,
                                       lambda a, b: fuse.exp(a - b), R * C),
         lambda g: close(g, np.exp(X.astype(np.float64) -
                                   rowmax[:, None]).ravel(), 2e-6), 0),
    ]

    def select_into(dtype):
        def call(o):
            count = np.zeros(1, np.int64)
            fc.select(dx, o, count, lambda a: a > 0, n)
            call.count = int(count[0])
        return call
    sel, sel64 = select_into(f32_), select_into(np.float64)

    def v_sel(call, dtype):
        def v(g):
            if call.count != kept.size:
                raise Mismatch("count %d, expected %d" % (call.count,
                                                          kept.size))
            exact(g[:kept.size], kept.astype(dtype))
        return v
    # The select's d_out holds n (its capacity) + 5: past the kept values
    # it stays as it was.
    cases.append(("select", f32_, n, sel, v_sel(sel, f32_), 0))
    cases.append(("select into float64 (copy)", np.float64, n, sel64,
                  v_sel(sel64, np.float64), 1))

    for name, dtype, need, call, check, allocs in cases:
        def run(dtype=dtype, need=need, call=call):
            o = B.dev(poisoned(need + 5, dtype))
            p0 = ptr(o)
            with CountAllocs() as c:
                call(o)
            return o, p0, c.n

        def verify(r, dtype=dtype, need=need, check=check, allocs=allocs,
                   name=name):
            o, p0, nallocs = r
            if ptr(o) != p0:
                raise Mismatch("d_out moved")
            if nallocs != allocs:
                raise Mismatch("%d outputs allocated, expected %d"
                               % (nallocs, allocs))
            if not numeric:
                return
            g = H(o)
            check(g[:need])
            used = kept.size if name.startswith("select") else need
            tail = g[used:].view(np.uint8)
            if not (tail == POISON).all():
                raise Mismatch("d_out written past the result")
        run_check("%s direct d_out %s" % (B.name, name), run, verify)

    # In place: d_out is the input (an overlap the entry would reject), so
    # the result goes through an output of fuse's and a copy.
    def run_in_place():
        o = B.dev(x)
        with CountAllocs() as c:
            fc.unary_transform(o, o, lambda a: a * 2 + 1, n)
        return o, c.n

    def v_in_place(r):
        o, nallocs = r
        if nallocs != 1:
            raise Mismatch("%d outputs allocated, expected 1" % nallocs)
        if numeric:
            close(H(o), x.astype(np.float64) * 2 + 1, 1e-6)
    run_check("%s direct d_out: in place (copy)" % B.name, run_in_place,
              v_in_place)


def error_checks(B):
    x = rand(1000)
    dx = B.dev(x)
    p = B.name
    launches = fuse.gpu.stats.copy()
    expect_error("%s error: float16 to @fuse.jit" % p, TypeError, "float16",
                 lambda: W.jit_sumsq(B.half(x)))
    expect_error("%s error: float16 to fuse.compute" % p, TypeError,
                 "float16", lambda: cc_chain(B, B.half(x), 1000))
    expect_error("%s error: sizes 1000 and 999" % p, ValueError,
                 "size mismatch", lambda: W.jit_dot(dx, B.dev(x[:999])))
    expect_error("%s error: d_out too small" % p, ValueError,
                 "elements but 1000 are needed",
                 lambda: fc.unary_transform(dx, B.empty((10,), np.float32),
                                            lambda a: a, 1000))
    expect_error("%s error: host array with a CUDA one" % p, TypeError,
                 "argument 'y'",
                 lambda: W.jit_dot(dx, B.host_array_for_gpu(x)))
    expect_error("%s error: host d_out with a CUDA d_in" % p, TypeError,
                 "d_out", lambda: fc.unary_transform(
                     dx, np.empty(1000, np.float32), lambda a: a, 1000))
    report(fuse.gpu.stats == launches, "%s errors raised before loading "
           "or compiling anything" % p, "" if fuse.gpu.stats == launches
           else "stats went from %s to %s" % (launches, fuse.gpu.stats))


def cache_checks(B, numeric):
    x = rand(4096)
    dx = B.dev(x)
    W.jit_sumsq(dx)
    before = dict(fuse.gpu.stats)
    got = W.jit_sumsq(dx)
    after = dict(fuse.gpu.stats)
    ok = after["compiles"] == before["compiles"] and \
        after["memory_hits"] == before["memory_hits"] + 1
    report(ok, "%s second call: cache, no compile" % B.name,
           "stats %s -> %s" % (before, after))
    if numeric:
        run_check("%s sumsq back to back" % B.name,
                  lambda: [W.jit_sumsq(dx) for _ in range(50)][-1],
                  lambda g: close(B.host(g), W.ref_sumsq(x), sum_rtol(4096)))


def stream_checks(B, numeric):
    """stream= on both front ends: a library stream object, its integer
    handle and 0 (the legacy default stream) are taken, and the results
    read on that stream are right; bad streams raise before any launch.
    Then cache hits on fresh inputs of new sizes (one launcher per
    signature, new pointers and dimensions every call)."""
    H = B.host
    x = rand(1 << 16, seed=11)
    n = x.size

    def chk(name, fn, verify):
        run_check("%s stream %s" % (B.name, name), fn,
                  verify if numeric else None)

    if B.name == "torch":
        torch = B.torch
        s = torch.cuda.Stream()
        streams = [("torch.cuda.Stream", s, s.synchronize),
                   ("its integer handle", s.cuda_stream, s.synchronize),
                   ("0", 0, torch.cuda.synchronize)]

        def on_stream(make):
            with torch.cuda.stream(s):
                return make()
    elif B.name == "cupy":
        cupy = B.cupy
        s = cupy.cuda.Stream(non_blocking=True)
        streams = [("cupy.cuda.Stream", s, s.synchronize),
                   ("its integer handle", s.ptr, s.synchronize),
                   ("0", 0, cupy.cuda.Device().synchronize)]

        def on_stream(make):
            with s:
                return make()
    else:
        streams = [("an integer handle", 0x10, lambda: None),
                   ("0", 0, lambda: None)]

        def on_stream(make):
            return make()

    for what, st, sync in streams:
        # The input is made on the stream (with a library stream current),
        # so a launch on another stream could read it unwritten.
        def run_jit(st=st, sync=sync):
            dx = on_stream(lambda: B.dev(x))
            r = W.jit_sumsq(dx, stream=st)
            c = W.jit_chain(dx, stream=st)
            sync()
            return r, c

        def v_jit(g):
            close(H(g[0]), W.ref_sumsq(x), sum_rtol(n))
            close(H(g[1]), W.ref_chain(x), 1e-6, 1e-7)
        chk("jit with %s" % what, run_jit, v_jit)

        def run_cc(st=st, sync=sync):
            dx = on_stream(lambda: B.dev(x))
            out = B.empty((n,), np.float32)
            fc.unary_transform(dx, out, lambda a: fuse.relu(1.5 * a + 0.25)
                               * 0.5 + a, n, stream=st)
            r = B.empty((1,), np.float32)
            fc.reduce_into(fc.TransformIterator(dx, lambda a: a * a), r,
                           OpKind.PLUS, n, np.float32(0), stream=st)
            sync()
            return out, r

        def v_cc(g):
            close(H(g[0]), W.ref_chain(x), 1e-6, 1e-7)
            close(H(g[1])[0], W.ref_sumsq(x), sum_rtol(n))
        chk("fuse.compute with %s" % what, run_cc, v_cc)

    dx = B.dev(x)
    for bad, exc, pat in ((True, TypeError, "bool"),
                          ("default", TypeError, "str"),
                          (1.5, TypeError, "float"),
                          (-1, ValueError, "2**64"),
                          (2 ** 64, ValueError, "2**64")):
        launches = fuse.gpu.stats.copy()
        expect_error("%s stream error: %r to @fuse.jit" % (B.name, bad), exc,
                     pat, lambda bad=bad: W.jit_sumsq(dx, stream=bad))
        expect_error("%s stream error: %r to fuse.compute" % (B.name, bad),
                     exc, pat, lambda bad=bad: fc.unary_transform(
                         dx, B.empty((n,), np.float32), lambda a: a, n,
                         stream=bad))
        report(fuse.gpu.stats == launches, "%s stream error %r: nothing "
               "loaded or launched" % (B.name, bad))
    expect_error("%s stream error: a stream for NumPy arguments" % B.name,
                 ValueError, "stream= is for calls on CUDA arrays",
                 lambda: W.jit_sumsq(x, stream=0))

    # Cache hits with fresh inputs: new sizes, values and pointers.
    for i, m in enumerate((4096, 777, 1 << 20, 5)):
        xi = rand(m, seed=100 + i)
        Xi = rand((max(m // 64, 1), 64), seed=200 + i)

        def run_hits(xi=xi, Xi=Xi):
            dxi, dXi = B.dev(xi), B.dev(Xi)
            return (W.jit_sumsq(dxi), W.jit_chain(dxi),
                    W.jit_softmax_rows(dXi))

        def v_hits(g, xi=xi, Xi=Xi, m=m):
            close(H(g[0]), W.ref_sumsq(xi), sum_rtol(m))
            close(H(g[1]), W.ref_chain(xi), 1e-6, 1e-7)
            close(H(g[2]), W.ref_softmax_rows(Xi), sum_rtol(64), 1e-7)
        run_check("%s cache hits on fresh inputs n=%d" % (B.name, m),
                  run_hits, v_hits if numeric else None)
    for f in (W.jit_sumsq, W.jit_chain, W.jit_softmax_rows):
        # Launcher keys start with the first argument's (mode, dtype, rank);
        # the modes are named as the backends.
        mine = [k for k in f._launchers if k[0][0] == B.name]
        ok = len(mine) == 1
        report(ok, "%s %s: one launcher for every size" % (B.name,
                                                             f.__name__),
               "" if ok else "%d launchers" % len(mine))


def main():
    compile_only = fuse.gpu.compile_only()
    print("fuse GPU checks: cache %s, fuse-compile %s" % (
        fuse.cache_root(), fuse.gpu.find_fuse_compile() or "absent"))
    if compile_only:
        print("mode: compile only (FUSE_GPU_COMPILE_ONLY): StandIn arrays, "
              "nothing launched")
        backends, numeric = [StandInBackend()], False
    elif not fuse.gpu.available():
        try:
            fuse.gpu.runtime()
        except fuse.gpu.GPUUnavailableError as e:
            print("no GPU here: %s" % e)
        report(not REQUIRE, "GPU available", "no GPU, but FUSE_REQUIRE_GPU "
               "is set" if REQUIRE else "no GPU: checking that every "
               "pipeline's key is in the cache (look-ups only, no launch)")
        fuse.gpu.set_compile_only(True)
        backends, numeric = [StandInBackend()], False
    else:
        backends, numeric = [], True
        for cls in (TorchBackend, CupyBackend):
            try:
                backends.append(cls())
            except Exception as e:  # noqa: BLE001
                if REQUIRE:
                    report(False, "backend %s" % cls.name, str(e))
                else:
                    print("SKIP backend %s: %s" % (cls.name, e))
    for B in backends:
        for part in (lambda: workload_checks(B, numeric),
                     lambda: edge_checks(B, numeric),
                     lambda: unsigned_checks(B, numeric),
                     lambda: direct_checks(B, numeric),
                     lambda: error_checks(B),
                     lambda: cache_checks(B, numeric),
                     lambda: stream_checks(B, numeric),
                     lambda: graph_check.graph_checks(B, numeric,
                                                      sys.modules[__name__]),
                     lambda: temp_storage_check.temp_storage_checks(
                         B, numeric, sys.modules[__name__]),
                     lambda: sort_check.sort_checks(
                         B, numeric, sys.modules[__name__]),
                     lambda: searchsorted_check.searchsorted_checks(
                         B, numeric, sys.modules[__name__]),
                     lambda: searchsorted_check.compute_checks(
                         B, numeric, sys.modules[__name__]),
                     lambda: sort_check.compute_sort_checks(
                         B, numeric, sys.modules[__name__]),
                     lambda: sort_check.compute_unique_checks(
                         B, numeric, sys.modules[__name__])):
            try:
                part()
            except Exception as e:  # noqa: BLE001 (report and go on)
                report(False, "%s checks" % B.name, "%s: %s" % (
                    type(e).__name__, e))
    s = fuse.gpu.stats
    print("fuse.gpu.stats: %s" % s)
    if not compile_only and (REQUIRE or fuse.gpu.find_fuse_compile() is None):
        report(s["compiles"] == 0, "every pipeline from the cache (no "
               "compile on this machine)", "%d compiled" % s["compiles"])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
