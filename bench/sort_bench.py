"""fuse.sort / fuse.argsort on PyTorch CUDA tensors against torch.sort and
torch.argsort (stable), np.unique through fuse against torch.unique, and
the runtime's CUB radix sort called directly
(fuse_sort_ws through ctypes, temporary storage allocated once), float32
keys; an argsort by a comparator (|a| < |b| with NaN last, which
fuse-comparator-keys makes a radix sort of |x| on the GPU) against
torch.argsort of the computed key and cuda.compute's merge_sort when
cuda.compute is installed, and one by (|x|, x), which is no key order
(fuse's merge-sort kernels), against two stable torch argsorts and
cuda.compute's merge_sort; in one run on one GPU. Per case: the median of REPS calls timed with
CUDA events after a warm-up, results checked against torch's, GiB/s of the
bytes a sort must move at least (keys read and written, indices written),
and the ratio to the best peer.

    FUSE_RUNTIME_LIB=... FUSE_CACHE_DIR=... python3 bench/sort_bench.py \
        [--only CASE]... [--logn 20,24,26]

Uses the pipelines of test/Python/sort_check.py and graph_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import argparse
import ctypes
import os
import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import median_us

import torch

import graph_check
import sort_check

REPS = 20
FUSE_F32, FUSE_I64 = 2, 5


def cub_direct(lib, n, keys, values):
    """fuse_sort_ws on preallocated buffers: CUB without a framework."""
    size = ctypes.c_size_t(0)
    st = lib.fuse_sort_temp_bytes(FUSE_F32, FUSE_I64, int(values is not None),
                                  ctypes.c_int64(n), 0, ctypes.byref(size))
    assert st == 0, st
    temp = torch.empty(max(size.value, 1), dtype=torch.uint8, device="cuda")
    kout = torch.empty_like(keys)
    vout = torch.empty_like(values) if values is not None else None
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def run():
        st = lib.fuse_sort_ws(
            FUSE_F32, 0, ctypes.c_void_p(keys.data_ptr()),
            ctypes.c_void_p(kout.data_ptr()), FUSE_I64,
            ctypes.c_void_p(values.data_ptr() if values is not None else 0),
            ctypes.c_void_p(vout.data_ptr() if vout is not None else 0),
            ctypes.c_int64(n), ctypes.c_void_p(temp.data_ptr()),
            ctypes.c_size_t(size.value), stream)
        assert st == 0, st
        return kout, vout
    return run


def _magnitude(a, b):
    return abs(a) < abs(b)


def _magnitude_then_value(a, b):
    return (abs(a) < abs(b)) | ((abs(a) == abs(b)) & (a < b))


def cuda_compute_merge_sort(x, iota, less=_magnitude):
    """cuda.compute's merge_sort of (x, iota) by `less` (CUB's
    DeviceMergeSort with a numba-compiled comparator), built once; returns
    the moved items. None when cuda.compute is missing."""
    try:
        import cupy as cp
        import cuda.compute as cc
    except Exception as e:  # noqa: BLE001 (a peer that is absent)
        print("cuda.compute: not available (%s: %s)" % (type(e).__name__, e))
        return None
    n = x.numel()
    dk, di = cp.asarray(x), cp.asarray(iota)
    ok, oi = cp.empty_like(dk), cp.empty_like(di)

    # cuda.compute 1.1.1 takes keyword arguments only.
    arrays = dict(d_in_keys=dk, d_in_values=di, d_out_keys=ok,
                  d_out_values=oi)
    try:
        sorter = cc.make_merge_sort(op=less, **arrays)
        temp = cp.empty(max(sorter(temp_storage=None, num_items=n, op=less,
                                   **arrays), 1), dtype=cp.uint8)
    except Exception as e:  # noqa: BLE001 (an API that moved)
        print("cuda.compute: merge_sort failed (%s: %s)"
              % (type(e).__name__, e))
        return None

    def run():
        sorter(temp_storage=temp, num_items=n, op=less, **arrays)
        return torch.as_tensor(oi, device="cuda")
    return run


def lexsort_mag(x):
    """The stable order by (|x|, x)."""
    p = torch.argsort(x, stable=True)
    return p[torch.argsort(x[p].abs(), stable=True)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[], metavar="CASE",
                    help="run only this case (repeatable), e.g. "
                         "'argsort by (|x|, x)'")
    ap.add_argument("--logn", default="20,24,26",
                    help="log2 of the sizes, comma-separated")
    args = ap.parse_args()
    lib = ctypes.CDLL(os.environ["FUSE_RUNTIME_LIB"])
    lib.fuse_init()
    print("%-18s %10s %-22s %10s %8s %8s" % ("case", "n", "impl", "us",
                                             "GiB/s", "vs best"))
    rows = []

    def wanted(case):
        return not args.only or case in args.only
    for logn in [int(v) for v in args.logn.split(",")]:
        n = 1 << logn
        x = torch.rand(n, device="cuda") * 2 - 1
        iota = torch.arange(n, device="cuda", dtype=torch.int64)
        want_k = torch.sort(x, stable=True).values
        want_i = torch.argsort(x, stable=True)
        want_sq = torch.argsort(x * x, stable=True)
        want_mag = torch.argsort(x.abs(), stable=True)
        want_mv = lexsort_mag(x)
        # 1/16 as many distinct values as elements
        d = torch.randint(0, max(n // 16, 1), (n,), device="cuda").float()
        want_u = torch.unique(d)
        cases = {
            "sort": (n * 8, [
                ("fuse", lambda: sort_check.sort_up(x), want_k),
                ("torch", lambda: torch.sort(x, stable=True).values, want_k),
                ("cub direct", lambda f=cub_direct(lib, n, x, None):
                 f()[0], want_k)]),
            "argsort": (n * 12, [
                ("fuse", lambda: sort_check.argsort_up(x), want_i),
                ("torch", lambda: torch.argsort(x, stable=True), want_i),
                ("cub direct", lambda f=cub_direct(lib, n, x, iota):
                 f()[1], want_i)]),
            "unique": (n * 8, [
                ("fuse", lambda: sort_check.uniq(d), want_u),
                ("torch", lambda: torch.unique(d), want_u)]),
            "argsort(x*x)": (n * 12, [
                ("fuse", lambda: graph_check.jit_argsort_square(x), want_sq),
                ("torch", lambda: torch.argsort(x * x, stable=True),
                 want_sq)]),
            # A comparator of one function of each key: fuse sorts by
            # that key; torch by the computed key, CUB by merge sort.
            "argsort by |x| <": (n * 12, [
                ("fuse", lambda: sort_check.by_magnitude_up(x), want_mag),
                ("torch (key |x|)",
                 lambda: torch.argsort(x.abs(), stable=True), want_mag),
                ("cuda.compute", wanted("argsort by |x| <") and
                 cuda_compute_merge_sort(x, iota), want_mag)]),
            # A comparator that is no key order: fuse's merge-sort
            # kernels; torch as two stable argsorts (x, then |x|).
            "argsort by (|x|, x)": (n * 12, [
                ("fuse", lambda: sort_check.by_magnitude_then_value(x),
                 want_mv),
                ("torch (2 argsorts)", lambda: lexsort_mag(x), want_mv),
                ("cuda.compute", wanted("argsort by (|x|, x)") and
                 cuda_compute_merge_sort(x, iota, _magnitude_then_value),
                 want_mv)]),
        }
        unknown = set(args.only) - set(cases)
        if unknown:
            ap.error("unknown case %s (cases: %s)" % (
                ", ".join(sorted(unknown)), ", ".join(cases)))
        for case, (nbytes, impls) in cases.items():
            if not wanted(case):
                continue
            got = {}
            for impl, fn, want in impls:
                if not fn:
                    continue
                ok = torch.equal(fn(), want)
                got[impl] = (median_us(fn, REPS), ok)
            best = min(t for k, (t, _) in got.items() if k != "fuse")
            for impl, (t, ok) in got.items():
                line = "%-18s %10d %-22s %10.1f %8.1f %8.3f%s" % (
                    case, n, impl, t, nbytes / t * 1e6 / 2 ** 30, best / t,
                    "" if ok else "  WRONG RESULT")
                print(line, flush=True)
                rows.append(ok)
    return 0 if all(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
