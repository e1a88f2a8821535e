"""Reductions and scans with function combiners (fuse's ordered reduce
kernels, the single-pass scan) against the built-in kinds and
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
    check(name, result) says whether a result is right (a MISMATCH line
    when not). Ratios against the best of the non-fuse implementations.
    Returns whether every check passed."""
    ok = True
    times = {}
    for name, fn in impls:
        if fn is None:
            continue
        ok &= check(name, fn())
        times[name] = median_us(fn, REPS)
    peers = [t for k, t in times.items() if not k.startswith("fuse")]
    best = min(peers) if peers else None
    for name, t in times.items():
        row(case, name, t, nbytes, best)
    return ok


# ---- the data and checks (shared with bench/extra_suite.py) ----------------

def host(v):
    """A result on the host as a NumPy array: PyTorch tensors, CuPy
    arrays (.get()) and NumPy values."""
    if torch.is_tensor(v):
        return np.asarray(v.cpu())
    if hasattr(v, "get") and not isinstance(v, (np.ndarray, np.generic)):
        return np.asarray(v.get())
    return np.asarray(v)


def expect(want):
    """check(name, result): each scalar of the result (one value or a
    tuple) equal to want's, else False with a MISMATCH line."""
    def check(name, got):
        g = [host(v) for v in (got if isinstance(got, tuple) else (got,))]
        if any(a.reshape(()).item() != b for a, b in zip(g, want)):
            print("MISMATCH %s: %r, expected %r" % (name, g, want))
            return False
        return True
    return check


def unchecked(name, got):
    """The check of a result that is timed only (fuse's built-in max
    beside the combiners: the same bytes, the bandwidth they are held
    to)."""
    return True


def expect_scan(want_a, want_b):
    """check(name, (A, B)): both prefix arrays bit for bit."""
    def check(name, got):
        g = [host(v) for v in got]
        if not (np.array_equal(g[0], want_a) and
                np.array_equal(g[1], want_b)):
            print("MISMATCH %s" % name)
            return False
        return True
    return check


def expect_last_prefix(total):
    """check(name, prefixes): the last prefix within 1e-4 of the float64
    total (the sum of |terms| is the total itself)."""
    def check(name, g):
        if not abs(float(g[-1]) - total) <= 1e-4 * total:
            print("MISMATCH %s: %r, expected %r" % (name, float(g[-1]),
                                                     total))
            return False
        return True
    return check


def inputs():
    """The cases' data: x (float32 with ties and a few NaNs: x_np on the
    host, x on the GPU), y (x with the NaNs made 0: aminmax's NaN rule is
    torch's own), the affine maps' a, b (uint32, 2^27 each: a_np, b_np;
    a, b on the GPU) and xs (the first half of x, NaNs made 0)."""
    d = {"x_np": rc.data(np.float32, N)}
    d["x"] = torch.from_numpy(d["x_np"]).cuda()
    y_np = d["x_np"].copy()
    y_np[np.isnan(y_np)] = 0
    d["y_np"], d["y"] = y_np, torch.from_numpy(y_np).cuda()
    a_np, b_np = rc.affine_data(N // 2)
    d["a_np"], d["b_np"] = a_np, b_np
    d["a"] = torch.from_numpy(a_np.view(np.int32)).cuda().view(torch.uint32)
    d["b"] = torch.from_numpy(b_np.view(np.int32)).cuda().view(torch.uint32)
    d["xs"] = d["x"][:N // 2].nan_to_num()
    return d


def main():
    print("%-22s %-16s %10s %8s %8s" % ("case", "impl", "us", "GiB/s",
                                         "vs best"))
    ok = True
    d = inputs()
    x_np, x, y_np, y = d["x_np"], d["x"], d["y_np"], d["y"]
    nbytes = N * 4
    amax = int(np.argmax(x_np))
    ok &= run_case("argmax f32 2^28", nbytes, [
        ("fuse argmax", lambda: rc.argmax(x)),
        ("fuse max", lambda: rc.builtin_max(x)),
        ("torch.argmax", lambda: torch.argmax(x)),
        ("torch.compile", compiled(lambda: torch.argmax(x)))],
        lambda name, g: unchecked(name, g) if name == "fuse max"
        else expect([amax])(name, g))
    ok &= run_case("argmin f32 2^28", nbytes, [
        ("fuse argmin", lambda: rc.argmin(x)),
        ("torch.argmin", lambda: torch.argmin(x)),
        ("torch.compile", compiled(lambda: torch.argmin(x)))],
        expect([int(np.argmin(x_np))]))
    ok &= run_case("(min, max) f32 2^28", nbytes, [
        ("fuse (min, max)", lambda: rc.minmax(y)),
        ("torch.aminmax", lambda: tuple(torch.aminmax(y))),
        ("torch.compile", compiled(lambda: tuple(torch.aminmax(y))))],
        expect([float(y_np.min()), float(y_np.max())]))
    a, b = d["a"], d["b"]
    want = [int(v) for v in rc.affine_ref(d["a_np"], d["b_np"])]
    ok &= run_case("affine u32 pairs 2^27", N * 4, [
        ("fuse affine", lambda: rc.affine(a, b)),
        ("fuse max", lambda: rc.builtin_max(x))],
        lambda name, g: unchecked(name, g) if name == "fuse max"
        else expect(want)(name, g))
    ok &= run_case("affine scan u32 2^27", N // 2 * 16, [
        ("fuse affine scan", lambda: rc.affine_scan(a, b))],
        expect_scan(*rc.affine_scan_ref(d["a_np"], d["b_np"])))
    xs = d["xs"]
    ok &= run_case("cumsum(x*x) f32 2^27", N // 2 * 8, [
        ("fuse cumsum", lambda: workloads.jit_scan(xs)),
        ("torch.cumsum", lambda: torch.cumsum(xs * xs, 0))],
        expect_last_prefix(float((xs.double() ** 2).sum())))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
