"""GPU checks of the Python package, in plain Python (no pytest).

Every WORKLOADS pipeline, both front ends (@fuse.jit and fuse.compute), on
PyTorch CUDA tensors and CuPy arrays, sizes 0, 1, 31, 1000003 (rows shapes
as test_workloads.py), against NumPy float64 references with the CPU tests'
tolerances; plus argument errors raised before any launch and the cache.

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
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import fuse  # noqa: E402
import fuse.compute as fc  # noqa: E402
from fuse import OpKind  # noqa: E402
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
                     lambda: error_checks(B),
                     lambda: cache_checks(B, numeric)):
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
