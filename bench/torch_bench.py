"""torch eager and torch.compile on the benchmark workloads (bench/README.md).

Each (workload, implementation) is warmed up, timed with CUDA events (median
and min of --reps runs), checked against a float64 reference computed by
torch on the GPU, and printed as one JSON line, the same fields as the C++
harness (bench/harness.h). torch.compile's first call is timed separately
(`compile_s`): the cold compile cost fuse compares its compile times with.
"""
import argparse
import json
import math
import time

import torch


def rand(n, seed, shape=None):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.rand(shape or (n,), generator=g, device="cuda") * 2 - 1
    x[x == 0] = 0.5
    return x


def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ms = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    ms.sort()
    return ms[len(ms) // 2], ms[0]


def rel_err_scalar(got, ref, scale):
    return abs(float(got) - float(ref)) / max(float(scale), 1e-30)


def rel_err_elem(got, ref):
    d = (got.double() - ref).abs() / ref.abs().clamp(min=1.0)
    return float(d.max()) if d.numel() else 0.0


def emit(workload, impl, med, mn, nbytes, ok, err, reps, extra=None):
    rec = {"workload": workload, "impl": impl, "median_ms": med, "min_ms": mn,
           "bytes": nbytes, "gib_s": round(nbytes / (med * 1e-3) / 2**30, 1) if nbytes else 0,
           "ok": bool(ok), "rel_err": err, "reps": reps,
           "gpu": torch.cuda.get_device_name()}
    if extra:
        rec.update(extra)
    print(json.dumps(rec), flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    want = lambda w: not args.only or w in args.only
    n, reps = args.n, args.reps
    x, y = rand(n, 1), rand(n, 2)
    xd, yd = x.double(), y.double()
    failures = 0

    def sumsq(a):
        return (a * a).sum()

    def dot(a, b):
        return (a * b).sum()

    def chain(a):
        return torch.relu(1.5 * a + 0.25) * 0.5 + a

    def scan(a):
        return torch.cumsum(a * a, dim=0)

    def select(a):
        return a[a > 0]

    def variance(a):
        return ((a - a.mean()) ** 2).mean()

    def softmax_rows(m):
        return torch.softmax(m, dim=1)

    def logsumexp_rows(m):
        return torch.logsumexp(m, dim=1)

    cases = []
    if want("sumsq"):
        ref = (xd * xd).sum()
        cases.append(("sumsq", sumsq, (x,), 4 * n, lambda o, ref=ref: rel_err_scalar(o, ref, ref), 1e-4))
    if want("dot"):
        ref = (xd * yd).sum()
        scale = (xd * yd).abs().sum()
        cases.append(("dot", dot, (x, y), 8 * n, lambda o, ref=ref, scale=scale: rel_err_scalar(o, ref, scale), 1e-4))
    if want("chain"):
        ref = chain(xd)
        cases.append(("chain", chain, (x,), 8 * n, lambda o, ref=ref: rel_err_elem(o, ref), 1e-6))
    if want("scan"):
        ref = torch.cumsum(xd * xd, dim=0)
        cases.append(("scan", scan, (x,), 8 * n, lambda o, ref=ref: rel_err_elem(o, ref), 1e-4))
    if want("select"):
        ref = x[x > 0]
        cases.append(("select", select, (x,), 4 * n + 4 * ref.numel(),
                      lambda o, ref=ref: 0.0 if torch.equal(o, ref) else 1.0, 0.0))
    if want("variance"):
        ref = ((xd - xd.mean()) ** 2).mean()
        cases.append(("variance", variance, (x,), 4 * n, lambda o, ref=ref: rel_err_scalar(o, ref, ref), 1e-4))
    if want("softmax_rows") or want("logsumexp_rows"):
        m = rand(0, 3, (args.rows, args.cols))
        md = m.double()
        if want("softmax_rows"):
            ref_s = torch.softmax(md, dim=1)
            cases.append(("softmax_rows", softmax_rows, (m,), 8 * m.numel(),
                          lambda o: rel_err_elem(o, ref_s), 1e-5))
        if want("logsumexp_rows"):
            ref_l = torch.logsumexp(md, dim=1)
            cases.append(("logsumexp_rows", logsumexp_rows, (m,), 4 * m.numel() + 4 * args.rows,
                          lambda o: rel_err_elem(o, ref_l), 1e-5))

    for name, fn, inputs, nbytes, err_of, tol in cases:
        for impl in ("torch-eager", "torch-compile"):
            extra = None
            f = fn
            if impl == "torch-compile":
                torch._dynamo.reset()
                f = torch.compile(fn)
                t0 = time.perf_counter()
                f(*inputs)
                torch.cuda.synchronize()
                extra = {"compile_s": round(time.perf_counter() - t0, 3)}
            med, mn = timed(lambda: f(*inputs), reps)
            out = f(*inputs)
            torch.cuda.synchronize()
            err = err_of(out)
            ok = err <= tol and not math.isnan(err)
            failures += not emit(name, impl, med, mn, nbytes, ok, err, reps, extra)

    if want("sumsq_small"):
        s = rand(4096, 4)
        ref = (s.double() ** 2).sum()
        for impl in ("torch-eager", "torch-compile"):
            f = sumsq if impl == "torch-eager" else torch.compile(sumsq)
            f(s)
            calls = 1000

            def many():
                for _ in range(calls):
                    f(s)
            med, mn = timed(many, max(5, reps // 3))
            err = rel_err_scalar(f(s), ref, ref)
            failures += not emit("sumsq_small", impl, med / calls, mn / calls, 0, err <= 1e-5, err,
                                 reps, {"us_per_call": round(med * 1000 / calls, 3)})
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
