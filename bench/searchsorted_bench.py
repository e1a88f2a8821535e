"""fuse.searchsorted on PyTorch CUDA tensors against torch.searchsorted,
torch.bucketize, torch.compile and cuda.compute's lower_bound/upper_bound
(when cuda.compute imports), float32, in one run on one GPU. Per case: the
median of REPS calls timed with CUDA events after a warm-up, results checked
against torch.searchsorted's, GiB/s of the bytes the search must move at
least (needles read, int64 positions written; the sorted array once), and
the ratio of each to the best peer.

    FUSE_CACHE_DIR=... python3 bench/searchsorted_bench.py

Uses the pipelines of test/Python/searchsorted_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import compiled, median_us

import torch

import searchsorted_check as sc

REPS = 20


def cuda_compute_search(a, v, right):
    """cuda.compute's binary search, its searcher built once (uint64
    positions, as it requires); None when cuda.compute is missing."""
    try:
        import cupy as cp
        import cuda.compute as cc
    except Exception as e:  # noqa: BLE001 (a peer that is absent)
        print("cuda.compute: not available (%s: %s)" % (type(e).__name__, e))
        return None
    da, dv = cp.asarray(a), cp.asarray(v)
    out = cp.empty(v.numel(), dtype=cp.uint64)
    make = cc.make_upper_bound if right else cc.make_lower_bound
    searcher = make(d_data=da, d_values=dv, d_out=out)

    def run():
        searcher(d_data=da, num_items=a.numel(), d_values=dv,
                 num_values=v.numel(), d_out=out, comp=None)
        return torch.as_tensor(out, device="cuda").view(torch.int64)
    return run


def main():
    print("%-26s %10s %-16s %10s %8s %8s" % ("case", "n", "impl", "us",
                                             "GiB/s", "vs best"))
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for m, n in ((1024, 1 << 26), (1 << 24, 1 << 24), (1024, 4096),
                 (1 << 20, 1 << 20)):
        a = torch.sort(torch.randn(m, device="cuda", generator=g)).values
        v = torch.randn(n, device="cuda", generator=g)
        want_l = torch.searchsorted(a, v)
        want_r = torch.searchsorted(a, v, right=True)
        nbytes = n * 12 + m * 4
        tc = compiled(lambda: torch.searchsorted(a, v * 2.0, right=True) * 3
                      + 1)
        want_f = torch.searchsorted(a, v * 2.0, right=True) * 3 + 1
        cases = {
            "left": (nbytes, [
                ("fuse", lambda: sc.ss_left(a, v), want_l),
                ("torch", lambda: torch.searchsorted(a, v), want_l),
                ("torch bucketize", lambda: torch.bucketize(v, a), want_l),
                ("cuda.compute", cuda_compute_search(a, v, False), want_l)]),
            "right": (nbytes, [
                ("fuse", lambda: sc.ss_right(a, v), want_r),
                ("torch", lambda: torch.searchsorted(a, v, right=True),
                 want_r),
                ("cuda.compute", cuda_compute_search(a, v, True), want_r)]),
            "right(a, 2v)*3+1": (nbytes, [
                ("fuse", lambda: sc.ss_fused(a, v), want_f),
                ("torch", lambda: torch.searchsorted(a, v * 2.0, right=True)
                 * 3 + 1, want_f),
                ("torch.compile", tc, want_f)]),
        }
        for case, (nb, impls) in cases.items():
            got = {}
            for impl, fn, want in impls:
                if fn is None:
                    continue
                ok = torch.equal(fn(), want)
                got[impl] = (median_us(fn, REPS), ok)
            best = min(t for k, (t, _) in got.items() if k != "fuse")
            for impl, (t, ok) in got.items():
                print("%-26s %10s %-16s %10.1f %8.1f %8.3f%s" % (
                    case, "%dx%d" % (m, n), impl, t, nb / t * 1e6 / 2 ** 30,
                    best / t, "" if ok else "  WRONG RESULT"), flush=True)
                rows.append(ok)
    return 0 if all(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
