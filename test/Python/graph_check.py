"""CUDA graph checks of the Python package, run by gpu_check.py on a GPU.

@fuse.jit pipelines captured with torch.cuda.graph, and with CuPy's stream
capture, replay on new inputs (copied into the captured input) and give the
bits of eager calls on the same inputs, within the NumPy float64 reference's
tolerance; the runtime allocates their temporaries from stream-ordered
memory that the graph owns. A filter followed by a reduction reads the
kept count on the device and is captured like the others; a pipeline that
returns a filter's result, whose count the package reads on the host,
raises a clear error under capture instead of recording a partial graph
silently. A sort calls the runtime's radix sort with temporary storage
from the same stream-ordered memory.
"""

import numpy as np

import fuse
import workloads as W


@fuse.jit
def jit_positive_sumsq(x):
    """A filter, then a reduction of the kept elements."""
    y = fuse.filter(x, lambda a: a > 0)
    return (y * y).sum()


def ref_positive_sumsq(x):
    return np.sum(x[x > 0].astype(np.float64) ** 2)

@fuse.jit
def jit_argsort_square(x):
    """A group, then the runtime's radix sort of its keys with an iota."""
    return fuse.argsort(x * x)


def ref_argsort_square(x):
    return np.argsort(x * x, kind="stable")


# (name, function, input shape, reference, relative tolerance, absolute);
# "sum": gpu_check's sum_rtol of the reduced length, as its workload checks.
CASES = [
    ("sumsq 4096", W.jit_sumsq, (4096,), W.ref_sumsq, "sum", 0.0),
    ("sumsq 2^20", W.jit_sumsq, (1 << 20,), W.ref_sumsq, "sum", 0.0),
    ("sumsq 1000003", W.jit_sumsq, (1000003,), W.ref_sumsq, "sum", 0.0),
    ("chain 1000003", W.jit_chain, (1000003,), W.ref_chain, 1e-6, 1e-7),
    ("scan 1000003", W.jit_scan, (1000003,), W.ref_scan, "sum", 0.0),
    ("variance 1000003", W.jit_variance, (1000003,), W.ref_variance, "sum",
     1e-7),
    ("softmax_rows 64x1024", W.jit_softmax_rows, (64, 1024),
     W.ref_softmax_rows, "sum", 1e-7),
    ("softmax_rows 8x100000", W.jit_softmax_rows, (8, 100000),
     W.ref_softmax_rows, "sum", 1e-7),
    ("logsumexp_rows 1000x1024", W.jit_logsumexp_rows, (1000, 1024),
     W.ref_logsumexp_rows, "sum", 1e-6),
    ("positive_sumsq 1000003", jit_positive_sumsq, (1000003,),
     ref_positive_sumsq, "sum", 0.0),
    ("positive_sumsq 1000", jit_positive_sumsq, (1000,),
     ref_positive_sumsq, "sum", 0.0),
    ("argsort_square 1000003", jit_argsort_square, (1000003,),
     ref_argsort_square, 0.0, 0.0),
]


def _bits(a):
    a = np.ascontiguousarray(np.asarray(a))
    return a.view(np.uint8).tobytes()


def graph_checks(B, numeric, ctx):
    """ctx: gpu_check's report, rand, sum_rtol, close and Mismatch."""
    if not numeric:
        # Compile-only or look-ups: every case's pipeline (most are the
        # workload checks' signatures), nothing captured.
        for name, f, shape, *_ in CASES:
            f(B.dev(ctx.rand(shape, seed=1)))
        return
    if B.name == "torch":
        capture = _torch_capture(B.torch)
    elif B.name == "cupy":
        capture = _cupy_capture(B.cupy)
    else:
        return
    for name, f, shape, ref, rtol, atol in CASES:
        what = "%s graph %s" % (B.name, name)
        try:
            x0 = ctx.rand(shape, seed=1)
            static_x = B.dev(x0)
            replay, static_y = capture(lambda: f(static_x))
            if rtol == "sum":
                rtol = ctx.sum_rtol(shape[-1])
            ok, detail = True, ""
            for seed in (2, 3):
                x = ctx.rand(shape, seed=seed)
                _copy_into(B, static_x, x)
                replay()
                got = B.host(static_y)
                eager = B.host(f(static_x))
                if _bits(got) != _bits(eager):
                    ok, detail = False, "replay differs from an eager call"
                    break
                ctx.close(got, ref(x), rtol, atol)
            ctx.report(ok, what + ": replays give the eager bits", detail)
        except ctx.Mismatch as e:
            ctx.report(False, what, str(e))
        except Exception as e:  # noqa: BLE001 (report and go on)
            ctx.report(False, what, "%s: %s" % (type(e).__name__, e))
    # A filter's result returned: refused under capture, with the runtime's
    # reason (its count is read on the host).
    what = "%s graph select is refused" % B.name
    try:
        static_x = B.dev(ctx.rand((1000,), seed=4))
        capture(lambda: W.jit_select(static_x))
        ctx.report(False, what, "no error")
    except Exception as e:  # noqa: BLE001
        text = "%s: %s" % (type(e).__name__, e)
        ctx.report("FUSE_ERROR_NOT_PERMITTED" in text and "captured" in text,
                   what, text)


def _copy_into(B, dst, x):
    if B.name == "torch":
        dst.copy_(B.torch.from_numpy(np.ascontiguousarray(x)))
    else:
        dst.set(np.ascontiguousarray(x))


def _torch_capture(torch):
    def capture(call):
        # torch's recipe: warm up on a side stream, then capture.
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                call()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = call()

        def replay():
            g.replay()
            torch.cuda.synchronize()
        return replay, y
    return capture


def _cupy_capture(cupy):
    def capture(call):
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            for _ in range(2):
                call()
            s.synchronize()
            s.begin_capture()
            try:
                y = call()
            finally:
                g = s.end_capture()

        def replay():
            # The new inputs were copied on the current (legacy default)
            # stream, which a non-blocking stream does not wait for.
            cupy.cuda.runtime.deviceSynchronize()
            g.launch(stream=s)
            s.synchronize()
        return replay, y
    return capture
