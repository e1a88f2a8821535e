"""Reductions and scans with function combiners (fuse's ordered reduce
kernels, the flagged single-pass scan) against the built-in kinds and
torch, on PyTorch CUDA tensors, in one run on one GPU: float32 argmax and
argmin (the first extreme; torch.argmax / argmin, torch.compile of them),
a (min, max) pair of one tuple reduction (torch.aminmax), the
composition of affine maps over uint32 pairs (a non-commutative
combiner; no torch peer) reduced, next to fuse's built-in max of the same
bytes, and scanned (the 2-tuple scan of the recurrence y_i = a_i * y_i-1
+ b_i), next to fuse's and torch's float32 cumsum. Per case: the median of REPS calls timed with CUDA
events after a warm-up, each result checked against NumPy (the exit
status is 1 on a mismatch), GiB/s of the bytes the job must move (the
inputs read once, the scans' outputs written once) and the ratio of the best peer's time to each.

    FUSE_CACHE_DIR=... python3 bench/reduce_bench.py

Uses the pipelines of test/Python/combiner_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import compiled, median_us

import numpy as np
import torch

import combiner_check as rc
import workloads

REPS = 20
N = 1 << 28


def row(case, impl, t, nbytes, best):
    print("%-22s %-16s %10.1f %8.1f %8.3f" % (
        case, impl, t, nbytes / t * 1e6 / 2 ** 30, best / t if best else 0),
        flush=True)


def run_case(case, nbytes, impls, check):
    """Times every (name, fn) of impls (None: a peer that is missing);
    check(name, result) raises on a wrong result. Ratios against the best
    of the non-fuse implementations."""
    times = {}
    for name, fn in impls:
        if fn is None:
            continue
        check(name, fn())
        times[name] = median_us(fn, REPS)
    peers = [t for k, t in times.items() if not k.startswith("fuse")]
    best = min(peers) if peers else None
    for name, t in times.items():
        row(case, name, t, nbytes, best)


def main():
    print("%-22s %-16s %10s %8s %8s" % ("case", "impl", "us", "GiB/s",
                                         "vs best"))
    ok = True
    x_np = rc.data(np.float32, N)
    x = torch.from_numpy(x_np).cuda()

    def expect(want):
        def check(name, got):
            nonlocal ok
            g = [np.asarray(v.cpu() if torch.is_tensor(v) else v)
                 for v in (got if isinstance(got, tuple) else (got,))]
            if any(a.reshape(()).item() != b for a, b in zip(g, want)):
                print("MISMATCH %s: %r, expected %r" % (name, g, want))
                ok = False
        return check
    nbytes = N * 4
    amax = int(np.argmax(x_np))
    run_case("argmax f32 2^28", nbytes, [
        ("fuse argmax", lambda: rc.argmax(x)),
        ("fuse max", lambda: rc.builtin_max(x)),
        ("torch.argmax", lambda: torch.argmax(x)),
        ("torch.compile", compiled(lambda: torch.argmax(x)))],
        lambda name, g: None if name == "fuse max"
        else expect([amax])(name, g))
    run_case("argmin f32 2^28", nbytes, [
        ("fuse argmin", lambda: rc.argmin(x)),
        ("torch.argmin", lambda: torch.argmin(x)),
        ("torch.compile", compiled(lambda: torch.argmin(x)))],
        expect([int(np.argmin(x_np))]))
    y_np = x_np.copy()
    y_np[np.isnan(y_np)] = 0        # aminmax's NaN rule is torch's own
    y = torch.from_numpy(y_np).cuda()
    run_case("(min, max) f32 2^28", nbytes, [
        ("fuse (min, max)", lambda: rc.minmax(y)),
        ("torch.aminmax", lambda: tuple(torch.aminmax(y))),
        ("torch.compile", compiled(lambda: tuple(torch.aminmax(y))))],
        expect([float(y_np.min()), float(y_np.max())]))
    a_np, b_np = rc.affine_data(N // 2)
    a = torch.from_numpy(a_np.view(np.int32)).cuda().view(torch.uint32)
    b = torch.from_numpy(b_np.view(np.int32)).cuda().view(torch.uint32)
    want = [int(v) for v in rc.affine_ref(a_np, b_np)]
    run_case("affine u32 pairs 2^27", N * 4, [
        ("fuse affine", lambda: rc.affine(a, b)),
        ("fuse max", lambda: rc.builtin_max(x))],
        lambda name, g: None if name == "fuse max" else expect(want)(name, g))
    want_a, want_b = rc.affine_scan_ref(a_np, b_np)

    def check_scan(name, g):
        nonlocal ok
        got = [v.cpu().numpy() for v in g]
        if not (np.array_equal(got[0], want_a) and
                np.array_equal(got[1], want_b)):
            print("MISMATCH %s" % name)
            ok = False
    run_case("affine scan u32 2^27", N // 2 * 16, [
        ("fuse affine scan", lambda: rc.affine_scan(a, b))], check_scan)
    xs = x[:N // 2].nan_to_num()
    total = float((xs.double() ** 2).sum())

    def check_cumsum(name, g):
        # The last prefix within 1e-4 of the float64 total (the sum of
        # |terms| is the total itself).
        nonlocal ok
        if not abs(float(g[-1]) - total) <= 1e-4 * total:
            print("MISMATCH %s: %r, expected %r" % (name, float(g[-1]),
                                                     total))
            ok = False
    run_case("cumsum(x*x) f32 2^27", N // 2 * 8, [
        ("fuse cumsum", lambda: workloads.jit_scan(xs)),
        ("torch.cumsum", lambda: torch.cumsum(xs * xs, 0))], check_cumsum)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
