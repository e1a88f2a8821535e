"""The timing of the algorithm benchmarks (sort_bench.py,
searchsorted_bench.py, histogram_bench.py): the median of `reps` calls,
each timed alone with CUDA events on the current stream after three
warm-up calls, in microseconds; and torch.compile as a peer that may be
missing."""

import statistics

import torch


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
