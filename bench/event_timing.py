"""The timing of the Python benchmarks (bench/*_bench.py): the median of
`reps` calls, each timed alone with CUDA events on the current stream
after three warm-up calls, in microseconds; and torch.compile as a peer
that may be missing. Importing it also puts the package (python/) and
the GPU checks (test/Python/, whose pipelines and references the
benchmarks share) on sys.path, so a benchmark imports this first."""

import os
import statistics
import sys

import torch

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _d in (os.path.join(_ROOT, "test", "Python"),
           os.path.join(_ROOT, "python")):
    if _d not in sys.path:
        sys.path.insert(0, _d)


def median_us(fn, reps=20):
    for _ in range(3):
        fn()
    start, end = torch.cuda.Event(True), torch.cuda.Event(True)
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        ts.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(ts)


def compiled(fn):
    """torch.compile of the no-argument `fn`, called once; None (with the
    reason printed) when it does not compile: a peer that is missing, not
    a failure of the benchmark."""
    try:
        c = torch.compile(fn)
        c()
        return c
    except Exception as e:  # noqa: BLE001 (a peer that does not compile)
        print("torch.compile: failed (%s: %s)" % (type(e).__name__, e))
        return None
