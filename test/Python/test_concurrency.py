"""Concurrent use (docs/reliability.md, row 18) and re-entrancy (row 20) of
the CPU backend.

Concurrency: ctypes releases the GIL while the compiled entry runs, so
threads really execute pipelines at the same time. Each thread checks every
result against NumPy on its own data (cross-talk between threads would show
as another thread's values or sizes). Several processes compiling the same
new pipeline into one cache: test/Python/test_cache.py,
test_concurrent_processes.

Re-entrancy on the CPU path means: (a) the compiled entry keeps no state
between calls (no mutable globals; results are fresh buffers), so a call
while an earlier call's results are still referenced, or with them as
inputs, is independent of it; (b) a pipeline called from Python code that
runs *during* another pipeline's tracing (its body, a filter predicate, a
scan combiner) works and leaves the outer trace intact; (c) the same jitted
function called again from inside its own tracing. Not applicable: compiled
code never calls back into Python (lambdas are traced into the IR at
compile time, not run), so a pipeline cannot be re-entered from inside its
own compiled execution.
"""

import re
import subprocess
import threading

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind, _tools

from conftest import rand, sum_rtol

THREADS = 8


def run_threads(work, n=THREADS, timeout=60):
    """Runs work(i) in n threads started together; re-raises the first
    failure."""
    barrier = threading.Barrier(n)
    errors = []

    def body(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as e:  # noqa: B902 (re-raised below)
            errors.append((i, e))
    ts = [threading.Thread(target=body, args=(i,), daemon=True)
          for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout)
    assert not any(t.is_alive() for t in ts), "threads hung"
    if errors:
        raise errors[0][1]


# ---- concurrent use: threads --------------------------------------------------

@fuse.jit
def select_sum(x):
    y = fuse.filter(x, lambda a: a > 0)
    return y, y.shape[0], (x * x).sum()


def test_threads_same_pipeline_different_data():
    """8 threads call one compiled pipeline (a filter: result sizes depend
    on the data) on their own inputs of different sizes, 25 times each."""
    select_sum(rand(10))   # compiled once up front

    def work(i):
        for k in range(25):
            x = rand(20000 + 997 * i + k, dtype=np.float64, seed=100 * i + k)
            y, n, s = select_sum(x)
            np.testing.assert_array_equal(y, x[x > 0])
            assert n == (x > 0).sum()
            np.testing.assert_allclose(s, (x * x).sum(), rtol=1e-12)
    run_threads(work)


def test_threads_first_call_compiles_once():
    """8 threads make the first call of a new function at the same time:
    one trace, one compile, every result right."""
    @fuse.jit
    def fresh(x, y):
        return (fuse.maximum(x, y) - 0.125 * y).sum(), fuse.scan(x * y)
    before = dict(fuse.stats)

    def work(i):
        x, y = rand(5000 + i, seed=i), rand(5000 + i, seed=50 + i)
        s, c = fresh(x, y)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        np.testing.assert_allclose(
            s, (np.maximum(x64, y64) - 0.125 * y64).sum(),
            rtol=sum_rtol(x.size), atol=1e-3)
        np.testing.assert_allclose(c, np.cumsum(x64 * y64), atol=1e-4)
    run_threads(work)
    built = (fuse.stats["compiles"] + fuse.stats["disk_hits"]
             - before["compiles"] - before["disk_hits"])
    assert built == 1
    assert len(fresh._specs) == 1


@fuse.jit
def w_sumsq(x):
    return (x * x).sum()


@fuse.jit
def w_scan(x):
    return fuse.scan(x, op="max")


@fuse.jit
def w_softmax(X):
    e = fuse.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@fuse.jit
def w_variance(x):
    return ((x - x.mean()) ** 2).mean()


@fuse.jit
def w_int(x):
    return (x * 3 - 1).min(), fuse.scan(x, op="add")


def _softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


WORKLOADS = [
    (w_sumsq, lambda i, k: rand(30000 + i + k, np.float64, seed=i * 31 + k),
     lambda x: (x * x).sum()),
    (w_scan, lambda i, k: rand(20000 + 7 * k, seed=i * 31 + k),
     np.maximum.accumulate),
    (w_softmax, lambda i, k: rand((40 + k, 300 + i), np.float64, seed=k),
     _softmax),
    (w_variance, lambda i, k: rand(25000 + k, np.float64, seed=i + k),
     np.var),
    (w_int, lambda i, k: np.arange(-5000 - k, 5000 + i, dtype=np.int32),
     lambda x: ((x * 3 - 1).min(), np.cumsum(x))),
    (select_sum, lambda i, k: rand(20000 + k, np.float64, seed=i + 7 * k),
     lambda x: (x[x > 0], (x > 0).sum(), (x * x).sum())),
]


def _check(got, ref):
    if not isinstance(ref, tuple):
        got, ref = (got,), (ref,)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        g, r = np.asarray(g), np.asarray(r)
        assert g.shape == r.shape
        if r.dtype.kind == "f":
            np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)
        else:
            np.testing.assert_array_equal(g, r)


def test_threads_different_pipelines():
    """8 threads, each running a different mix of six pipelines (float and
    integer, map/reduce/scan/filter/rows), 12 calls each, every result
    against NumPy."""
    for f, make, _ in WORKLOADS:
        f(make(0, 0))

    def work(i):
        for k in range(12):
            f, make, ref = WORKLOADS[(i + k) % len(WORKLOADS)]
            x = make(i, k)
            _check(f(x), ref(x))
    run_threads(work)


def test_threads_one_function_many_signatures():
    """Threads trace and compile different signatures (dtype, rank) of one
    function concurrently: each gets its own specialisation."""
    @fuse.jit
    def total(x):
        return x.sum(), x * 2
    dtypes = [np.float32, np.float64, np.int32, np.int64, np.int16,
              np.uint32, np.float64, np.int8]

    def work(i):
        dt = dtypes[i]
        x = (np.arange(1, 301) % 17).astype(dt)
        if i == 6:
            x = x.reshape(20, 15)          # a rank-2 signature
        for _ in range(3):
            s, d = total(x)
            assert s == x.sum() and np.asarray(s).dtype == x.sum().dtype
            np.testing.assert_array_equal(d, x * 2)
            assert d.dtype == (x * 2).dtype
    run_threads(work)
    assert len(total._specs) == 8


def test_threads_compute_api():
    """fuse.compute algorithms from 8 threads, each writing its own d_out."""
    def work(i):
        x = rand(10000 + 11 * i, np.float64, seed=i)
        out = np.empty(1, np.float64)
        ys = np.empty_like(x)
        cnt = np.empty(1, np.int64)
        for k in range(5):
            fc.reduce_into(fc.TransformIterator(x, lambda a: a * a), out,
                           OpKind.PLUS, x.size, np.float64(k))
            np.testing.assert_allclose(out[0], k + (x * x).sum(), rtol=1e-12)
            fc.select(x, ys, cnt, lambda a: a > 0.5, x.size)
            np.testing.assert_array_equal(ys[:cnt[0]], x[x > 0.5])
    run_threads(work)


# ---- re-entrancy ----------------------------------------------------------------

def test_compiled_code_has_no_mutable_state():
    """(a) The lowered modules of representative pipelines define only
    constant globals: the compiled entry keeps nothing between calls, so
    nested, interleaved or concurrent calls cannot see each other."""
    fuse_opt = _tools.find_fuse_opt()
    x32 = rand(8)
    for f, args in [(select_sum, (x32,)), (w_softmax, (rand((2, 3)),)),
                    (w_variance, (x32,)), (w_int, (np.arange(3, dtype=np.int32),)),
                    (w_scan, (x32,))]:
        ir = f.lower(*args)
        llvm = subprocess.run([fuse_opt, "--fuse-to-cpu", "-"], input=ir,
                              capture_output=True, text=True, check=True).stdout
        for line in llvm.splitlines():
            if re.search(r"\bllvm\.mlir\.global\b", line):
                assert " constant " in line, (f.__name__, line)


def test_results_outlive_later_calls():
    """(a) Results are the caller's own arrays: later calls (same or other
    data, results fed back as inputs) and mutations of inputs or results
    never change an earlier result."""
    @fuse.jit
    def ident_and_scan(x):
        return x, fuse.scan(x, op="add"), fuse.filter(x, lambda a: a > 0)
    x = np.arange(-3.0, 5.0)
    r1 = ident_and_scan(x)
    snap = [a.copy() for a in r1]
    r2 = ident_and_scan(r1[1])          # an earlier result as the input
    r3 = ident_and_scan(r2[0])
    x[:] = 100.0                        # mutate the input afterwards
    r2[0][:] = -7.0                     # and a result
    for a, s in zip(r1, snap):
        np.testing.assert_array_equal(a, s)
    assert r1[0] is not x and not np.shares_memory(r1[0], x)
    np.testing.assert_array_equal(r3[0], np.cumsum(snap[0]))
    np.testing.assert_array_equal(r3[1], np.cumsum(np.cumsum(snap[0])))


def test_interleaved_generators():
    """(a) Calls of two pipelines interleaved through generators (each
    suspended between its calls) give the same results as run apart."""
    def gen(f, seed):
        for k in range(6):
            x = rand(1000 + k, np.float64, seed=seed + k)
            yield x, f(x)
    a, b = gen(w_sumsq, 0), gen(w_variance, 100)
    for (xa, ra), (xb, rb) in zip(a, b):
        np.testing.assert_allclose(ra, (xa * xa).sum(), rtol=1e-12)
        np.testing.assert_allclose(rb, np.var(xb), rtol=1e-10)


def test_pipeline_called_during_tracing():
    """(b) A pipeline run on concrete arrays from inside another pipeline's
    traced body, filter predicate and scan combiner: its result is a
    compile-time constant there, the outer trace is not disturbed (the
    trace context is saved and restored), and the outer IR does not contain
    the inner pipeline's ops."""
    @fuse.jit
    def norm2(v):
        return (v * v).sum()
    w = np.array([1.0, 2.0, 2.0])       # norm2(w) = 9

    @fuse.jit
    def outer(x):
        c = float(norm2(w))
        y = fuse.filter(x, lambda a: a > float(norm2(w[:1])))   # a > 1
        s = fuse.scan(x, op=lambda acc, e: acc + e * float(norm2(w[1:2])),
                      init=0.0)
        return x * c, y, s
    x = np.array([0.5, 1.5, -2.0, 3.0])
    a, y, s = outer(x)
    np.testing.assert_array_equal(a, x * 9.0)
    np.testing.assert_array_equal(y, x[x > 1.0])
    np.testing.assert_allclose(s, np.cumsum(x * 4.0))
    ir = outer.lower(x)
    assert "fuse.reduce" not in ir and ir.count("func.func") == 1


# Was a deadlock (a non-reentrant lock held while tracing); the lock is
# re-entrant now and only a call with the signature being traced is refused.
def test_same_function_called_during_its_own_trace():
    """(c) f traced for float32 calls f on a float64 array while tracing."""
    @fuse.jit
    def f(x):
        if x.dtype == np.float32:
            c = float(f(np.arange(4.0)).sum())     # 1 + 2 + 3 + 4 = 10
            return x * c
        return x + 1
    box = []
    t = threading.Thread(target=lambda: box.append(
        f(np.ones(3, np.float32))), daemon=True)
    t.start()
    t.join(2.0)
    assert not t.is_alive(), "deadlocked (thread left blocked, daemon)"
    np.testing.assert_array_equal(box[0], np.full(3, 10.0, np.float32))


def test_same_signature_called_during_its_own_trace():
    """A call with the very signature being traced is refused clearly (its
    pipeline is what is being built), not a hang or an endless trace."""
    @fuse.jit
    def g(x):
        g(np.ones(2, np.float32))   # float32, rank 1: the traced signature
        return x + 1
    box = []

    def call():
        try:
            g(np.ones(3, np.float32))
        except RecursionError as e:
            box.append(e)
    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(5.0)
    assert not t.is_alive(), "hung"
    assert box and "being traced" in str(box[0])
    # The failed trace left nothing behind: another signature still works.
    np.testing.assert_array_equal(
        fuse.jit(lambda x: x + 1)(np.ones(2)), np.full(2, 2.0))
