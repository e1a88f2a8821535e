"""Times fuse's layernorm_rows (this process's FUSE_CACHE_DIR) at the wide
shapes: median of 20 CUDA-event timings, checked against torch."""
import sys, os
sys.path[:0] = ["python", "test/Python"]
import torch
import torch.nn.functional as F
import rows_check as rc
tag = sys.argv[1]
shapes = ((16384, 16384), (1024, 262144), (65536, 4096))
if len(sys.argv) > 2:  # one shape, one call (for a profiler)
    shapes = [tuple(int(v) for v in sys.argv[2].split("x"))]
for rows, cols in shapes:
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(rows, cols, device="cuda", generator=g) * 3 + 1
    w = torch.rand(cols, device="cuda", generator=g) + 0.5
    b = torch.rand(cols, device="cuda", generator=g) - 0.5
    want = F.layer_norm(x, (cols,), w, b, 1e-5)
    got = rc.layernorm_rows(x, w, b)
    ok = bool(((got - want).abs() <= 1e-4 * (want.abs() + 1)).all())
    ts = []
    for _ in range(23 if len(sys.argv) <= 2 else 0):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); rc.layernorm_rows(x, w, b); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e) * 1000)
    ts = sorted(ts[3:]) or [float("nan")]
    us = ts[len(ts) // 2]
    if tag in ("d", "old-d"):
        te = []
        for _ in range(23):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); F.layer_norm(x, (cols,), w, b, 1e-5); e.record(); e.synchronize()
            te.append(s.elapsed_time(e) * 1000)
        te = sorted(te[3:])
        print("%-10s %6dx%-7d %9.1f us (torch eager)" % (tag, rows, cols, te[len(te) // 2]))
    print("%-10s %6dx%-7d %9.1f us %7.1f GiB/s %s" % (
        tag, rows, cols, us, 2 * x.numel() * 4 / us / 1e-6 / 2**30,
        "ok" if ok else "MISMATCH"), flush=True)
    del x, w, b, want, got
