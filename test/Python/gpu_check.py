"""GPU checks of the Python package, in plain Python (no pytest).

Every WORKLOADS pipeline, both front ends (@fuse.jit and fuse.compute), on
PyTorch CUDA tensors and CuPy arrays, sizes 0, 1, 31, 1000003 (rows shapes
as test_workloads.py), against NumPy float64 references with the CPU tests'
tolerances; the value edges of test_value_edges.py (edge_cases.py: NaN,
+-Inf, -0.0, denormals, largest finite values; float32 and float64) against
NumPy under the documented semantics, and unsigned integers and bool
(edge_check.py); plus argument errors raised before any
launch, the cache, stream=, and that fuse.compute writes its results
straight into d_out (no output allocated) where d_out can take them, and
CUDA graph capture and replay (graph_check.py); fuse.compute with the
caller's temporary storage (temp_storage_check.py); fuse.sort and
fuse.argsort through the runtime's radix sort, np.unique, radix_sort and
unique_by_key (sort_check.py); fuse.searchsorted and lower_bound/
upper_bound fused into their groups (searchsorted_check.py); np.histogram,
np.bincount and histogram_even (histogram_check.py); the segment reductions,
reduce_by_key and segmented_reduce with offsets (segments_check.py);
fuse.topk, fuse.partition and three_way_partition (partition_check.py);
argmax, argmin and reductions and scans with (tuple) function combiners
(combiner_check.py); float16, bfloat16, int8 and uint8 arrays
(half_check.py); layer norm over rows and softmax over the last axis of
rank-3 arrays in float32, float16 and bfloat16 (rows_check.py). The
comparisons every module raises Mismatch from are check_util.py's.

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
FUSE_GPU_CHECKS=PART,... runs only those parts (names in PARTS below, e.g.
"segments,segments_compute" after a change to the segment kernels); an
unknown name is a FAIL. The scripts run every part.
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
from fuse._types import BFLOAT16  # noqa: E402
import edge_check  # noqa: E402
import graph_check  # noqa: E402
import half_check  # noqa: E402
import rows_check  # noqa: E402
import histogram_check  # noqa: E402
import partition_check  # noqa: E402
import combiner_check  # noqa: E402
import searchsorted_check  # noqa: E402
import segments_check  # noqa: E402
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
        a = np.ascontiguousarray(a)
        if a.dtype == BFLOAT16:       # torch.from_numpy takes no ml_dtypes
            return self.torch.from_numpy(a.view(np.int16)).cuda().view(
                self.torch.bfloat16)
        return self.torch.from_numpy(a).cuda()

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=fuse.gpu._torch_dtype(dtype),
                                device="cuda")

    def host(self, a):
        if isinstance(a, (int, float, np.generic)):
            return np.asarray(a)
        if a.dtype == self.torch.bfloat16:
            return a.view(self.torch.int16).cpu().numpy().view(BFLOAT16)
        return a.cpu().numpy()

    def host_array_for_gpu(self, a):
        return self.torch.from_numpy(a)          # a CPU tensor

    def unsupported(self, a):
        """a as an array of a dtype fuse does not take (complex64)."""
        return self.dev(a.astype(np.complex64))


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

    def unsupported(self, a):
        return self.cupy.asarray(a.astype(np.complex64))


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

    def unsupported(self, a):
        return fuse.gpu.StandIn(a.astype(np.complex64))


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


from check_util import (Mismatch, checker, close, exact, f32,  # noqa: E402,F401
                        near, same)


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

    chk = checker(B, numeric, sys.modules[__name__])

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
    expect_error("%s error: complex64 to @fuse.jit" % p, TypeError,
                 "complex64", lambda: W.jit_sumsq(B.unsupported(x)))
    expect_error("%s error: complex64 to fuse.compute" % p, TypeError,
                 "complex64", lambda: cc_chain(B, B.unsupported(x), 1000))
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


def device_checks(B):
    """The runtime runs on the arrays' device (one GPU here) and places a
    pointer given without its library (fuse_pointer_device, the check of
    arrays that are neither PyTorch's nor CuPy's): device memory on that
    device, host memory refused."""
    if B.name == "standin":
        return
    want = fuse.gpu.runtime_device()
    d = fuse.gpu.device_array(B.dev(rand(16)), "x")
    got = fuse.gpu._array_device(object(), d.ptr, "x")
    report(got == want, "%s the runtime's device (%d) holds a %s array, "
           "asked by its pointer" % (B.name, want, B.name), "got %r" % got)
    h = rand(16)
    expect_error("%s error: host memory asked by its pointer" % B.name,
                 TypeError, "host memory",
                 lambda: fuse.gpu._array_device(object(), h.ctypes.data,
                                                "x"))


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

    chk = checker(B, numeric, sys.modules[__name__], "stream ")

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


def parts(B, numeric, me):
    """(name, check) of every part of the checks, in order."""
    return [
        ("workloads", lambda: workload_checks(B, numeric)),
        ("edges", lambda: edge_check.edge_checks(B, numeric, me)),
        ("unsigned", lambda: edge_check.unsigned_checks(B, numeric, me)),
        ("direct", lambda: direct_checks(B, numeric)),
        ("errors", lambda: error_checks(B)),
        ("device", lambda: device_checks(B)),
        ("cache", lambda: cache_checks(B, numeric)),
        ("streams", lambda: stream_checks(B, numeric)),
        ("graphs", lambda: graph_check.graph_checks(B, numeric, me)),
        ("temp_storage",
         lambda: temp_storage_check.temp_storage_checks(B, numeric, me)),
        ("sort", lambda: sort_check.sort_checks(B, numeric, me)),
        ("searchsorted",
         lambda: searchsorted_check.searchsorted_checks(B, numeric, me)),
        ("searchsorted_compute",
         lambda: searchsorted_check.compute_checks(B, numeric, me)),
        ("sort_compute",
         lambda: sort_check.compute_sort_checks(B, numeric, me)),
        ("unique_compute",
         lambda: sort_check.compute_unique_checks(B, numeric, me)),
        ("comparator_sort",
         lambda: sort_check.comparator_sort_checks(B, numeric, me)),
        ("histogram",
         lambda: histogram_check.histogram_checks(B, numeric, me)),
        ("bincount", lambda: histogram_check.bincount_checks(B, numeric, me)),
        ("histogram_compute",
         lambda: histogram_check.compute_checks(B, numeric, me)),
        ("segments", lambda: segments_check.segments_checks(B, numeric, me)),
        ("segments_compute",
         lambda: segments_check.compute_checks(B, numeric, me)),
        ("partition",
         lambda: partition_check.partition_checks(B, numeric, me)),
        ("partition_compute",
         lambda: partition_check.compute_checks(B, numeric, me)),
        ("combiners", lambda: combiner_check.combiner_checks(B, numeric, me)),
        ("half", lambda: half_check.half_checks(B, numeric, me)),
        ("rows", lambda: rows_check.rows_checks(B, numeric, me)),
    ]


def selected_parts(B, numeric, me):
    """parts() limited to FUSE_GPU_CHECKS's names when set (an unknown
    name fails)."""
    every = parts(B, numeric, me)
    want = [w for w in os.environ.get("FUSE_GPU_CHECKS", "").split(",")
            if w]
    if not want:
        return every
    known = {name for name, _ in every}
    for w in want:
        report(w in known, "FUSE_GPU_CHECKS part %s" % w,
               "unknown; the parts are %s" % ", ".join(sorted(known)))
    return [(name, check) for name, check in every if name in want]


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
    me = sys.modules[__name__]
    for B in backends:
        for name, part in selected_parts(B, numeric, me):
            try:
                part()
            except Exception as e:  # noqa: BLE001 (report and go on)
                report(False, "%s %s checks" % (B.name, name), "%s: %s" % (
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
