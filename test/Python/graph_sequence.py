"""A sequence of 10 small pipelines, eager and replayed from a CUDA graph,
against PyTorch eager and torch.compile(mode="reduce-overhead"), in plain
Python (no pytest): docs/python.md, "CUDA graphs".

    python3 graph_sequence.py [--reps N] [--out FILE] [--no-compile]

The sequence (float32, 4096 to 65536 elements): sumsq, chain, scan,
softmax_rows, variance, dot, logsumexp_rows, positive_sumsq (a filter then
a reduction of the kept elements), chain, scan, each a @fuse.jit function
of test/Python/workloads.py or graph_check.py on PyTorch CUDA tensors. Its
torch twin computes the same with torch ops (positive_sumsq as a masked
sum, which torch can capture; x[x > 0] waits for the host). Four ways, each timed as
N sequences back to back and one synchronize, divided by N (medians of 5
such runs, microseconds per sequence):

  fuse eager      the 10 calls;
  fuse graph      the 10 calls captured once with torch.cuda.graph, then
                  replayed;
  torch eager     the torch twin;
  torch compile   the twin under torch.compile(mode="reduce-overhead"),
                  which captures it into CUDA graphs itself.

Checks: the replay's outputs equal fuse's eager outputs bit for bit, and
both agree with the torch twin (float32 tolerances). The last lines are a
table; --out writes it as JSON.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import workloads as W  # noqa: E402
from graph_check import jit_positive_sumsq  # noqa: E402


def inputs(seed=0):
    rng = np.random.default_rng(seed)

    def t(*shape):
        a = rng.uniform(-1, 1, shape).astype(np.float32)
        return torch.from_numpy(a).cuda()
    return [t(4096), t(16384), t(65536), t(16, 1024), t(32768), t(8192),
            t(8192), t(64, 1024), t(65536), t(4096), t(4096)]


def fuse_seq(a):
    return (W.jit_sumsq(a[0]), W.jit_chain(a[1]), W.jit_scan(a[2]),
            W.jit_softmax_rows(a[3]), W.jit_variance(a[4]),
            W.jit_dot(a[5], a[6]), W.jit_logsumexp_rows(a[7]),
            jit_positive_sumsq(a[8]), W.jit_chain(a[9]), W.jit_scan(a[10]))


def torch_seq(a):
    def chain(x):
        return torch.relu(1.5 * x + 0.25) * 0.5 + x

    def variance(x):
        return ((x - x.mean()) ** 2).mean()

    def lse(X):
        m = X.max(dim=1).values
        return torch.log(torch.exp(X - m[:, None]).sum(dim=1)) + m
    return ((a[0] * a[0]).sum(), chain(a[1]), torch.cumsum(a[2] * a[2], 0),
            torch.softmax(a[3], 1), variance(a[4]), (a[5] * a[6]).sum(),
            lse(a[7]), torch.where(a[8] > 0, a[8] * a[8], 0.0).sum(),
            chain(a[9]),
            torch.cumsum(a[10] * a[10], 0))


def per_seq_us(run, reps):
    runs = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(reps):
            run()
        torch.cuda.synchronize()
        runs.append((time.perf_counter_ns() - t0) / reps / 1000.0)
    return statistics.median(runs)


def capture(fn, a):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn(a)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn(a)
    return g, out


def check(ok, what):
    print("%s %s" % ("PASS" if ok else "FAIL", what), flush=True)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--out")
    p.add_argument("--no-compile", action="store_true")
    args = p.parse_args()
    a = inputs()
    good = True

    eager = [o.cpu().numpy() for o in fuse_seq(a)]
    g, graph_out = capture(fuse_seq, a)
    b = inputs(seed=1)
    for dst, src in zip(a, b):
        dst.copy_(src)
    g.replay()
    torch.cuda.synchronize()
    replayed = [o.cpu().numpy() for o in graph_out]
    again = [o.cpu().numpy() for o in fuse_seq(a)]
    good &= check(all(np.ascontiguousarray(x).tobytes() ==
                      np.ascontiguousarray(y).tobytes()
                      for x, y in zip(replayed, again)),
                  "the replay on new inputs gives fuse's eager bits")
    good &= check(not all(np.array_equal(x, y)
                          for x, y in zip(eager, again)),
                  "the new inputs changed the results")
    ref = [o.cpu().numpy() for o in torch_seq(a)]
    for i, (x, r) in enumerate(zip(again, ref)):
        good &= check(np.allclose(x, r, rtol=2e-4, atol=1e-5),
                      "pipeline %d agrees with its torch twin" % i)

    rows = {}
    rows["fuse eager"] = per_seq_us(lambda: fuse_seq(a), args.reps)
    rows["fuse graph"] = per_seq_us(g.replay, args.reps)
    rows["torch eager"] = per_seq_us(lambda: torch_seq(a), args.reps)
    if not args.no_compile:
        compiled = torch.compile(torch_seq, mode="reduce-overhead")
        t0 = time.time()
        for _ in range(3):
            compiled(a)
        torch.cuda.synchronize()
        print("torch.compile: %.1f s to compile and warm up" % (
            time.time() - t0))
        got = [o.cpu().numpy() for o in compiled(a)]
        good &= check(all(np.allclose(x, r, rtol=2e-4, atol=1e-5)
                          for x, r in zip(got, ref)),
                      "torch.compile agrees with torch eager")
        rows["torch compile"] = per_seq_us(lambda: compiled(a), args.reps)
    print("sequence of 10 pipelines, us per sequence (median of 5 runs of "
          "%d back to back):" % args.reps)
    for k, v in rows.items():
        print("  %-14s %8.1f" % (k, v))
    print("  fuse graph / fuse eager: %.2f" % (rows["fuse graph"] /
                                              rows["fuse eager"]))
    if "torch compile" in rows:
        print("  torch compile / fuse graph: %.2f" % (
            rows["torch compile"] / rows["fuse graph"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"reps": args.reps, "us_per_sequence": rows}, f)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
