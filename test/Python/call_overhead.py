"""Per-call cost of @fuse.jit on GPU arrays against the libraries' own
eager code, in plain Python (no pytest): docs/python.md, "Per-call cost".

    python3 call_overhead.py [--package DIR] [--label NAME] [--out FILE]
                             [--quick]
    python3 call_overhead.py --table FILE [FILE ...]

Workloads: sumsq, chain and softmax_rows of test/Python/workloads.py, at
4096, 2^16, 2^20 and 2^24 float32 elements (softmax_rows: rows of 1024),
and fuse.compute's reduce_into of squares into a caller's d_out at 4096 and
2^20,
on PyTorch CUDA tensors (and CuPy arrays at two sizes where CuPy is
there), against torch eager ((x * x).sum(), relu(1.5 x + 0.25) * 0.5 + x,
torch.softmax(X, 1)). Per case, after a warm-up, medians over many calls:

  host  one call's wall time with the GPU idle before it (the launch
        queue empty): the Python path plus the launch, what a cache hit
        costs the caller;
  loop  back-to-back calls then one synchronize, divided by the count:
        host and GPU work overlapped (the larger of the two per call);
  sync  a call plus the synchronize after it: the latency of one result.

It also times the C entry alone (the Launcher's ctypes function on the
arguments of a real call) and the pieces of the old per-call path that
PyTorch itself costs (__cuda_array_interface__, current_stream, empty).
--package puts another copy of the fuse package first on sys.path (the
one before this change, for the before/after table); results go to --out
as JSON lines; --table prints them side by side.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def median_us(samples_ns):
    return statistics.median(samples_ns) / 1000.0


def host_us(fn, sync, n):
    ts = []
    for _ in range(n):
        sync()
        t0 = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t0)
    sync()
    return median_us(ts)


def loop_us(fn, sync, n, reps=3):
    ts = []
    for _ in range(reps):
        sync()
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        sync()
        ts.append((time.perf_counter_ns() - t0) / n)
    return median_us(ts)


def sync_us(fn, sync, n):
    ts = []
    for _ in range(n):
        sync()
        t0 = time.perf_counter_ns()
        fn()
        sync()
        ts.append(time.perf_counter_ns() - t0)
    return median_us(ts)


def _square(a):
    return a * a


def calls_for(size):
    return 1000 if size <= 1 << 16 else (400 if size <= 1 << 20 else 100)


def measure(label, out, quick):
    import numpy as np
    import torch
    import fuse
    import workloads as W

    rows = []

    def emit(**r):
        r["label"] = label
        rows.append(r)
        out.write(json.dumps(r) + "\n")
        out.flush()
        print("%-8s %-14s %-6s %9d  host %8.2f  loop %8.2f  sync %8.2f" % (
            label, r["case"], r["lib"], r["n"], r["host"], r["loop"],
            r["sync"]), flush=True)

    sizes = [4096, 1 << 16, 1 << 20, 1 << 24]
    if quick:
        sizes = sizes[:2]
    tsync = torch.cuda.synchronize
    rng = np.random.default_rng(0)
    cases = {
        "sumsq": (W.jit_sumsq, lambda x: (x * x).sum(), W.ref_sumsq, False),
        "chain": (W.jit_chain,
                  lambda x: torch.relu(1.5 * x + 0.25) * 0.5 + x,
                  W.ref_chain, False),
        "softmax_rows": (W.jit_softmax_rows,
                         lambda X: torch.softmax(X, 1), W.ref_softmax_rows,
                         True),
    }
    for name, (f, eager, ref, rows2d) in cases.items():
        for n in sizes:
            shape = (n // 1024, 1024) if rows2d else (n,)
            xh = rng.uniform(-1, 1, shape).astype(np.float32)
            x = torch.from_numpy(xh).cuda()
            got = f(x)
            tsync()
            want = ref(xh)
            err = float(np.max(np.abs(got.cpu().numpy() - want)) /
                        max(np.max(np.abs(want)), 1e-30))
            if not err < 1e-3:
                print("FAIL %s n=%d: relative error %g" % (name, n, err))
                sys.exit(1)
            k = calls_for(n)
            for lib, fn in (("fuse", lambda: f(x)),
                            ("torch", lambda: eager(x))):
                for _ in range(50):
                    fn()
                emit(case=name, lib=lib, n=n, host=host_us(fn, tsync, k),
                     loop=loop_us(fn, tsync, k), sync=sync_us(fn, tsync, k))
            if name == "sumsq" and n == 4096 and hasattr(f, "_launchers"):
                s = torch.cuda.Stream()        # (a package with stream=)

                def on_stream():
                    return f(x, stream=s)
                on_stream()
                emit(case=name + "+stream", lib="fuse", n=n,
                     host=host_us(on_stream, tsync, k),
                     loop=loop_us(on_stream, tsync, k),
                     sync=sync_us(on_stream, tsync, k))
    # fuse.compute: reduce_into of squares into a d_out of the caller's,
    # the cuda.compute way.
    import fuse.compute as fc
    for n in (4096, 1 << 20):
        xh = rng.uniform(-1, 1, n).astype(np.float32)
        x = torch.from_numpy(xh).cuda()
        d_out = torch.empty(1, dtype=torch.float32, device="cuda")
        sq = fc.TransformIterator(x, _square)

        def compute():
            fc.reduce_into(sq, d_out, fuse.OpKind.PLUS, n, np.float32(0))
        k = calls_for(n)
        for lib, fn in (("fuse", compute), ("torch", lambda: (x * x).sum())):
            for _ in range(50):
                fn()
            emit(case="compute-sumsq", lib=lib, n=n,
                 host=host_us(fn, tsync, k), loop=loop_us(fn, tsync, k),
                 sync=sync_us(fn, tsync, k))
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        csync = cupy.cuda.Device().synchronize
        for n in (4096, 1 << 20):
            xh = rng.uniform(-1, 1, n).astype(np.float32)
            x = cupy.asarray(xh)
            for lib, fn in (("fuse", lambda: W.jit_sumsq(x)),
                            ("cupy", lambda: (x * x).sum())):
                for _ in range(50):
                    fn()
                k = calls_for(n)
                emit(case="sumsq-cupy", lib=lib, n=n,
                     host=host_us(fn, csync, k), loop=loop_us(fn, csync, k),
                     sync=sync_us(fn, csync, k))
    pieces(label, out, np, torch, fuse, W)
    return rows


def pieces(label, out, np, torch, fuse, W):
    """The pieces of a call: PyTorch's own costs that the old path paid
    per call, the C entry alone, and a profile of 2000 cache hits."""
    import cProfile
    import io
    import pstats
    x = torch.rand(4096, device="cuda")
    dt = torch.float32

    def t(fn, n=5000):
        for _ in range(100):
            fn()
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        return (time.perf_counter_ns() - t0) / n / 1000.0
    res = {
        "x.__cuda_array_interface__": t(lambda: x.__cuda_array_interface__),
        "torch.cuda.current_stream(dev).cuda_stream":
            t(lambda: torch.cuda.current_stream(x.device).cuda_stream),
        "torch._C._cuda_getCurrentRawStream(0)":
            t(lambda: torch._C._cuda_getCurrentRawStream(0)),
        "torch.empty((), float32, cuda)":
            t(lambda: torch.empty((), dtype=dt, device=x.device)),
        "x.data_ptr()": t(lambda: x.data_ptr()),
        "x.is_contiguous()": t(lambda: x.is_contiguous()),
    }
    launchers = getattr(W.jit_sumsq, "_launchers", None)
    if launchers:
        from fuse import _launch
        key = _launch.fast_key(["x"], (x,))
        res["fast_key(x)"] = t(lambda: _launch.fast_key(["x"], (x,)))
        res["dict look-up"] = t(lambda: launchers.get(key))
        launcher = launchers[key]
        W.jit_sumsq(x)
        seen = []
        real = launcher._fn

        def record(*cargs):
            seen.append(cargs)
            return real(*cargs)
        launcher._fn = record
        W.jit_sumsq(x)
        launcher._fn = real
        cargs = seen[0]
        res["C entry through ctypes (sumsq 4096)"] = t(lambda: real(*cargs))
        torch.cuda.synchronize()
    X = torch.rand(4, 1024, device="cuda")
    res["torch.empty((4, 1024), float32, cuda)"] = t(
        lambda: torch.empty((4, 1024), dtype=dt, device=X.device))
    res["X.new_empty((4, 1024))"] = t(lambda: X.new_empty((4, 1024)))
    res["torch.empty_like(X)"] = t(lambda: torch.empty_like(X))
    for name, f in (("sumsq", W.jit_sumsq), ("chain", W.jit_chain),
                    ("softmax_rows", W.jit_softmax_rows)):
        for n in (4096, 1 << 20):
            a = torch.rand(*((n // 1024, 1024) if name == "softmax_rows"
                             else (n,)), device="cuda")
            res.update(entry_pieces(torch, f, a, "%s %d" % (name, n)))
            eager = {"sumsq": lambda: (a * a).sum(),
                     "chain": lambda: torch.relu(1.5 * a + 0.25) * 0.5 + a,
                     "softmax_rows": lambda: torch.softmax(a, 1)}[name]
            res["torch eager gpu (%s %d)" % (name, n)] = gpu_us(torch, eager)
    for k, v in res.items():
        r = {"label": label, "piece": k, "us": v}
        out.write(json.dumps(r) + "\n")
        print("%-8s %-45s %8.2f us" % (label, k, v), flush=True)
    torch.cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        W.jit_sumsq(x)
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
    out.write(json.dumps({"label": label, "profile": s.getvalue()}) + "\n")


def entry_pieces(torch, f, x, what):
    """The C entry of f's call on x alone, through ctypes on the arguments
    of a real call: host (the call with the GPU idle before it), loop
    (back-to-back calls) and gpu (the kernels' time per call, queued
    behind a sleeping kernel so that no launch gap counts)."""
    launchers = getattr(f, "_launchers", None)
    if not launchers:
        return {}
    f(x)
    seen = []
    wrapped = []
    for launcher in launchers.values():
        real = launcher._fn
        if real is None:
            continue

        def record(*cargs, real=real):
            seen.append((real, cargs))
            return real(*cargs)
        launcher._fn = record
        wrapped.append((launcher, real))
    f(x)
    for launcher, real in wrapped:
        launcher._fn = real
    if not seen:
        return {}
    real, cargs = seen[-1]
    tsync = torch.cuda.synchronize

    def call():
        real(*cargs)
    for _ in range(50):
        call()
    k = 400
    res = {"C entry host (%s)" % what: host_us(call, tsync, k),
           "C entry loop (%s)" % what: loop_us(call, tsync, k)}
    res["C entry gpu (%s)" % what] = gpu_us(torch, call)
    return res


def gpu_us(torch, fn, n=200):
    """The GPU's time per call of fn: n calls queued behind a sleeping
    kernel, timed by events, so that the host's launch gaps do not count."""
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    gpu = []
    for _ in range(5):
        torch.cuda.synchronize()
        torch.cuda._sleep(10 ** 7)
        start.record()
        for _ in range(n):
            fn()
        end.record()
        torch.cuda.synchronize()
        gpu.append(start.elapsed_time(end) * 1000.0 / n)
    return statistics.median(gpu)


def table(files):
    rows, pcs = [], []
    for fn in files:
        with open(fn) as f:
            for line in f:
                r = json.loads(line)
                if "case" in r:
                    rows.append(r)
                elif "piece" in r:
                    pcs.append(r)
    labels = []
    for r in rows:
        if r["label"] not in labels:
            labels.append(r["label"])
    by = {(r["label"], r["case"], r["lib"], r["n"]): r for r in rows}
    cases = []
    for r in rows:
        c = (r["case"], r["n"])
        if c not in cases:
            cases.append(c)
    print("per-call us, medians: host = one call, the GPU idle before it; "
          "loop = back-to-back calls; sync = a call and a synchronize")
    cols = [("fuse", lab) for lab in labels] + [("eager", None)]
    print("%-13s %9s" % ("case", "n") + "".join(
        " | %-20s" % ("fuse " + lab if lib == "fuse" else "eager")
        for lib, lab in cols))
    print("%-13s %9s" % ("", "") + " | host   loop   sync " * len(cols))
    for case, n in cases:
        line = "%-13s %9d" % (case, n)
        for lib, lab in cols:
            r = None
            if lib == "fuse":
                r = by.get((lab, case, "fuse", n))
            else:
                for lab2 in labels:
                    for lib2 in ("torch", "cupy"):
                        r = r or by.get((lab2, case, lib2, n))
            line += " | %6.1f %6.1f %6.1f" % (r["host"], r["loop"],
                                              r["sync"]) if r else \
                " | %20s" % "-"
        print(line)
    for p in pcs:
        print("%-8s %-45s %8.2f us" % (p["label"], p["piece"], p["us"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package")
    ap.add_argument("--label", default="new")
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--table", nargs="+")
    a = ap.parse_args()
    if a.table:
        table(a.table)
        return 0
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.abspath(a.package) if a.package else
                    os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                 "python"))
    out = open(a.out, "w") if a.out else open(os.devnull, "w")
    with out:
        measure(a.label, out, a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
