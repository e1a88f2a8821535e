"""GPU checks of value edges and of unsigned integers and bool, run by
gpu_check.py (ctx: the gpu_check module, whose run_check and report count
the results)."""

import numpy as np

import edge_cases as E
import fuse
from check_util import Mismatch, checker, exact, near, same

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


def edge_checks(B, numeric, ctx):
    """numeric=False: only run the calls (compile-only or look-ups)."""
    chk = checker(B, numeric, ctx, "edge ")

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


def unsigned_checks(B, numeric, ctx):
    H = B.host

    chk = checker(B, numeric, ctx)

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
