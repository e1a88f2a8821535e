"""Row pipelines beyond the benchmark's softmax: layer norm over 65536 x
4096 rows with a per-column scale and bias, and softmax over the last
axis of a 64 x 32 x 4096 array, in float32 and bfloat16, and column
statistics (sum, max and mean over the first axis) of float32 arrays
with many and with few columns, layer norm over float32 rows too wide
for registers, and max(x, 0) returned with its sums over the first
axis; fuse (@fuse.jit
on PyTorch CUDA tensors) against torch eager (torch.nn.functional's
layer_norm and softmax) and torch.compile on the same dtype, with a clone
of the input as the copy ceiling, in one run on one GPU. Per case: the
median of 20 calls timed with CUDA events after a warm-up, each result
checked against torch's float32 computation (the exit status is 1 on a
mismatch), GiB/s of the bytes the job must move (the input read once,
the output written once; the vectors are negligible), the ratio of the
best peer's time to each.

    FUSE_CACHE_DIR=... python3 bench/rows_bench.py [WORD ...]

With WORDs, only the cases whose name contains one of them run (e.g.
"column" for the column statistics).

Uses the pipelines of test/Python/rows_check.py, which
scripts/gpu/prepare-python.sh puts in the cache."""

import sys

# First: it puts python/ and test/Python/ on sys.path.
from event_timing import close, compiled, header, run_case

import torch
import torch.nn.functional as F

import rows_check as rc

WIDTH = 26
ROWS, COLS = 65536, 4096
RANK3 = (64, 32, 4096)
# (dtype, its name in the cases, the unit in its last place)
DTYPES = ((torch.float32, "f32", 2.0 ** -23),
          (torch.bfloat16, "bf16", 2.0 ** -7))


def cases(dt, name, eps, gen, compiler=compiled):
    """The cases of one dtype, one dict at a time (the data of each made
    when it is reached): its name ("case"), the workload of
    bench/extra_suite.py ("key"), the bytes it moves, the (name, fn) of
    every implementation (fn None: a peer that is missing; "copy": the
    ceiling), check(name, result), the copy's bytes and the input
    ("inputs": {"x": tensor}). compiler: torch.compile's wrapper."""
    x = (torch.randn(ROWS, COLS, device="cuda", generator=gen) * 3 +
         1).to(dt)
    w = (torch.rand(COLS, device="cuda", generator=gen) + 0.5).to(dt)
    b = (torch.rand(COLS, device="cuda", generator=gen) - 0.5).to(dt)
    nbytes = ROWS * COLS * x.element_size() * 2

    def ln():
        return F.layer_norm(x, (COLS,), w, b, 1e-5)
    want = F.layer_norm(x.float(), (COLS,), w.float(), b.float(), 1e-5)
    yield dict(case="layernorm_rows %s" % name,
               key="layernorm_rows_" + name, nbytes=nbytes, impls=[
                   ("fuse", lambda: rc.layernorm_rows(x, w, b)),
                   ("torch eager", ln),
                   ("torch.compile", compiler(ln)),
                   ("copy", lambda: x.clone())],
               check=close(want, 16 * eps, 16 * eps), copy_bytes=nbytes,
               inputs={"x": x, "w": w, "b": b})
    y = (torch.randn(*RANK3, device="cuda", generator=gen) * 2).to(dt)
    nbytes = y.numel() * y.element_size() * 2
    yield dict(case="softmax rank-3 %s" % name,
               key="softmax_rank3_" + name, nbytes=nbytes, impls=[
                   ("fuse", lambda: rc.softmax_last(y)),
                   ("torch eager", lambda: torch.softmax(y, dim=-1)),
                   ("torch.compile",
                    compiler(lambda: torch.softmax(y, dim=-1))),
                   ("copy", lambda: y.clone())],
               check=close(torch.softmax(y.float(), dim=-1), 0.1, 2 * eps),
               copy_bytes=nbytes, inputs={"x": y})


# Column statistics: shapes with many lines (each thread a column) and
# with few (each column split into chunks folded apart, then combined).
COLUMN_SHAPES = ((65536, 4096), (1 << 22, 64), (1 << 24, 16))


def column_check(x):
    """check(name, result) for rc.leading_axes' (sum, max, mean, k sum)
    over axis 0 of float32 x: sums and means within n float32 roundings
    of the sum of |x| along the column, maxima exact."""
    x64 = x.double()
    n = x.shape[0]
    bound = x64.abs().sum(0) * n * 2.0 ** -23
    want = (x64.sum(0), x.amax(0).double(), x64.sum(0) / n)

    def check(name, got):
        bad = 0
        for g, w, tol in zip(got, want, (bound, 0 * bound, bound / n)):
            bad += int(((g.double() - w).abs() > tol).sum())
        if bad:
            print("MISMATCH %s: %d values off" % (name, bad))
        return not bad
    return check


def column_cases(gen, compiler=compiled):
    """Sums, maxima and means over the first axis of float32 arrays
    (rc.leading_axes; its int32 operand a single element), against
    torch's three reductions eager and compiled."""
    k = torch.ones(1, 1, 1, device="cuda", dtype=torch.int32)
    for shape in COLUMN_SHAPES:
        x = torch.randn(*shape, device="cuda", generator=gen) * 3 + 1
        nbytes = x.numel() * 4

        def stats(x=x):
            return x.sum(0), x.amax(0), x.mean(0), k.sum(1)
        yield dict(case="column stats %dx%d" % shape,
                   key="column_stats_%dx%d" % shape, nbytes=nbytes,
                   impls=[("fuse", lambda x=x: rc.leading_axes(x, k)),
                          ("torch eager", stats),
                          ("torch.compile", compiler(stats)),
                          ("copy", lambda x=x: x.clone())],
                   check=column_check(x), copy_bytes=2 * nbytes,
                   inputs={"x": x})


# Rows past the register path: staged in shared memory (16384 columns)
# and long (262144), float32.
WIDE_SHAPES = ((16384, 16384), (1024, 262144))


def wide_cases(gen, compiler=compiled):
    """Layer norm over rows too wide for registers, with a per-column
    scale and bias read along each row."""
    for rows, cols in WIDE_SHAPES:
        x = torch.randn(rows, cols, device="cuda", generator=gen) * 3 + 1
        w = torch.rand(cols, device="cuda", generator=gen) + 0.5
        b = torch.rand(cols, device="cuda", generator=gen) - 0.5
        nbytes = x.numel() * 4 * 2

        def ln(x=x, w=w, b=b, cols=cols):
            return F.layer_norm(x, (cols,), w, b, 1e-5)
        yield dict(case="layernorm_rows %dx%d" % (rows, cols),
                   nbytes=nbytes, impls=[
                       ("fuse", lambda x=x, w=w, b=b: rc.layernorm_rows(
                           x, w, b)),
                       ("torch eager", ln),
                       ("torch.compile", compiler(ln)),
                       ("copy", lambda x=x: x.clone())],
                   check=close(ln(), 1e-5, 1e-5),
                   copy_bytes=nbytes)


def relu_column_cases(gen, compiler=compiled):
    """max(x, 0) and its sums over the first axis (rc.relu_column_sums):
    a line reduction storing its input's map as it goes; the bytes are
    the input read and the map written."""
    for shape in COLUMN_SHAPES:
        x = torch.randn(*shape, device="cuda", generator=gen)
        nbytes = x.numel() * 4 * 2

        def relu_sums(x=x):
            y = torch.relu(x)
            return y.sum(0), y
        want = relu_sums()

        def check(name, got, want=want, n=shape[0]):
            y_ok = torch.equal(got[1], want[1])
            tol = want[1].double().sum(0) * n * 2.0 ** -23 + 1e-30
            s_ok = bool(((got[0].double() - want[1].double().sum(0)).abs()
                         <= tol).all())
            if not (y_ok and s_ok):
                print("MISMATCH %s: map %s, sums %s" % (name, y_ok, s_ok))
            return y_ok and s_ok
        yield dict(case="relu column sums %dx%d" % shape, nbytes=nbytes,
                   impls=[("fuse", lambda x=x: rc.relu_column_sums(x)),
                          ("torch eager", relu_sums),
                          ("torch.compile", compiler(relu_sums)),
                          ("copy", lambda x=x: x.clone())],
                   check=check, copy_bytes=nbytes)


def main(words):
    header(WIDTH)
    gen = torch.Generator(device="cuda").manual_seed(0)
    ok = True

    def wanted(case):
        return not words or any(w in case for w in words)
    for dt, name, eps in DTYPES:
        for c in cases(dt, name, eps, gen):
            if wanted(c["case"]):
                ok &= run_case(c["case"], c["nbytes"], c["impls"],
                               c["check"], c["copy_bytes"], WIDTH)
    for more in (column_cases, wide_cases, relu_column_cases):
        for c in more(gen):
            if wanted(c["case"]):
                ok &= run_case(c["case"], c["nbytes"], c["impls"],
                               c["check"], c["copy_bytes"], WIDTH)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
