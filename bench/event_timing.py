"""The timing of the Python benchmarks (bench/*_bench.py): the median of
`reps` calls, each timed alone with CUDA events on the current stream
after three warm-up calls, in microseconds; and torch.compile as a peer
that may be missing. Importing it also puts the package (python/) and
the GPU checks (test/Python/, whose pipelines and references the
benchmarks share) on sys.path, so a benchmark imports this first."""

import os
import statistics
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _d in (os.path.join(_ROOT, "test", "Python"),
           os.path.join(_ROOT, "python")):
    if _d not in sys.path:
        sys.path.insert(0, _d)


def event_times(fn, reps, cuda):
    """The times of `reps` calls of fn in microseconds, each alone between
    CUDA events after three warm-up calls; `cuda` is torch.cuda (a
    stand-in in the tests of bench/extra_suite.py)."""
    for _ in range(3):
        fn()
    start, end = cuda.Event(True), cuda.Event(True)
    ts = []
    for _ in range(reps):
        cuda.synchronize()
        start.record()
        fn()
        end.record()
        cuda.synchronize()
        ts.append(start.elapsed_time(end) * 1000.0)
    return ts


def median_us(fn, reps=20):
    import torch
    return statistics.median(event_times(fn, reps, torch.cuda))


def compiled(fn):
    """torch.compile of the no-argument `fn`, called once; None (with the
    reason printed) when it does not compile: a peer that is missing, not
    a failure of the benchmark."""
    import torch
    try:
        c = torch.compile(fn)
        c()
        return c
    except Exception as e:  # noqa: BLE001 (a peer that does not compile)
        print("torch.compile: failed (%s: %s)" % (type(e).__name__, e))
        return None


# ---- the cases of half_bench.py and rows_bench.py -----------------------


def header(width):
    print("%-*s %-14s %10s %8s %8s" % (width, "case", "impl", "us", "GiB/s",
                                       "vs best"))


def close(want, rtol, atol=0.0):
    """check(name, result): |result - want| <= rtol |want| + atol at every
    element (want: float32), else False with a MISMATCH line."""
    def check(name, got):
        bad = int(((got.float() - want).abs() >
                   rtol * want.abs() + atol).sum())
        if bad:
            print("MISMATCH %s: %d values off" % (name, bad))
        return not bad
    return check


def run_case(case, nbytes, impls, check, copy_bytes, width, reps=20):
    """Times every (name, fn) of impls (fn None: a peer that is missing),
    each result but the copy's checked with check(name, result), and
    prints a line each: median us, GiB/s of nbytes (the copy: copy_bytes,
    what it reads and writes), the best peer's time over its own (peers:
    the names starting with "torch"; the copy is the ceiling, not a peer).
    Returns whether every check passed."""
    ok = True
    times = {}
    for name, fn in impls:
        if fn is None:
            continue
        if name != "copy" and not check("%s %s" % (case, name), fn()):
            ok = False
        times[name] = median_us(fn, reps)
    peers = [t for k, t in times.items() if k.startswith("torch")]
    best = min(peers) if peers else None
    for name, t in times.items():
        b = copy_bytes if name == "copy" else nbytes
        print("%-*s %-14s %10.1f %8.1f %8.3f" % (
            width, case, name, t, b / t * 1e6 / 2 ** 30,
            best / t if best else 0), flush=True)
    return ok
