"""fuse.segment_sum (@fuse.jit over CSR offsets) on PyTorch CUDA tensors
against torch.segment_reduce(reduce="sum", offsets=...), index_add_ and
scatter_add_ of precomputed segment ids, and cuda.compute's
segmented_reduce (CUB's DeviceSegmentedReduce) when cuda.compute
imports; and segment_sum(x * x), the square computed in the segments'
pass, against the same peers fed a squared copy. float32, 2^26 elements
in 1, 2^7, 2^10, 2^14, 2^16 or 2^20 segments of random lengths (a fixed
seed; means of 2^26 to 65536 elements take fuse's kernels of pieces over
blocks, 4096 its block-per-segment kernel, 1024 and 64 its
warp-per-segment one), in one run on one GPU. Per case: the median of
REPS calls timed with CUDA events after a warm-up, the largest error
against float64 sums relative to the sum of |x| over the segment
(fuse's must be within 1e-5, else the exit status is 1), GiB/s of the
bytes the job must move (the elements, the offsets, the sums) and the
ratio of the best peer's time to each.

    FUSE_CACHE_DIR=... python3 bench/segment_bench.py [--segments=10,14]
        [--no-peers]

--segments: the cases' log2 segment counts (default 0,7,10,14,16,20);
--no-peers: fuse alone, e.g. to compare tilings (FUSE_GPU_TILE_OPTIONS,
with a cache prepared for them), its ratio against itself.

Uses the pipelines of test/Python/segments_check.py (seg_sum, seg_sum_sq
on float32 with int64 offsets), which scripts/gpu/prepare-python.sh puts
in the cache."""

import argparse
import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import median_us

import numpy as np
import torch

import segments_check as sc

REPS = 20
N = 1 << 26


def offsets(n, m, g):
    """m + 1 int64 CSR offsets over n elements, random lengths."""
    cuts = torch.randint(0, n + 1, (m - 1,), device="cuda", generator=g,
                         dtype=torch.int64).sort().values
    zero = torch.zeros(1, dtype=torch.int64, device="cuda")
    return torch.cat([zero, cuts, zero + n])


def reference(x, o):
    """(float64 sums, float64 sums of |x|) per segment (torch's segment
    sums in float64: prefix sums would lose short segments of small values
    to the rounding of large totals)."""
    d = x.double()
    return (torch.segment_reduce(d, "sum", offsets=o),
            torch.segment_reduce(d.abs(), "sum", offsets=o))


def error(got, want, l1):
    """The largest |got - want| relative to the segment's sum of |x|."""
    d = (got.double() - want).abs() / (l1 + 1e-30)
    return float(d.max()) if d.numel() else 0.0


def cuda_compute_segments(x, o, square):
    """cuda.compute's segmented_reduce over o (of x * x with square, a
    TransformIterator), its object built once; None when cuda.compute is
    missing."""
    try:
        import cupy as cp
        import cuda.compute as cc
    except Exception as e:  # noqa: BLE001 (a peer that is absent)
        print("cuda.compute: not available (%s: %s)" % (type(e).__name__, e))
        return None
    m = o.numel() - 1
    dx, do = cp.asarray(x), cp.asarray(o)
    out = cp.empty(m, dtype=cp.float32)

    def sq(a):
        return a * a
    try:
        d_in = cc.TransformIterator(dx, sq) if square else dx
        args = dict(d_in=d_in, d_out=out, start_offsets_in=do[:-1],
                    end_offsets_in=do[1:], op=cc.OpKind.PLUS,
                    h_init=np.array([0], np.float32))
        red = cc.make_segmented_reduce(**args)
        call = dict(args, num_segments=m)
        temp = cp.empty(max(red(temp_storage=None, **call), 1),
                        dtype=cp.uint8)
    except Exception as e:  # noqa: BLE001 (an API that moved)
        print("cuda.compute: segmented_reduce failed (%s: %s)"
              % (type(e).__name__, e))
        return None

    def run():
        red(temp_storage=temp, **call)
        return torch.as_tensor(out, device="cuda")
    return run


def peers(x, o, ids, m, square):
    """(name, fn) of the peers for segment sums of x (or x * x)."""
    def val():
        return x * x if square else x

    def index_add():
        return torch.zeros(m, device="cuda").index_add_(0, ids, val())

    def scatter_add():
        return torch.zeros(m, device="cuda").scatter_add_(0, ids, val())
    return [("torch.segment_reduce",
             lambda: torch.segment_reduce(val(), "sum", offsets=o)),
            ("torch.index_add_", index_add),
            ("torch.scatter_add_", scatter_add),
            ("cuda.compute", cuda_compute_segments(x, o, square))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segments", default="0,7,10,14,16,20",
                    help="log2 segment counts, comma-separated")
    ap.add_argument("--no-peers", action="store_true",
                    help="time fuse alone")
    opt = ap.parse_args()
    print("%-18s %8s %-22s %10s %8s %8s %10s" % (
        "case", "segments", "impl", "us", "GiB/s", "vs best", "max err"))
    ok = True
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.rand(N, device="cuda", generator=g) * 2 - 1
    for m in (1 << int(e) for e in opt.segments.split(",")):
        o = offsets(N, m, g)
        ids = torch.repeat_interleave(torch.arange(m, device="cuda"),
                                      o[1:] - o[:-1])
        nbytes = N * 4 + (m + 1) * 8 + m * 4
        for case, fuse_fn, square in (
                ("segment_sum", lambda: sc.seg_sum(x, o), False),
                ("segment_sum(x*x)", lambda: sc.seg_sum_sq(x, o), True)):
            want, l1 = reference(x * x if square else x, o)
            got = {}
            others = [] if opt.no_peers else peers(x, o, ids, m, square)
            for impl, fn in [("fuse", fuse_fn)] + others:
                if fn is None:
                    continue
                err = error(fn(), want, l1)
                if impl == "fuse" and not err <= 1e-5:
                    ok = False
                got[impl] = (median_us(fn, REPS), err)
            best = min((t for k, (t, _) in got.items() if k != "fuse"),
                       default=got["fuse"][0])
            for impl, (t, err) in got.items():
                print("%-18s %8d %-22s %10.1f %8.1f %8.3f %10.2e" % (
                    case, m, impl, t, nbytes / t * 1e6 / 2 ** 30, best / t,
                    err), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
