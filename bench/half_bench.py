"""Half precision on the GPU: sumsq, the elementwise chain and softmax over
rows in float16 and bfloat16, fuse (@fuse.jit on PyTorch CUDA tensors)
against torch eager and torch.compile on the same dtype, with a copy of
the same bytes (torch's clone) as the bandwidth ceiling, in one run on one
GPU. Per case: the median of REPS calls timed with CUDA events after a
warm-up, each result checked against the float32 computation of torch
(the exit status is 1 on a mismatch), GiB/s of the bytes the job must move
(2 bytes an element read, 2 written for the chain and softmax), the ratio
of the best peer's time to each.

    FUSE_CACHE_DIR=... python3 bench/half_bench.py

Uses the pipelines of test/Python/half_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import compiled, median_us

import torch

import half_check as hc

REPS = 20
N = 1 << 28
ROWS, COLS = 65536, 4096


def row(case, impl, t, nbytes, best):
    print("%-24s %-14s %10.1f %8.1f %8.3f" % (
        case, impl, t, nbytes / t * 1e6 / 2 ** 30, best / t if best else 0),
        flush=True)


def run_case(case, nbytes, impls, check, copy_bytes):
    """Times every (name, fn) of impls (None: a peer that is missing);
    check(name, result) returns False on a wrong result. Ratios against
    the best of torch eager and torch.compile (the copy is the ceiling,
    not a peer; its GiB/s count the copy_bytes it reads and writes)."""
    ok = True
    times = {}
    for name, fn in impls:
        if fn is None:
            continue
        if name != "copy" and not check(name, fn()):
            ok = False
        times[name] = median_us(fn, REPS)
    peers = [t for k, t in times.items() if k.startswith("torch")]
    best = min(peers) if peers else None
    for name, t in times.items():
        row(case, name, t, copy_bytes if name == "copy" else nbytes, best)
    return ok


def close(want, rtol, atol=0.0):
    """|got - want| <= rtol |want| + atol everywhere (want: float32)."""
    def check(name, got):
        g = got.float()
        bad = int(((g - want).abs() > rtol * want.abs() + atol).sum())
        if bad:
            print("MISMATCH %s: %d values off" % (name, bad))
            return False
        return True
    return check


def bench_dtype(dt, name, eps, gen):
    ok = True
    x = (torch.randn(N, device="cuda", generator=gen) * 0.01).to(dt)
    xf = x.float()
    ok &= run_case("sumsq %s 2^28" % name, N * 2, [
        ("fuse", lambda: hc.sumsq(x)),
        ("torch eager", lambda: (x * x).sum()),
        ("torch.compile", compiled(lambda: (x * x).sum())),
        ("copy", lambda: x.clone())],
        close((xf * xf).sum().reshape(()), 8 * eps), N * 4)
    zero = torch.zeros((), dtype=dt, device="cuda")

    def chain():
        return torch.maximum(x * 1.5 + 0.25, zero) * 0.5 + x
    ok &= run_case("chain %s 2^28" % name, N * 4, [
        ("fuse", lambda: hc.chain(x)),
        ("torch eager", chain),
        ("torch.compile", compiled(chain)),
        ("copy", lambda: x.clone())],
        close(torch.maximum(xf * 1.5 + 0.25, zero.float()) * 0.5 + xf,
              4 * eps, eps), N * 4)
    m = (torch.randn(ROWS, COLS, device="cuda", generator=gen) * 2).to(dt)
    ok &= run_case("softmax_rows %s" % name, ROWS * COLS * 4, [
        ("fuse", lambda: hc.softmax_rows(m)),
        ("torch eager", lambda: torch.softmax(m, dim=1)),
        ("torch.compile", compiled(lambda: torch.softmax(m, dim=1))),
        ("copy", lambda: m.clone())],
        close(torch.softmax(m.float(), dim=1), 0.1, 2 * eps),
        ROWS * COLS * 4)
    return ok


def main():
    print("%-24s %-14s %10s %8s %8s" % ("case", "impl", "us", "GiB/s",
                                         "vs best"))
    gen = torch.Generator(device="cuda").manual_seed(0)
    ok = True
    for dt, name, eps in ((torch.bfloat16, "bf16", 2.0 ** -7),
                          (torch.float16, "f16", 2.0 ** -10)):
        ok &= bench_dtype(dt, name, eps, gen)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
