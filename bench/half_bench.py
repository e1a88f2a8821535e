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
# (dtype, its name in the cases, the unit in its last place)
DTYPES = ((torch.bfloat16, "bf16", 2.0 ** -7),
          (torch.float16, "f16", 2.0 ** -10))


def cases(dt, name, eps, gen, compiler=compiled):
    """The cases of one dtype, one dict at a time (the data of each made
    when it is reached): its name ("case"), the workload of
    bench/extra_suite.py ("key"), the bytes it moves, the (name, fn) of
    every implementation (fn None: a peer that is missing; "copy": the
    ceiling), check(name, result), the copy's bytes and the input
    ("inputs": {"x": tensor}). compiler: torch.compile's wrapper."""
    x = (torch.randn(N, device="cuda", generator=gen) * 0.01).to(dt)
    xf = x.float()
    yield dict(case="sumsq %s 2^28" % name, key="sumsq_" + name,
               nbytes=N * 2, impls=[
                   ("fuse", lambda: hc.sumsq(x)),
                   ("torch eager", lambda: (x * x).sum()),
                   ("torch.compile", compiler(lambda: (x * x).sum())),
                   ("copy", lambda: x.clone())],
               check=close((xf * xf).sum().reshape(()), 8 * eps),
               copy_bytes=N * 4, inputs={"x": x})
    zero = torch.zeros((), dtype=dt, device="cuda")

    def chain():
        return torch.maximum(x * 1.5 + 0.25, zero) * 0.5 + x
    yield dict(case="chain %s 2^28" % name, key="chain_" + name,
               nbytes=N * 4, impls=[
                   ("fuse", lambda: hc.chain(x)),
                   ("torch eager", chain),
                   ("torch.compile", compiler(chain)),
                   ("copy", lambda: x.clone())],
               check=close(torch.maximum(xf * 1.5 + 0.25, zero.float()) *
                           0.5 + xf, 4 * eps, eps),
               copy_bytes=N * 4, inputs={"x": x})
    m = (torch.randn(ROWS, COLS, device="cuda", generator=gen) * 2).to(dt)
    yield dict(case="softmax_rows %s" % name, key="softmax_rows_" + name,
               nbytes=ROWS * COLS * 4, impls=[
                   ("fuse", lambda: hc.softmax_rows(m)),
                   ("torch eager", lambda: torch.softmax(m, dim=1)),
                   ("torch.compile",
                    compiler(lambda: torch.softmax(m, dim=1))),
                   ("copy", lambda: m.clone())],
               check=close(torch.softmax(m.float(), dim=1), 0.1, 2 * eps),
               copy_bytes=ROWS * COLS * 4, inputs={"x": m})


def bench_dtype(dt, name, eps, gen):
    ok = True
    for c in cases(dt, name, eps, gen):
        ok &= run_case(c["case"], c["nbytes"], c["impls"], c["check"],
                       c["copy_bytes"], WIDTH)
    return ok


def main():
    header(WIDTH)
    gen = torch.Generator(device="cuda").manual_seed(0)
    ok = True
    for dt, name, eps in DTYPES:
        ok &= bench_dtype(dt, name, eps, gen)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
