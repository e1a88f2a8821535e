"""fuse.compute's object form with caller-provided temporary storage, run by
gpu_check.py on a GPU.

make_reduce_into, make_inclusive_scan, make_exclusive_scan, make_select and
make_segmented_reduce, called as cuda.compute's are: temp_storage None asks
the bytes, then a CUDA array of that many bytes runs the pipeline's
capture-safe form. The results land in d_out with the bits of the plain
calls (the same kernels and launches), select's count on the device in an
int64 array, fuse allocates no output, and a storage too small or
misaligned, a d_out of another dtype or an int32 count are clear errors. On
PyTorch the reducer is also captured into a CUDA graph and replayed.
Select's count on the device then sizes a @fuse.jit pipeline through
fuse.prefix: the kept elements are summed without the count coming to the
host. make_radix_sort (pairs), make_unique_by_key (its count on the
device) and make_histogram_even write their outputs straight with the
caller's storage too.
"""

import numpy as np

import fuse
import fuse.compute as fc
from fuse import OpKind

import graph_check
from histogram_check import cub_even_model


@fuse.jit
def jit_kept_sum(buf, n):
    """The sum of buf's first n elements, n a count on the device."""
    return fuse.prefix(buf, n).sum()


def _bits(a):
    return np.ascontiguousarray(np.asarray(a)).view(np.uint8).tobytes()


def temp_storage_checks(B, numeric, ctx):
    """ctx: gpu_check's report, rand, sum_rtol, close, run_check,
    expect_error, CountAllocs and Mismatch."""
    H = B.host
    n, R, C = 1000003, 1001, 999
    x = ctx.rand(n, seed=31)
    xi = np.random.default_rng(32).integers(-100, 100, n).astype(np.int32)
    X = ctx.rand((R, C), seed=33)
    dx, dxi, dX = B.dev(x), B.dev(xi), B.dev(X)
    f32, i32, i64 = np.float32, np.int32, np.int64
    kept = x[x > 0]

    def storage(nbytes):
        return B.empty((nbytes,), np.uint8)

    # name, the object form's call with temp_storage t into d_out o, d_out
    # dtype and size, the plain call into d_out, the reference check.
    sq = fc.TransformIterator(dx, lambda a: a * a)
    cases = [
        ("reduce_into sumsq",
         lambda t, o: fc.make_reduce_into(sq, o, OpKind.PLUS, f32(0))(
             t, sq, o, n, f32(0)),
         f32, 1, lambda o: fc.reduce_into(sq, o, OpKind.PLUS, n, f32(0)),
         lambda g: ctx.close(g, [np.sum(x.astype(np.float64) ** 2)],
                             ctx.sum_rtol(n))),
        ("inclusive_scan int32",
         lambda t, o: fc.make_inclusive_scan(dxi, o, OpKind.PLUS, None)(
             t, dxi, o, n, None),
         i32, n, lambda o: fc.inclusive_scan(dxi, o, OpKind.PLUS, None, n),
         lambda g: _exact(ctx, g, np.cumsum(xi, dtype=np.int32))),
        ("exclusive_scan of squares init 1",
         lambda t, o: fc.make_exclusive_scan(sq, o, OpKind.PLUS, f32(1))(
             t, sq, o, n, f32(1)),
         f32, n, lambda o: fc.exclusive_scan(sq, o, OpKind.PLUS, f32(1), n),
         lambda g: ctx.close(g, 1 + np.concatenate(
             [[0], np.cumsum(x.astype(np.float64) ** 2)[:-1]]),
             ctx.sum_rtol(n))),
        ("segmented_reduce %dx%d" % (R, C),
         lambda t, o: fc.make_segmented_reduce(dX, o, OpKind.MAXIMUM,
                                               f32(-np.inf))(
             t, dX, o, R, C, f32(-np.inf)),
         f32, R, lambda o: fc.segmented_reduce(dX, o, OpKind.MAXIMUM,
                                               f32(-np.inf), R, C),
         lambda g: _exact(ctx, g, X.max(axis=1))),
    ]
    for name, call, dtype, size, plain, check in cases:
        what = "%s temp_storage %s" % (B.name, name)

        def run(call=call, dtype=dtype, size=size):
            o = B.empty((size,), dtype)
            nbytes = call(None, o)
            t = storage(max(int(nbytes), 1))
            with ctx.CountAllocs() as c:
                r = call(t, o)
            return nbytes, r, o, c.n

        def verify(res, dtype=dtype, size=size, plain=plain, check=check):
            nbytes, r, o, nallocs = res
            if not isinstance(nbytes, int) or nbytes < 1:
                raise ctx.Mismatch("the query answered %r" % (nbytes,))
            if r is not None:
                raise ctx.Mismatch("the call returned %r" % (r,))
            if nallocs:
                raise ctx.Mismatch("%d outputs allocated" % nallocs)
            if not numeric:
                return
            ref = B.empty((size,), dtype)
            plain(ref)
            if _bits(H(o)) != _bits(H(ref)):
                raise ctx.Mismatch("differs from the plain call's bits")
            check(H(o))
        ctx.run_check(what, run, verify)

    # select: the count stays on the device, in an int64 array.
    def run_select():
        o = B.empty((n,), f32)
        cnt = B.dev(np.zeros(1, i64))
        sel = fc.make_select(dx, o, cnt, lambda a: a > 0)
        nbytes = sel(None, dx, o, cnt, n)
        with ctx.CountAllocs() as c:
            r = sel(storage(nbytes), dx, o, cnt, n)
        return r, o, cnt, c.n

    def v_select(res):
        r, o, cnt, nallocs = res
        if r is not None or nallocs:
            raise ctx.Mismatch("returned %r, %d outputs allocated"
                               % (r, nallocs))
        if not numeric:
            return
        got = int(H(cnt)[0])
        if got != kept.size:
            raise ctx.Mismatch("count %d, expected %d" % (got, kept.size))
        _exact(ctx, H(o)[:got], kept)
    ctx.run_check("%s temp_storage select (count on the device)" % B.name,
                  run_select, v_select)

    def run_chain():
        o = B.empty((n,), f32)
        cnt = B.dev(np.zeros(1, i64))
        sel = fc.make_select(dx, o, cnt, lambda a: a > 0)
        sel(storage(sel(None, dx, o, cnt, n)), dx, o, cnt, n)
        return jit_kept_sum(o, cnt.reshape(()))

    def v_chain(s):
        if numeric:
            ctx.close(H(s), np.sum(kept.astype(np.float64)),
                      ctx.sum_rtol(kept.size))
    ctx.run_check("%s select, then fuse.prefix of its count on the device "
                  "summed" % B.name, run_chain, v_chain)

    # A radix sort of pairs and a histogram: outputs written straight.
    def run_sort():
        ok, ov = B.empty((n,), i32), B.empty((n,), i64)
        a = dict(d_in_keys=dxi, d_out_keys=ok, d_in_values=dpos,
                 d_out_values=ov, num_items=n)
        rs = fc.make_radix_sort(order=fc.SortOrder.ASCENDING, **{
            k: a[k] for k in ("d_in_keys", "d_out_keys", "d_in_values",
                              "d_out_values")})
        nbytes = rs(temp_storage=None, **a)
        with ctx.CountAllocs() as c:
            r = rs(temp_storage=storage(nbytes), **a)
        return r, (ok, ov), c.n

    def v_sort(res):
        r, (ok, ov), nallocs = res
        if r is not None or nallocs:
            raise ctx.Mismatch("returned %r, %d outputs allocated"
                               % (r, nallocs))
        if numeric:
            order = np.argsort(xi, kind="stable")
            _exact(ctx, H(ok), xi[order])
            _exact(ctx, H(ov), order)

    def run_hist():
        h = B.empty((256,), i32)
        kw = dict(d_samples=dx, d_histogram=h,
                  h_num_output_levels=np.array([257], np.int32),
                  h_lower_level=np.array([-1.0], f32),
                  h_upper_level=np.array([1.0], f32), num_samples=n)
        hist = fc.make_histogram_even(**kw)
        nbytes = hist(temp_storage=None, **kw)
        with ctx.CountAllocs() as c:
            r = hist(temp_storage=storage(nbytes), **kw)
        return r, h, c.n

    def v_hist(res):
        r, h, nallocs = res
        if r is not None or nallocs:
            raise ctx.Mismatch("returned %r, %d outputs allocated"
                               % (r, nallocs))
        if numeric:
            # CUB's bin rule, not NumPy's: (x - lower) * (bins / range) in
            # float32 puts samples within a rounding of an edge in the
            # next bin.
            _exact(ctx, H(h), cub_even_model(x, 257, np.float32(-1.0),
                                             np.float32(1.0)).astype(np.int32))
    ks = np.sort(xi)
    dks = B.dev(ks)

    def run_unique():
        ok, ov = B.empty((n,), i32), B.empty((n,), i64)
        cnt = B.dev(np.zeros(1, i64))
        kw = dict(d_in_keys=dks, d_in_items=dpos, d_out_keys=ok,
                  d_out_items=ov, d_out_num_selected=cnt,
                  op=OpKind.EQUAL_TO)
        u = fc.make_unique_by_key(**kw)
        nbytes = u(temp_storage=None, num_items=n, **kw)
        with ctx.CountAllocs() as c:
            r = u(temp_storage=storage(nbytes), num_items=n, **kw)
        return r, (ok, ov, cnt), c.n

    def v_unique(res):
        r, (ok, ov, cnt), nallocs = res
        if r is not None or nallocs:
            raise ctx.Mismatch("returned %r, %d outputs allocated"
                               % (r, nallocs))
        if numeric:
            first = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
            got = int(H(cnt)[0])
            if got != first.size:
                raise ctx.Mismatch("count %d, expected %d"
                                   % (got, first.size))
            _exact(ctx, H(ok)[:got], ks[first])
            _exact(ctx, H(ov)[:got], first)
    dpos = B.dev(np.arange(n, dtype=i64))
    ctx.run_check("%s temp_storage unique_by_key (count on the device)"
                  % B.name, run_unique, v_unique)
    ctx.run_check("%s temp_storage radix_sort pairs" % B.name, run_sort,
                  v_sort)
    ctx.run_check("%s temp_storage histogram_even" % B.name, run_hist,
                  v_hist)

    if not numeric:
        return
    # Clear errors, before anything runs.
    o1 = B.empty((1,), f32)
    red = fc.make_reduce_into(sq, o1, OpKind.PLUS, f32(0))
    need = red(None, sq, o1, n, f32(0))
    ctx.expect_error(
        "%s temp_storage error: too small" % B.name, ValueError,
        "bytes but this call needs",
        lambda: red(storage(need)[:need - 1], sq, o1, n, f32(0)))
    ctx.expect_error(
        "%s temp_storage error: misaligned" % B.name, ValueError,
        "256-byte aligned",
        lambda: red(storage(need + 256)[1:], sq, o1, n, f32(0)))
    o64, c64 = B.empty((n,), np.float64), B.dev(np.zeros(1, i64))
    ctx.expect_error(
        "%s temp_storage error: d_out of another dtype" % B.name, ValueError,
        "goes straight into d_out",
        lambda: fc.make_select(dx, o64, c64, lambda a: a > 0)(
            storage(1 << 20), dx, o64, c64, n))
    c32 = B.dev(np.zeros(1, i32))
    ctx.expect_error(
        "%s temp_storage error: an int32 count" % B.name, TypeError,
        "expected int64 or uint64",
        lambda: fc.make_select(dx, B.empty((n,), f32), c32, lambda a: a > 0)(
            None, dx, B.empty((n,), f32), c32, n))
    if B.name == "torch":
        _graph(B, ctx, n)


def _exact(ctx, g, r):
    g, r = np.asarray(g), np.asarray(r)
    if g.shape != r.shape or not np.array_equal(g, r):
        raise ctx.Mismatch("%d of %d differ" % (
            (g != r).sum() if g.shape == r.shape else -1, r.size))


def _graph(B, ctx, n):
    """The reducer captured with its storage: replays on new inputs give
    the eager bits."""
    what = "%s temp_storage reduce_into captured into a graph" % B.name
    try:
        torch = B.torch
        x0 = ctx.rand(n, seed=41)
        dx = B.dev(x0)
        o = B.empty((1,), np.float32)
        red = fc.make_reduce_into(dx, o, OpKind.PLUS, np.float32(0))
        t = B.empty((red(None, dx, o, n, np.float32(0)),), np.uint8)
        replay, _ = graph_check._torch_capture(torch)(
            lambda: red(t, dx, o, n, np.float32(0)))
        x1 = ctx.rand(n, seed=42)
        dx.copy_(torch.from_numpy(x1))
        replay()
        got = B.host(o).copy()
        red(t, dx, o, n, np.float32(0))
        torch.cuda.synchronize()
        ok = _bits(got) == _bits(B.host(o))
        if ok:
            ctx.close(got, [np.sum(x1.astype(np.float64))], ctx.sum_rtol(n))
        ctx.report(ok, what, "" if ok else "the replay differs from an "
                   "eager call")
    except ctx.Mismatch as e:
        ctx.report(False, what, str(e))
    except Exception as e:  # noqa: BLE001 (report and go on)
        ctx.report(False, what, "%s: %s" % (type(e).__name__, e))
