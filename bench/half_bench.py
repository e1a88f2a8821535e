"""Half precision on the GPU: sumsq, the elementwise chain and softmax over
rows in float16 and bfloat16, fuse (@fuse.jit on PyTorch CUDA tensors)
against torch eager and torch.compile on the same dtype, with a copy of
the same bytes (torch's clone) as the bandwidth ceiling, in one run on one
GPU. Per case: the median of 20 calls timed with CUDA events after a
warm-up, each result checked against the float32 computation of torch
(the exit status is 1 on a mismatch), GiB/s of the bytes the job must move
(2 bytes an element read, 2 written for the chain and softmax), the ratio
of the best peer's time to each.

    FUSE_CACHE_DIR=... python3 bench/half_bench.py

Uses the pipelines of test/Python/half_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import close, compiled, header, run_case

import torch

import half_check as hc

WIDTH = 24
N = 1 << 28
ROWS, COLS = 65536, 4096


def bench_dtype(dt, name, eps, gen):
    ok = True
    x = (torch.randn(N, device="cuda", generator=gen) * 0.01).to(dt)
    xf = x.float()
    ok &= run_case("sumsq %s 2^28" % name, N * 2, [
        ("fuse", lambda: hc.sumsq(x)),
        ("torch eager", lambda: (x * x).sum()),
        ("torch.compile", compiled(lambda: (x * x).sum())),
        ("copy", lambda: x.clone())],
        close((xf * xf).sum().reshape(()), 8 * eps), N * 4, WIDTH)
    zero = torch.zeros((), dtype=dt, device="cuda")

    def chain():
        return torch.maximum(x * 1.5 + 0.25, zero) * 0.5 + x
    ok &= run_case("chain %s 2^28" % name, N * 4, [
        ("fuse", lambda: hc.chain(x)),
        ("torch eager", chain),
        ("torch.compile", compiled(chain)),
        ("copy", lambda: x.clone())],
        close(torch.maximum(xf * 1.5 + 0.25, zero.float()) * 0.5 + xf,
              4 * eps, eps), N * 4, WIDTH)
    m = (torch.randn(ROWS, COLS, device="cuda", generator=gen) * 2).to(dt)
    ok &= run_case("softmax_rows %s" % name, ROWS * COLS * 4, [
        ("fuse", lambda: hc.softmax_rows(m)),
        ("torch eager", lambda: torch.softmax(m, dim=1)),
        ("torch.compile", compiled(lambda: torch.softmax(m, dim=1))),
        ("copy", lambda: m.clone())],
        close(torch.softmax(m.float(), dim=1), 0.1, 2 * eps),
        ROWS * COLS * 4, WIDTH)
    return ok


def main():
    header(WIDTH)
    gen = torch.Generator(device="cuda").manual_seed(0)
    ok = True
    for dt, name, eps in ((torch.bfloat16, "bf16", 2.0 ** -7),
                          (torch.float16, "f16", 2.0 ** -10)):
        ok &= bench_dtype(dt, name, eps, gen)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
