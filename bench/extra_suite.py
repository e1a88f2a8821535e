"""The benchmark's workloads beyond the nine of bench_fuse.cu, every
implementation in one process on one GPU: fuse (@fuse.jit on PyTorch CUDA
tensors, the pipelines of the GPU checks' cache), torch eager,
torch.compile on the same dtype, and CUB through cuda.compute where CUB
has the algorithm (cuda.compute missing: that peer is skipped, with the
reason printed and recorded).

- Reductions and scans with function combiners (bench/reduce_bench.py's
  data and checks): argmax and argmin of 2^28 float32 (with ties and a few
  NaNs: the first extreme, the first NaN), a (min, max) pair, fuse's
  built-in max of the same bytes (the bandwidth the combiners are held
  to), the composition of 2^27 affine maps over uint32 pairs reduced (no
  peer: torch has none, and CUB's DeviceReduce does not take
  non-commutative operators) and scanned (the recurrence y_i = a_i *
  y_i-1 + b_i; CUB's inclusive scan with the same operator over zipped
  pairs), and cumsum(x * x) of 2^27 float32 (the built-in scan).
- Half precision (bench/half_bench.py's cases): sumsq and the chain at
  2^28 elements, softmax over 65536 x 4096 rows, bfloat16 and float16
  (cuda.compute has no bfloat16: its peer runs on float16 only).
- Rows (bench/rows_bench.py's cases): layer norm over 65536 x 4096 rows
  with a per-column scale and bias, softmax over the last axis of 64 x 32
  x 4096, float32 and bfloat16; column statistics (sum, max and mean over
  the first axis) of 1 GiB of float32 as 65536 x 4096, 4194304 x 64 and
  16777216 x 16.
- The copy ceiling of each element type: a clone and a copy_ into a
  preallocated tensor of 2^28 elements (copy_f32 also stands for uint32:
  the same 4-byte elements).

Method: three warm-up calls, then the median (and min) of --reps calls,
each timed alone between CUDA events (event_timing.median_us's method);
every result checked first against the bench's own reference (exact for
the integer and selection results, within a few units in the last place
of torch's float32 computation for the half and row cases): a wrong
result is a failed check, never a best peer. GiB/s counts the bytes the
job must move: inputs read once, outputs written once (a copy: both).

Output: one JSON line per (workload, implementation) to --out, the fields
of bench/harness.h's records (workload, impl, median_ms, min_ms, bytes,
gib_s, ok, rel_err: 0 passed / 1 failed, the MISMATCH lines of the log say
by how much, reps, gpu) plus "suite": "extra", "dtype", and torch.compile's
first call ("compile_s"); a peer not measured is a line with "skipped":
reason instead of the times (a peer that raises is one too). bench/report.py
puts them in its table "Beyond the nine" with their targets. The exit
status is 1 when a check failed or fuse raised.

    FUSE_RUNTIME_LIB=... FUSE_CACHE_DIR=... FUSE_GPU_NO_COMPILE=1 \\
        python3 bench/extra_suite.py --out extra.jsonl [--reps=30]
        [--only=WORKLOAD ...] [--skip-torch]
    python3 bench/extra_suite.py --list     # the workloads (no GPU)
    FUSE_CACHE_DIR=.device/pycache-extra FUSE_GPU_COMPILE_ONLY=1 \\
        FUSE_BIN_DIR=build/bin python3 bench/extra_suite.py --prepare

scripts/gpu/run-bench.sh runs it after the main suite (bench/README.md).
The fuse pipelines are test/Python's (combiner_check, half_check,
rows_check, workloads: PIPELINES), which scripts/gpu/prepare-python.sh
puts in its cache among the GPU checks' and --prepare in a cache of
their own (no torch, no GPU: host stand-ins of the same signatures)."""

import argparse
import json
import os
import statistics
import sys
import time

# The timing alone (event_timing imports torch only where it times), from
# this file's folder also when the suite is loaded by path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from event_timing import event_times  # noqa: E402

REPS = 30
N = 1 << 28

# Every workload, in the report's order: (name, element type, what).
WORKLOADS = [
    ("argmax_f32", "f32", "argmax of 2^28 float32"),
    ("argmin_f32", "f32", "argmin of 2^28 float32"),
    ("minmax_f32", "f32", "(min, max) of 2^28 float32, one tuple reduction"),
    ("max_f32", "f32", "max of 2^28 float32 (the built-in reduction)"),
    ("affine_reduce_u32", "u32", "composition of 2^27 affine maps (uint32 pairs)"),
    ("affine_scan_u32", "u32", "prefix compositions of 2^27 affine maps (the 2-tuple scan)"),
    ("cumsum_f32", "f32", "cumsum(x * x) of 2^27 float32 (the built-in scan)"),
    ("sumsq_bf16", "bf16", "sum(x * x) of 2^28 bfloat16"),
    ("chain_bf16", "bf16", "the elementwise chain, 2^28 bfloat16"),
    ("softmax_rows_bf16", "bf16", "softmax over 65536 x 4096 bfloat16 rows"),
    ("sumsq_f16", "f16", "sum(x * x) of 2^28 float16"),
    ("chain_f16", "f16", "the elementwise chain, 2^28 float16"),
    ("softmax_rows_f16", "f16", "softmax over 65536 x 4096 float16 rows"),
    ("layernorm_rows_f32", "f32", "layer norm over 65536 x 4096 float32 rows"),
    ("softmax_rank3_f32", "f32", "softmax over the last axis of 64 x 32 x 4096 float32"),
    ("layernorm_rows_bf16", "bf16", "layer norm over 65536 x 4096 bfloat16 rows"),
    ("softmax_rank3_bf16", "bf16", "softmax over the last axis of 64 x 32 x 4096 bfloat16"),
    ("column_stats_65536x4096", "f32", "sum, max and mean over axis 0 of 65536 x 4096 float32"),
    ("column_stats_4194304x64", "f32", "sum, max and mean over axis 0 of 4194304 x 64 float32"),
    ("column_stats_16777216x16", "f32", "sum, max and mean over axis 0 of 16777216 x 16 float32"),
    ("copy_f32", "f32", "copy of 2^28 float32 (the ceiling of 4-byte elements)"),
    ("copy_bf16", "bf16", "copy of 2^28 bfloat16 (the ceiling)"),
    ("copy_f16", "f16", "copy of 2^28 float16 (the ceiling)"),
]
DTYPE = {w: t for w, t, _ in WORKLOADS}

# Every fuse pipeline the workloads call: (test/Python module, function,
# (dtype, rank) of each argument). --prepare traces them on host stand-ins
# of those signatures (the cache's key: dtypes and ranks, not sizes).
PIPELINES = [("combiner_check", f, [("float32", 1)]) for f in (
    "argmax", "argmin", "minmax", "builtin_max")] + [
    ("combiner_check", f, [("uint32", 1)] * 2) for f in (
        "affine", "affine_scan")] + [
    ("workloads", "jit_scan", [("float32", 1)])] + [
    ("half_check", f, [(t, r)]) for t in ("bfloat16", "float16")
    for f, r in (("sumsq", 1), ("chain", 1), ("softmax_rows", 2))] + [
    (m, f, a) for t in ("float32", "bfloat16") for m, f, a in (
        ("rows_check", "layernorm_rows", [(t, 2), (t, 1), (t, 1)]),
        ("rows_check", "softmax_last", [(t, 3)]))] + [
    ("rows_check", "leading_axes", [("float32", 2), ("int32", 3)])]


# ---- records (pure Python: bench/report.py's input) -------------------------

def gib_s(nbytes, us):
    return round(nbytes / (us * 1e-6) / 2 ** 30, 1) if us > 0 else 0.0


def record(workload, impl, times_us, nbytes, ok, gpu, extra=None):
    """One JSON record in the harness's format (bench/harness.h) from the
    times of the reps in microseconds."""
    med = statistics.median(times_us)
    rec = {"workload": workload, "impl": impl,
           "median_ms": round(med / 1000.0, 6),
           "min_ms": round(min(times_us) / 1000.0, 6), "bytes": nbytes,
           "gib_s": gib_s(nbytes, med), "ok": bool(ok),
           "rel_err": 0.0 if ok else 1.0, "reps": len(times_us),
           "gpu": gpu, "suite": "extra", "dtype": DTYPE.get(workload, "")}
    if extra:
        rec.update(extra)
    return rec


def skipped(workload, impl, why):
    """The record of a peer that was not measured, and why."""
    return {"workload": workload, "impl": impl, "skipped": why,
            "suite": "extra", "dtype": DTYPE.get(workload, "")}


def failed(workload, impl, why, gpu):
    """The record of an implementation that raised: a failure, no time."""
    return {"workload": workload, "impl": impl, "median_ms": None,
            "gib_s": 0.0, "ok": False, "rel_err": 1.0, "error": why,
            "gpu": gpu, "suite": "extra", "dtype": DTYPE.get(workload, "")}


def impl_name(bench_name):
    """The record's implementation for a name of the Python benches'
    cases ("fuse argmax", "torch eager", "torch.compile", "torch.argmax",
    "cuda.compute"); None for their per-case copy (this suite measures the
    copy of each element type instead)."""
    if bench_name == "copy":
        return None
    if bench_name.startswith("fuse"):
        return "fuse"
    if bench_name == "torch.compile":
        return "torch-compile"
    if bench_name.startswith("torch"):
        return "torch-eager"
    return bench_name


def summary(recs):
    """The short table printed last: one line per record."""
    lines = ["%-20s %-14s %10s %8s  %s" % ("workload", "impl", "us", "GiB/s",
                                           "check")]
    for r in recs:
        if "skipped" in r:
            lines.append("%-20s %-14s %10s %8s  skipped: %s" % (
                r["workload"], r["impl"], "-", "-", r["skipped"]))
        elif r.get("median_ms") is None:
            lines.append("%-20s %-14s %10s %8s  FAILED: %s" % (
                r["workload"], r["impl"], "-", "-", r.get("error", "")))
        else:
            lines.append("%-20s %-14s %10.1f %8.1f  %s" % (
                r["workload"], r["impl"], r["median_ms"] * 1000.0,
                r["gib_s"], "ok" if r["ok"] else "FAILED"))
    return "\n".join(lines)


def prepare():
    """--prepare: calls every pipeline of PIPELINES once on
    fuse.gpu.StandIn host arrays in compile-only mode (no torch, no GPU):
    with fuse-compile (FUSE_BIN_DIR or FUSE_BUILD_DIR) each missing one is
    compiled into FUSE_CACHE_DIR, so that an empty folder becomes a cache
    of this suite's pipelines alone (scripts/gpu/prepare-python.sh's
    holds them among two thousand others); with FUSE_GPU_NO_COMPILE=1 it
    only looks them up (on a copy of a cache: the package may write to
    it). A line each; exit 1 if any fails."""
    import os
    import importlib
    import shutil
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "..", "test", "Python"),
              os.path.join(here, "..", "python")):
        sys.path.insert(0, os.path.abspath(d))
    import numpy
    import fuse
    import fuse.gpu
    fuse.gpu.set_compile_only(True)
    # (The vectors of layer norm are as long as the rows.)
    shapes = {1: (64,), 2: (8, 64), 3: (2, 3, 64)}

    def dtype(t):
        if t == "bfloat16":
            import ml_dtypes    # NumPy's bfloat16, as half_check's
            return numpy.dtype(ml_dtypes.bfloat16)
        return numpy.dtype(t)
    bad = 0
    for mod, name, sig in PIPELINES:
        what = "%s.%s(%s)" % (mod, name, ", ".join(
            "%s rank %d" % a for a in sig))
        try:
            fn = getattr(importlib.import_module(mod), name)
            fn(*[fuse.gpu.StandIn(numpy.ones(shapes[r], dtype=dtype(t)))
                 for t, r in sig])
            print("ok   %s" % what)
        except Exception as e:  # noqa: BLE001 (one line each, then exit 1)
            bad += 1
            print("FAIL %s: %s: %s" % (what, type(e).__name__, e))
    shutil.rmtree(os.path.join(fuse.cache_root(), "tmp"), ignore_errors=True)
    print("%d pipelines, %d failed; cache %s" % (len(PIPELINES), bad,
                                                  fuse.cache_root()))
    return 1 if bad else 0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="the JSON lines' file (default: stdout "
                    "only, in the summary)")
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--only", action="append",
                    help="a workload to run (repeatable; default: all)")
    ap.add_argument("--skip-torch", action="store_true",
                    help="fuse and cuda.compute only (BENCH_SKIP_TORCH=1)")
    ap.add_argument("--list", action="store_true",
                    help="print the workloads and exit")
    ap.add_argument("--prepare", action="store_true",
                    help="compile (or look up) the suite's fuse pipelines "
                    "into FUSE_CACHE_DIR on host stand-ins, and exit")
    # run-bench.sh passes BENCH_ARGS, whose other options are bench_fuse's.
    args, rest = ap.parse_known_args(argv)
    if rest:
        print("extra_suite: ignored (bench_fuse's options): %s"
              % " ".join(rest))
    unknown = set(args.only or ()) - set(DTYPE)
    if unknown:
        ap.error("unknown workload(s): %s (--list names them)"
                 % ", ".join(sorted(unknown)))
    return args


# ---- the GPU side (torch, the benches, cuda.compute) ------------------------
# Imported by load() only: the records above need none of it.

torch = np = et = rb = hb = wb = rc = workloads = None


def load():
    """Imports the GPU side: event_timing first (it puts python/ and
    test/Python/ on sys.path), then the benches and the checks' modules."""
    global torch, np, et, rb, hb, wb, rc, workloads
    import event_timing as et
    import numpy as np
    import torch
    import half_bench as hb
    import reduce_bench as rb
    import rows_bench as wb
    import combiner_check as rc
    import workloads


def timed(fn, reps):
    """The times of reps calls in microseconds (event_timing's method)."""
    return event_times(fn, reps, torch.cuda)


class Suite:
    """Runs the workloads, keeps their records, writes them as they come."""

    def __init__(self, args):
        self.args = args
        self.recs = []
        self.ok = True
        self.out = open(args.out, "w") if args.out else None
        self.gpu = torch.cuda.get_device_name()
        self.compile_s = {}
        self.cc = None
        self.cc_why = None

    def want(self, workload):
        return not self.args.only or workload in self.args.only

    def emit(self, rec):
        self.recs.append(rec)
        if self.out:
            self.out.write(json.dumps(rec) + "\n")
            self.out.flush()

    def compiler(self, fn):
        """torch.compile of fn (event_timing.compiled: None when it does
        not compile), its first call's time kept for the record."""
        if self.args.skip_torch:
            return None
        t0 = time.perf_counter()
        c = et.compiled(fn)
        if c is not None:
            torch.cuda.synchronize()
            self.compile_s[id(c)] = round(time.perf_counter() - t0, 3)
        return c

    def cuda_compute(self):
        """(cupy, cuda.compute), or None with the reason kept."""
        if self.cc is None and self.cc_why is None:
            try:
                import cupy
                import cuda.compute
                self.cc = (cupy, cuda.compute)
            except Exception as e:  # noqa: BLE001 (a peer that is absent)
                self.cc_why = "cuda.compute: not available (%s: %s)" % (
                    type(e).__name__, e)
                print(self.cc_why, flush=True)
        return self.cc

    def peer(self, build, *inputs):
        """cuda.compute's run function from build(cp, cc, *inputs), or the
        reason it is missing (a string)."""
        mods = self.cuda_compute()
        if mods is None:
            return self.cc_why
        try:
            return build(*mods, *inputs)
        except Exception as e:  # noqa: BLE001 (an API that moved)
            why = "cuda.compute: %s failed (%s: %s)" % (
                build.__name__.lstrip("_"), type(e).__name__, e)
            print(why, flush=True)
            return why

    def run(self, workload, nbytes, impls, check):
        """Checks and times every (impl, fn): fn None or a string (the
        reason) is a peer not measured, and so is a peer that raises; fuse
        raising, or any result failing its check, is a failure."""
        for impl, fn in impls:
            if fn is None or isinstance(fn, str):
                why = fn or ("not run (--skip-torch)" if self.args.skip_torch
                             else "torch.compile failed (see the log)")
                self.emit(skipped(workload, impl, why))
                continue
            try:
                good = bool(check("%s %s" % (workload, impl), fn()))
                ts = timed(fn, self.args.reps)
            except Exception as e:  # noqa: BLE001 (recorded, see below)
                why = "%s: %s" % (type(e).__name__, e)
                if impl != "fuse":
                    # A peer that cannot run here is missing, not wrong.
                    print("%s %s: raised %s" % (workload, impl, why),
                          flush=True)
                    self.emit(skipped(workload, impl, "raised " + why))
                    continue
                print("FAIL %s %s: %s" % (workload, impl, why), flush=True)
                self.ok = False
                self.emit(failed(workload, impl, why, self.gpu))
                continue
            self.ok &= good
            extra = None
            if impl == "torch-compile" and id(fn) in self.compile_s:
                extra = {"compile_s": self.compile_s[id(fn)]}
            self.emit(record(workload, impl, ts, nbytes, good, self.gpu,
                             extra))

    def bench_case(self, c, cub=None):
        """One case of half_bench/rows_bench: its implementations (the
        per-case copy left out), then cuda.compute's (cub: a run function
        or the reason it is missing)."""
        impls = []
        for name, fn in c["impls"]:
            impl = impl_name(name)
            if impl is None or (self.args.skip_torch and
                                impl.startswith("torch")):
                if impl is not None:
                    impls.append((impl, None))
                continue
            impls.append((impl, fn))
        if cub is not None:
            impls.append(("cuda.compute", cub))
        self.run(c["key"], c["nbytes"], impls, c["check"])

    def torch_peers(self, eager):
        """[("torch-eager", eager), ("torch-compile", its compile)];
        eager None: torch has no such operation."""
        if eager is None:
            why = "torch has no such operation"
            return [("torch-eager", why), ("torch-compile", why)]
        if self.args.skip_torch:
            return [("torch-eager", None), ("torch-compile", None)]
        return [("torch-eager", eager),
                ("torch-compile", self.compiler(eager))]


# ---- CUB through cuda.compute ------------------------------------------------
# Each builder returns the function that runs CUB once (its objects,
# temporary storage and outputs made once) and returns the result in the
# shape the case's check takes.

def _arg_op(largest):
    """The argmax (argmin) of (index, value) pairs: the first NaN, else
    the largest (smallest) value, ties to the lower index: commutative,
    as CUB's DeviceReduce requires."""
    def op(p, q):
        pv = p[1]
        qv = q[1]
        pn = pv != pv
        qn = qv != qv
        if pn and qn:
            return p if p[0] <= q[0] else q
        if pn:
            return p
        if qn:
            return q
        if (pv > qv) if largest else (pv < qv):
            return p
        if (qv > pv) if largest else (qv < pv):
            return q
        return p if p[0] <= q[0] else q
    op.__name__ = "argmax_op" if largest else "argmin_op"
    return op


def _reduce(cp, cc, d_in, d_out, op, h_init, n):
    red = cc.make_reduce_into(d_in=d_in, d_out=d_out, op=op, h_init=h_init)
    call = dict(d_in=d_in, d_out=d_out, num_items=n, op=op, h_init=h_init)
    temp = cp.empty(max(red(temp_storage=None, **call), 1), dtype=cp.uint8)

    def run():
        red(temp_storage=temp, **call)
    return run


def _argextreme(cp, cc, x, largest):
    n = x.numel()
    pairs = cc.ZipIterator(cc.CountingIterator(np.int64(0)), cp.asarray(x))
    idx, val = cp.empty(1, dtype=cp.int64), cp.empty(1, dtype=cp.float32)
    h_init = np.zeros(1, dtype=pairs.value_type.dtype)
    names = h_init.dtype.names
    h_init[names[0]] = np.iinfo(np.int64).max
    h_init[names[1]] = -np.inf if largest else np.inf
    go = _reduce(cp, cc, pairs, cc.ZipIterator(idx, val), _arg_op(largest),
                 h_init, n)

    def run():
        go()
        return idx
    return run


def _argmax(cp, cc, x):
    return _argextreme(cp, cc, x, True)


def _argmin(cp, cc, x):
    return _argextreme(cp, cc, x, False)


def _minmax_op(p, q):
    return min(p[0], q[0]), max(p[1], q[1])


def _minmax(cp, cc, y):
    dy = cp.asarray(y)
    pairs = cc.ZipIterator(dy, dy)
    lo, hi = cp.empty(1, dtype=cp.float32), cp.empty(1, dtype=cp.float32)
    h_init = np.zeros(1, dtype=pairs.value_type.dtype)
    names = h_init.dtype.names
    h_init[names[0]], h_init[names[1]] = np.inf, -np.inf
    go = _reduce(cp, cc, pairs, cc.ZipIterator(lo, hi), _minmax_op, h_init,
                 y.numel())

    def run():
        go()
        return lo, hi
    return run


def _max(cp, cc, y):
    out = cp.empty(1, dtype=cp.float32)
    go = _reduce(cp, cc, cp.asarray(y), out, cc.OpKind.MAXIMUM,
                 np.array([-np.inf], np.float32), y.numel())

    def run():
        go()
        return out
    return run


def _compose_op(acc, e):
    """(A, B) then (a, b): y -> a * (A * y + B) + b, mod 2^32."""
    return e[0] * acc[0], e[0] * acc[1] + e[1]


def _scan(cp, cc, d_in, d_out, op, n):
    sc = cc.make_inclusive_scan(d_in=d_in, d_out=d_out, op=op,
                                init_value=None)
    call = dict(d_in=d_in, d_out=d_out, op=op, init_value=None, num_items=n)
    temp = cp.empty(max(sc(temp_storage=None, **call), 1), dtype=cp.uint8)

    def run():
        sc(temp_storage=temp, **call)
    return run


def _affine_scan(cp, cc, a, b):
    n = a.numel()
    da = cp.asarray(a.view(torch.int32)).view(cp.uint32)
    db = cp.asarray(b.view(torch.int32)).view(cp.uint32)
    oa, ob = cp.empty(n, dtype=cp.uint32), cp.empty(n, dtype=cp.uint32)
    go = _scan(cp, cc, cc.ZipIterator(da, db), cc.ZipIterator(oa, ob),
               _compose_op, n)

    def run():
        go()
        return oa, ob
    return run


def _square(v):
    return v * v


def _cumsum(cp, cc, xs):
    out = cp.empty(xs.numel(), dtype=cp.float32)
    view = torch.as_tensor(out, device="cuda")
    go = _scan(cp, cc, cc.TransformIterator(cp.asarray(xs), _square), out,
               cc.OpKind.PLUS, xs.numel())

    def run():
        go()
        return view
    return run


def _square_f32(v):
    w = np.float32(v)
    return w * w


def _sumsq(cp, cc, x):
    out = cp.empty(1, dtype=cp.float32)
    view = torch.as_tensor(out, device="cuda").reshape(())
    go = _reduce(cp, cc, cc.TransformIterator(cp.asarray(x), _square_f32),
                 out, cc.OpKind.PLUS, np.array([0], np.float32), x.numel())

    def run():
        go()
        return view
    return run


def _chain_op(v):
    """half_check.chain in float32, rounded once to the element type."""
    w = np.float32(v)
    return max(w * np.float32(1.5) + np.float32(0.25), np.float32(0)) * \
        np.float32(0.5) + w


def _chain(cp, cc, x):
    dx = cp.asarray(x)
    out = cp.empty_like(dx)
    view = torch.as_tensor(out, device="cuda")
    tr = cc.make_unary_transform(d_in=dx, d_out=out, op=_chain_op)
    n = x.numel()

    def run():
        tr(d_in=dx, d_out=out, op=_chain_op, num_items=n)
        return view
    return run


NO_BF16 = "cuda.compute has no bfloat16 (numba's types)"
NO_ALGO = "CUB has no such algorithm"


# ---- the workloads -----------------------------------------------------------

def copies(s):
    """copy_f32, copy_bf16, copy_f16: a clone and a copy_ of 2^28
    elements (bytes read and written)."""
    for dt, key in ((torch.float32, "copy_f32"), (torch.bfloat16, "copy_bf16"),
                    (torch.float16, "copy_f16")):
        if not s.want(key):
            continue
        x = torch.rand(N, device="cuda").to(dt)
        out = torch.empty_like(x)

        def same(name, got, x=x):
            if not torch.equal(got, x):
                print("MISMATCH %s" % name)
                return False
            return True
        s.run(key, 2 * x.numel() * x.element_size(), [
            ("torch-clone", lambda x=x: x.clone()),
            ("torch-copy_", lambda x=x, out=out: out.copy_(x))], same)
        del x, out
        torch.cuda.empty_cache()


def reductions(s):
    """reduce_bench.py's cases, the built-in max a workload of its own
    (on the NaN-free y, so that every peer's NaN rule agrees)."""
    keys = ["argmax_f32", "argmin_f32", "minmax_f32", "max_f32",
            "affine_reduce_u32", "affine_scan_u32", "cumsum_f32"]
    if any(s.want(k) for k in keys):
        _reductions(s)      # its arrays freed on return
        torch.cuda.empty_cache()


def _reductions(s):
    d = rb.inputs()
    x, x_np, y, y_np, a, b, xs = (d[k] for k in (
        "x", "x_np", "y", "y_np", "a", "b", "xs"))
    # (workload, bytes, fuse's function, its arguments, torch's eager
    # call or None, cuda.compute's builder or why there is none, the
    # check: made when the workload runs, its reference with it)
    cases = [
        ("argmax_f32", N * 4, rc.argmax, (x,), lambda: torch.argmax(x),
         _argmax, lambda: rb.expect([int(np.argmax(x_np))])),
        ("argmin_f32", N * 4, rc.argmin, (x,), lambda: torch.argmin(x),
         _argmin, lambda: rb.expect([int(np.argmin(x_np))])),
        ("minmax_f32", N * 4, rc.minmax, (y,),
         lambda: tuple(torch.aminmax(y)), _minmax,
         lambda: rb.expect([float(y_np.min()), float(y_np.max())])),
        ("max_f32", N * 4, rc.builtin_max, (y,), lambda: torch.amax(y),
         _max, lambda: rb.expect([float(y_np.max())])),
        ("affine_reduce_u32", N * 4, rc.affine, (a, b), None,
         "CUB's DeviceReduce does not take non-commutative operators",
         lambda: rb.expect([int(v) for v in rc.affine_ref(d["a_np"],
                                                          d["b_np"])])),
        ("affine_scan_u32", N // 2 * 16, rc.affine_scan, (a, b), None,
         _affine_scan, lambda: rb.expect_scan(*rc.affine_scan_ref(
             d["a_np"], d["b_np"]))),
        ("cumsum_f32", N // 2 * 8, workloads.jit_scan, (xs,),
         lambda: torch.cumsum(xs * xs, 0), _cumsum,
         lambda: rb.expect_last_prefix(float((xs.double() ** 2).sum()))),
    ]
    for key, nbytes, fuse_fn, args, eager, cub, check in cases:
        if not s.want(key):
            continue
        impls = [("fuse", lambda f=fuse_fn, a=args: f(*a))]
        impls += s.torch_peers(eager)
        impls.append(("cuda.compute",
                      s.peer(cub, *args) if callable(cub) else cub))
        s.run(key, nbytes, impls, check())


def halves(s):
    """half_bench.py's cases; cuda.compute on float16 sumsq and chain."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    cubs = {"sumsq": _sumsq, "chain": _chain}
    for dt, name, eps in hb.DTYPES:
        if not any(s.want(k + "_" + name) for k in
                   ("sumsq", "chain", "softmax_rows")):
            continue
        for c in hb.cases(dt, name, eps, gen, s.compiler):
            if not s.want(c["key"]):
                continue
            kind = c["key"][:-len(name) - 1]
            if kind not in cubs:
                cub = NO_ALGO
            elif name == "bf16":
                cub = NO_BF16
            else:
                cub = s.peer(cubs[kind], c["inputs"]["x"])
            s.bench_case(c, cub)
        torch.cuda.empty_cache()


def rows(s):
    """rows_bench.py's cases (no CUB peer: it has no row softmax or layer
    norm, nor a strided column reduction)."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    for dt, name, eps in wb.DTYPES:
        if not any(s.want(k + "_" + name) for k in
                   ("layernorm_rows", "softmax_rank3")):
            continue
        for c in wb.cases(dt, name, eps, gen, s.compiler):
            if s.want(c["key"]):
                s.bench_case(c, NO_ALGO)
        torch.cuda.empty_cache()
    # Column statistics: torch has no single call for the three (no CUB
    # peer either: its segmented reduce takes segments, not strides).
    for c in wb.column_cases(gen, s.compiler):
        if s.want(c["key"]):
            s.bench_case(c, NO_ALGO)
        torch.cuda.empty_cache()


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for w, t, what in WORKLOADS:
            print("%-20s %-5s %s" % (w, t, what))
        return 0
    if args.prepare:
        return prepare()
    load()
    s = Suite(args)
    print("extra_suite: %s, the median of %d calls a measurement"
          % (s.gpu, args.reps), flush=True)
    for part in (copies, reductions, halves, rows):
        part(s)
    if s.out:
        s.out.close()
    print()
    print(summary(s.recs))
    return 0 if s.ok else 1


if __name__ == "__main__":
    sys.exit(main())
