"""fuse.histogram (np.histogram through @fuse.jit) on PyTorch CUDA tensors
against torch.histc, torch.bincount of precomputed bins, torch.compile and
cuda.compute's histogram_even (CUB's DeviceHistogram::HistogramEven), when
cuda.compute imports; float32 samples, 256 even bins, in one run on one
GPU. Per case: the median of REPS calls timed with CUDA events after a
warm-up, counts checked against NumPy's np.histogram of the same samples
(peers whose bin rule differs from NumPy's by rounding at the edges are
reported with the number of samples they place differently), GiB/s of the
samples read, and the ratio of each to the best peer.

    FUSE_CACHE_DIR=... python3 bench/histogram_bench.py

Uses the pipelines of test/Python/histogram_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import compiled, median_us

import numpy as np
import torch

import histogram_check as hc

REPS = 20
BINS, LO, HI = hc.BENCH_BINS, hc.BENCH_RANGE[0], hc.BENCH_RANGE[1]


def cuda_compute_histogram(x, lo, hi):
    """cuda.compute's histogram_even over x (int32 counts), its object
    built once; None when cuda.compute is missing."""
    try:
        import cupy as cp
        import cuda.compute as cc
    except Exception as e:  # noqa: BLE001 (a peer that is absent)
        print("cuda.compute: not available (%s: %s)" % (type(e).__name__, e))
        return None
    dx = cp.asarray(x)
    out = cp.zeros(BINS, dtype=cp.int32)
    args = dict(d_samples=dx, d_histogram=out,
                h_num_output_levels=np.array([BINS + 1], np.int32),
                h_lower_level=np.array([lo], np.float32),
                h_upper_level=np.array([hi], np.float32),
                num_samples=x.numel())
    try:
        hist = cc.make_histogram_even(**args)
        temp = cp.empty(max(hist(temp_storage=None, **args), 1),
                        dtype=cp.uint8)
    except Exception as e:  # noqa: BLE001 (an API that moved)
        print("cuda.compute: histogram_even failed (%s: %s)"
              % (type(e).__name__, e))
        return None

    def run():
        hist(temp_storage=temp, **args)
        return torch.as_tensor(out, device="cuda")
    return run


def misplaced(got, want):
    """Samples a peer places in other bins than NumPy (half the L1
    distance of the counts)."""
    g = got.to(torch.int64).cpu().numpy()
    return int(np.abs(g - want).sum()) // 2


def main():
    print("%-20s %10s %-16s %10s %8s %8s" % ("case", "n", "impl", "us",
                                             "GiB/s", "vs best"))
    ok = True
    g = torch.Generator(device="cuda").manual_seed(0)
    for n in (1 << 26, 1 << 24, 1 << 20):
        x = torch.randn(n, device="cuda", generator=g)
        xs = x.cpu().numpy()
        want = np.histogram(xs, BINS, (LO, HI))[0]
        want_sq = np.histogram(xs * xs, BINS, hc.BENCH_SQUARE_RANGE)[0]
        scale = BINS / (HI - LO)
        # The bins of the samples computed ahead (an extra pass), then
        # counted: what torch.bincount needs.
        bins = ((x - LO) * scale).floor().clamp(-1, BINS).to(torch.int64)
        bins = torch.where(bins == BINS, -1, bins) + 1
        tc = compiled(lambda: torch.histc(x * x, BINS, *hc.BENCH_SQUARE_RANGE))
        cases = {
            "histogram": [
                ("fuse", lambda: hc.hist_even(x)),
                ("torch.histc", lambda: torch.histc(x, BINS, LO, HI)),
                ("torch.bincount", lambda: torch.bincount(
                    bins, minlength=BINS + 2)[1:BINS + 1]),
                ("cuda.compute", cuda_compute_histogram(x, LO, HI))],
            "histogram(x*x)": [
                ("fuse", lambda: hc.hist_square(x)),
                ("torch.histc",
                 lambda: torch.histc(x * x, BINS, *hc.BENCH_SQUARE_RANGE)),
                ("torch.compile", tc)],
        }
        for case, impls in cases.items():
            ref = want if case == "histogram" else want_sq
            got = {}
            for impl, fn in impls:
                if fn is None:
                    continue
                off = misplaced(fn(), ref)
                if impl == "fuse" and off:
                    ok = False
                got[impl] = (median_us(fn, REPS), off)
            best = min(t for k, (t, _) in got.items() if k != "fuse")
            for impl, (t, off) in got.items():
                note = ""
                if off:
                    note = "  %d samples in other bins than NumPy" % off
                print("%-20s %10d %-16s %10.1f %8.1f %8.3f%s" % (
                    case, n, impl, t, n * 4 / t * 1e6 / 2 ** 30, best / t,
                    note), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
