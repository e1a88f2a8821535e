"""The timing of the algorithm benchmarks (sort_bench.py,
searchsorted_bench.py): the median of `reps` calls, each timed alone with
CUDA events on the current stream after three warm-up calls, in
microseconds."""

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
