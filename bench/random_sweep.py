#!/usr/bin/env python3
"""A random-pipeline performance sweep (issue 33): fuse against
torch.compile of the same program, over programs of
scripts/gen-pipelines.py at 2^26 elements. It measures generality, not
tuning: the programs are whatever the generator draws.

  random_sweep.py check A:B [--gpu] [--classic] [--sized]   (CPU torch)
      Runs scripts/pipeline_torch.py's translation of each seed's program
      on its inputs and compares with the generator's NumPy evaluation
      (gen-pipelines' compare: its tolerance rule); --sized gives the data
      inputs scripts/gpu/differential.py's tile-boundary sizes. Prints the
      counts and the untranslatable reasons; exits 1 on a mismatch.
  random_sweep.py prepare --out DIR [--count N] [--start S] [--jobs J]
                          [--resume]
      (CPU machine; scripts/gpu/prepare-sweep.sh) For seeds S, S+1, ...
      until N programs are kept: the program in the generator's GPU mode
      with every data input at 2^26 elements (1-D 2^26, 2-D 8192x8192,
      3-D 64x1024x1024), kept when translatable and non-trivial (one op
      streams a value of >= 2^20 elements) and fuse-compile --emit=shared
      takes it: DIR/seedN/{prog.mlir,prog.so,prog.json,torch.py,meta.json}.
      Inputs are not stored (GiBs): meta.json holds, per argument, the
      generator's random state before it drew the argument and the draw's
      parameters (the device redraws the same array, checked by a CRC of
      a sample), and per result its dtype, shape, tolerance inputs (exact,
      scale, prec) and 64 sampled reference values. DIR/gen-pipelines.py:
      the generator the inputs are drawn again with. DIR/summary.json: the
      seeds kept, the counts and reasons of the others; DIR/prepare.jsonl
      one line a seed (--resume goes on after the last).
  random_sweep.py recompile DIR [--jobs J] [--fuse-compile FC]
      (CPU machine) Every kept program's prog.so and prog.json again from
      its prog.mlir (the inputs and samples do not depend on the
      compiler; a result count other than meta.json's fails).
  random_sweep.py warm DIR --state S [--jobs J] [--deadline T]   (GPU)
      torch.compile of each program in J processes (GPUs round-robin),
      filling the Inductor/Triton caches under S before anything is timed.
  random_sweep.py run DIR --runtime LIB --state S [--shard K/N]
                      [--reps R] [--deadline T] [--only S,S]     (GPU)
      Per program: redraw the inputs, call prog.so's entry through the
      runtime's C ABI (as scripts/gpu/differential.py does, on device
      buffers that torch allocated), run torch eager and torch.compile of
      torch.py, check fuse and torch.compile against torch eager (the
      generator's rule, or differential.py's GPU one; fuse's mismatch is a
      failure, not a timing; where only torch.compile's result is off,
      fuse passes and is timed against eager alone, "PEER" in the
      report, outside the ratios; the reference samples say which side is
      off), then time each (CUDA events, median of R after 3 warm-up
      calls). One JSON line per program in S/results*.jsonl; a program
      already there is skipped (a later call resumes).
  random_sweep.py run DIR --dry [--runtime LIB] [--limit K] [--execute K]
      No GPU: every program's files, translation, manifest sizes and
      (with LIB and torch) its entry called with host buffers, which must
      pass the size checks and stop at fuse_init (no device); the first
      --limit programs' inputs drawn again; the first --execute run on
      fuse-run (the CPU backend), CPU torch eager and torch.compile at
      full size, checked as on the GPU.
  random_sweep.py report S [--dir DIR] [--causes FILE.json]
      One line per program (seed, MB moved, fuse/eager/compile us,
      compile/fuse ratio, ops), the ratio's distribution (min p10 median
      p90 max), the 5 lowest with their ops and hints, the targets (median
      >= 1.2x, none below 0.9x), then `N passed, N failed`.
torch.compile runs with emulate_precision_casts: fuse rounds every f16/bf16
op to the type, and Inductor would otherwise keep fused intermediates in
f32 (a different program).
"""
import argparse
import collections
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# appended, not first: scripts/doctest.py must not hide the standard one
# from whatever imports this module
sys.path += [os.path.join(ROOT, "scripts"), os.path.join(ROOT, "scripts",
                                                         "gpu")]
import pipeline_torch as pt  # noqa: E402
from fuse_entry import (TORCH_DT, FuseEntry,  # noqa: E402
                        load_runtime, size_env, size_of)

N26 = 1 << 26
SIZES = (N26, (8192, 8192), (64, 1024, 1024))   # 2^26 elements each rank
LARGE = 1 << 20     # a value this large makes an op non-trivial
SAMPLES = 64        # reference values kept per result


# -- arrays between the generator, torch and NumPy ----------------------------
def torch_args(gp, args, torch, device="cpu"):
    """The generator's arguments (Vals) as a program's arguments: tensors
    (unsigned data as the signed dtype of its width, bf16 through its
    bits) and Python ints for index scalars."""
    out = []
    for v in args:
        if v.kind == "scalar":
            out.append(int(v.arr))
            continue
        a = np.asarray(gp.file_array(v), order="C")  # 0-d stays 0-d
        t = torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) \
            if v.dt == "bf16" else torch.from_numpy(a)
        out.append(t.to(device))
    return out


def to_numpy(gp, t, dt):
    """A result tensor as the generator's NumPy dtype for dt."""
    import torch
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:  # NumPy has no bf16: through its bits
        return t.view(torch.int16).numpy().view(gp.BF16)
    a = t.numpy()
    return a.view(gp.NP[dt]) if dt in gp.UINTS else a


# -- check: translations on CPU torch against the NumPy reference -------------
def check(args):
    import torch
    gp = pt.load_gen()
    lo, hi = (int(x) for x in args.seeds.split(":"))
    reasons, bad, n = collections.Counter(), [], 0
    if args.sized:
        import differential
    for seed in range(lo, hi):
        g = differential.sized_gen(gp, seed) if args.sized else \
            gp.Gen(seed, gpu=args.gpu, classic=args.classic)
        text, outs = g.build()
        tr = pt.translate(text, f"gen-pipelines seed {seed}")
        if tr.source is None:
            reasons[tr.reason] += 1
            continue
        n += 1
        try:
            res = pt.load(tr.source, torch)(*torch_args(gp, g.args, torch))
            errs = [gp.compare(to_numpy(gp, r, v.dt), v, f"result{i}")
                    for i, (r, v) in enumerate(zip(res, outs))]
            errs = [e for e in errs if e]
        except Exception as e:  # noqa: BLE001 (a failing seed is reported)
            errs = [f"{type(e).__name__}: {e}"]
        if errs:
            bad.append(seed)
            print(f"MISMATCH seed {seed}: {errs[0]}")
    print(f"{hi - lo} programs: {n} translated, {n - len(bad)} match the "
          f"NumPy reference, {len(bad)} do not{': ' if bad else ''}"
          f"{' '.join(map(str, bad))}")
    for r, k in reasons.most_common():
        print(f"  untranslatable {k:4d} x {r}")
    return 1 if bad else 0


# -- prepare (CPU machine) ----------------------------------------------------
def crc(a):
    """A checksum of a sample of array a (and its dtype and shape): the
    redrawn inputs must be the prepared ones."""
    a = np.asarray(a)
    head = f"{a.dtype.str}{a.shape}".encode()
    return zlib.crc32(np.ascontiguousarray(a.reshape(-1)[::4099]).tobytes(),
                      zlib.crc32(head))


def sizes_of(j):
    return (j[0], tuple(j[1]), tuple(j[2]))


def recording_gen(gp, seed, sizes):
    """The generator for seed (GPU mode, data inputs at `sizes`) with each
    tensor argument's draw recorded: its random state before the draw and
    make_input's parameters, enough to draw the same array again."""
    g = gp.Gen(seed, gpu=True, sizes=sizes)
    draws, make = {}, g.make_input

    def make_input(dt, shape, static, kind="data"):
        st = g.r.getstate()
        v = make(dt, shape, static, kind)
        draws[v.name] = {"state": [st[0], list(st[1]), st[2]], "call": [
            dt, list(shape),
            static if isinstance(static, bool) else list(static), kind]}
        return v
    g.make_input = make_input
    return g, draws


def redraw(gp, meta):
    """The program's arguments drawn again from meta.json's records (Vals,
    as the generator made them), each checked against its CRC."""
    g = gp.Gen(meta["seed"], gpu=True, sizes=sizes_of(meta["sizes"]))
    for a in meta["args"]:
        if a["kind"] == "scalar":
            g.make_scalar(a["value"])
            continue
        st, (dt, shape, static, kind) = a["draw"]["state"], a["draw"]["call"]
        g.r.setstate((st[0], tuple(st[1]), st[2]))
        v = g.make_input(dt, tuple(shape), static if isinstance(
            static, bool) else tuple(static), kind)
        if crc(v.arr) != a["crc"]:
            raise RuntimeError(f"{v.name} drawn again differs from the "
                               "prepared one (gen-pipelines changed since "
                               "prepare-sweep.sh?)")
    return g.args


def samples(shape):
    """Up to SAMPLES evenly spaced positions of a flattened result."""
    n = int(np.prod(shape))
    return np.unique(np.linspace(0, n - 1, min(n, SAMPLES)).astype(np.int64))


def result_meta(gp, v, filt):
    a = np.asarray(v.arr)
    vals = a.reshape(-1)[samples(a.shape)]
    vals = vals.astype(np.float64) if v.dt in gp.ALL_FLOATS else vals
    return {"dt": v.dt, "shape": list(a.shape), "exact": bool(v.exact),
            "scale": float(v.scale), "prec": v.prec or v.dt,
            "filter": bool(filt), "samples": vals.tolist()}


_GP = None


def prepare_seed(job):
    """One seed (in a worker process): (seed, status, detail)."""
    global _GP
    seed, out, fc = job
    _GP = _GP or folder_gen(out)
    import differential
    g, draws = recording_gen(_GP, seed, SIZES)
    text, outs = g.build()
    try:
        tr = pt.translate(text, f"gen-pipelines seed {seed}")
    except Exception as e:  # noqa: BLE001 (counted, not fatal)
        return seed, "translator error", f"{type(e).__name__}: {e}"
    if tr.source is None:
        return seed, "untranslatable", tr.reason
    size = {v.name[1:]: v.arr.size for v in g.args + g.pool}
    if not any(size.get(n, 0) >= LARGE for _, names in tr.ops
               for n in names):
        return seed, "trivial", "no op streams >= 2^20 elements"
    d = os.path.join(out, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "prog.mlir"), "w") as f:
        f.write(text)
    p = subprocess.run([fc, os.path.join(d, "prog.mlir"), "--prefix=fx_",
                        "--emit=shared", "-o", os.path.join(d, "prog")],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        subprocess.run(["rm", "-rf", d])
        return seed, "rejected by fuse-compile", differential.first_error(
            p.stderr or p.stdout).replace(d + "/", "")
    with open(os.path.join(d, "prog.json")) as f:
        res = json.load(f)["entries"][0]["results"]
    args = [{"kind": "scalar", "value": int(v.arr)} if v.kind == "scalar"
            else {"kind": "tensor", "dt": v.dt, "shape": list(v.arr.shape),
                  "draw": draws[v.name], "crc": crc(v.arr)} for v in g.args]
    meta = {"seed": seed, "sizes": SIZES, "ops": [o for o, _ in tr.ops],
            "args": args, "results": [result_meta(_GP, v, r.get("filter"))
                                      for v, r in zip(outs, res)]}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f)
    with open(os.path.join(d, "torch.py"), "w") as f:
        f.write(tr.source)
    return seed, "ok", ", ".join(meta["ops"])


def prepare(args):
    import hashlib
    import multiprocessing as mp
    import shutil
    out = os.path.abspath(args.out)
    log = os.path.join(out, "prepare.jsonl")
    kept, left = [], collections.defaultdict(collections.Counter)
    first = args.start
    if args.resume and os.path.exists(log):   # go on after the last seed
        with open(log) as f:
            for r in map(json.loads, f):
                if r["status"] != "ok":
                    left[r["status"]][r["detail"]] += 1
                elif os.path.exists(os.path.join(out, f"seed{r['seed']}",
                                                 "torch.py")):
                    kept.append(r["seed"])
                first = r["seed"] + 1
    else:
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        # the generator as it is now, which the device draws the inputs
        # with: the folder stays usable whatever later commits do to it
        shutil.copy(os.path.join(ROOT, "scripts", "gen-pipelines.py"), out)
    fc = os.path.abspath(args.fuse_compile)
    jobs = ((s, out, fc) for s in range(first, first + 4 * args.count))
    pool = mp.get_context("fork").Pool(args.jobs, maxtasksperchild=1)
    for seed, status, detail in pool.imap(prepare_seed, jobs) \
            if len(kept) < args.count else ():
        print(f"{'ok  ' if status == 'ok' else 'skip'} seed{seed} "
              f"({status}): {detail}", flush=True)
        with open(log, "a") as f:
            f.write(json.dumps({"seed": seed, "status": status,
                                "detail": detail}) + "\n")
        if status == "ok":
            kept.append(seed)
            if len(kept) == args.count:
                break
        else:
            left[status][detail] += 1
    pool.terminate()
    for d in glob.glob(os.path.join(out, "seed*")):  # workers ran ahead
        if int(os.path.basename(d)[4:]) not in kept:
            shutil.rmtree(d)
    gen = os.path.join(ROOT, "scripts", "gen-pipelines.py")
    with open(gen, "rb") as f:
        gen_sha = hashlib.sha1(f.read()).hexdigest()
    summary = {"kept": len(kept), "seeds": kept, "examined":
               kept[-1] - args.start + 1 if kept else 0, "start": args.start,
               "left_out": {k: dict(v) for k, v in left.items()},
               "sizes": SIZES, "gen_pipelines_sha1": gen_sha}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"{len(kept)} programs kept of {summary['examined']} seeds from "
          f"{args.start}; left out: " + ", ".join(
              f"{sum(v.values())} {k}" for k, v in left.items()))
    for k, v in left.items():
        for why, n in v.most_common():
            print(f"  {n:4d} x {k}: {why}")
    return 0 if len(kept) == args.count else 1


def recompile_seed(job):
    """fuse-compile of one kept program again: (seed, error or None)."""
    d, fc = job
    p = subprocess.run([fc, os.path.join(d, "prog.mlir"), "--prefix=fx_",
                        "--emit=shared", "-o", os.path.join(d, "prog")],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return d, (p.stderr or p.stdout).strip().splitlines()[:1]
    with open(os.path.join(d, "prog.json")) as f:
        res = json.load(f)["entries"][0]["results"]
    with open(os.path.join(d, "meta.json")) as f:
        want = len(json.load(f)["results"])
    return d, None if len(res) == want else [
        f"{len(res)} results, meta.json has {want}"]


def recompile(args):
    """Every kept program of DIR compiled again by --fuse-compile (the
    inputs and reference samples do not depend on the compiler): a folder
    prepared once follows the compiler in seconds a program."""
    import multiprocessing as mp
    out = os.path.abspath(args.dir)
    with open(os.path.join(out, "summary.json")) as f:
        seeds = json.load(f)["seeds"]
    fc = os.path.abspath(args.fuse_compile)
    jobs = [(os.path.join(out, f"seed{s}"), fc) for s in seeds]
    bad = 0
    with mp.get_context("fork").Pool(args.jobs) as pool:
        for d, err in pool.imap(recompile_seed, jobs):
            if err:
                bad += 1
                print(f"FAIL {os.path.basename(d)}: {err[0] if err else ''}")
    print(f"recompiled: {len(jobs) - bad} passed, {bad} failed")
    return 1 if bad else 0


# -- checking results (gen-pipelines' rule) -----------------------------------
def close_on_device(gp, a, b, r):
    """gen-pipelines' compare rule on the device (a got, b reference):
    a True here is final; a False goes to compare itself on the host."""
    import torch
    if a.dtype != b.dtype:
        return False
    if r["dt"] not in gp.ALL_FLOATS:
        return torch.equal(a, b)
    x, y, prec = a.double(), b.double(), r["prec"]
    if r["exact"]:
        if bool(((x == y) | (torch.isnan(x) & torch.isnan(y))).all()):
            return True
        return bool(torch.isclose(x, y, rtol=4 * float(gp.EPS[prec]),
                                  atol=0.0, equal_nan=True).all())
    tol = float(gp.RTOL[prec])
    return bool(torch.isclose(x, y, rtol=tol, atol=tol * max(r["scale"], 1),
                              equal_nan=True).all())


def disagree(gp, got, ref, results, what):
    """None if every result of got matches ref's by gen-pipelines' rule or
    by scripts/gpu/differential.py's GPU-against-CPU rule (which allows
    a GPU's contracted multiply-adds and approximate sqrt in values the
    generator marks exact), else the first difference."""
    import differential
    for i, (a, b, r) in enumerate(zip(got, ref, results)):
        if tuple(a.shape) != tuple(b.shape):
            return f"{what}: result{i} shape {tuple(a.shape)} vs " \
                f"{tuple(b.shape)}"
        if close_on_device(gp, a, b, r):
            continue
        x, y = to_numpy(gp, a, r["dt"]), to_numpy(gp, b, r["dt"])
        m = gp.compare(x, gp.Val("", r["dt"], (), y, r["exact"], r["scale"],
                                 prec=r["prec"]), f"{what}: result{i}")
        if m and differential.compare_one(
                dict(r, dtype=r["dt"]), x, y)[0] is not None:
            return m
    return None


def off_samples(gp, got, results, what):
    """None if got's shapes and sampled values match the generator's
    reference (meta.json), else the first difference."""
    for i, (a, r) in enumerate(zip(got, results)):
        if list(a.shape) != r["shape"]:
            return f"{what}: result{i} shape {list(a.shape)}, reference " \
                f"{r['shape']}"
        # floats went to JSON as f64, integers as Python ints (exactly:
        # through object, not a float64 that a mixed list would give)
        ref = np.asarray(r["samples"], np.float64 if r["dt"] in
                         gp.ALL_FLOATS else object).astype(gp.NP[r["dt"]])
        g = to_numpy(gp, a, r["dt"]).reshape(-1)[samples(r["shape"])]
        v = gp.Val("", r["dt"], (), ref, r["exact"], r["scale"],
                   prec=r["prec"])
        m = gp.compare(g, v, f"{what}: result{i} (sampled)")
        if m:
            return m
    return None


# -- run (GPU machine) --------------------------------------------------------
def setup_torch():
    """torch with Inductor keeping every f16/bf16 rounding the program
    asks for (fuse rounds each op; without this Inductor fuses ops in
    f32 and the compiled program is another one)."""
    import torch
    import torch._inductor.config as inductor
    try:
        inductor.emulate_precision_casts = True
    except AttributeError:  # an older torch: f16/bf16 programs may differ
        print("note: this torch has no emulate_precision_casts")
    return torch


def folder_gen(d):
    """The generator copy prepare left in folder d (else today's)."""
    p = os.path.join(d, "gen-pipelines.py")
    return pt.load_gen(p if os.path.exists(p) else None)


def programs(d, only=None):
    """The prepared programs' folders (only: "S,S,...", those seeds)."""
    with open(os.path.join(d, "summary.json")) as f:
        seeds = json.load(f)["seeds"]
    if only:
        seeds = [s for s in seeds if str(s) in only.split(",")]
    return [os.path.join(d, f"seed{s}") for s in seeds]


def load_meta(d):
    with open(os.path.join(d, "meta.json")) as f:
        return json.load(f)


def prepared_inputs(gp, torch, d):
    """(meta, torch arguments on the GPU, the torch program);
    SWEEP_DEVICE=cpu: on the CPU (to try the warm phase without a GPU)."""
    meta = load_meta(d)
    dev = os.environ.get("SWEEP_DEVICE", "cuda")
    targs = torch_args(gp, redraw(gp, meta), torch, dev)
    if dev == "cuda":
        torch.cuda.synchronize()  # the copies, before another stream's work
    with open(os.path.join(d, "torch.py")) as f:
        return meta, targs, pt.load(f.read(), torch)


def checked(gp, meta, fz, eager, comp):
    """(status, why): "pass" when fuse and torch.compile agree with torch
    eager; "fail" when fuse does not; "compile-wrong" when only
    torch.compile does not (a peer's wrong answer: fuse is timed against
    torch eager alone). The why names the side the generator's reference
    samples disagree with."""
    res = meta["results"]
    status, why = "fail", disagree(gp, fz, eager, res, "fuse vs torch eager")
    if not why:
        status = "compile-wrong"
        why = disagree(gp, comp, eager, res, "torch.compile vs torch eager")
    if not why:
        return "pass", None
    for side, r in (("fuse", fz), ("torch eager", eager)):
        m = off_samples(gp, r, res, side)
        why += f"; {side} vs the reference: {m or 'agrees'}"
    return status, why


def run_program(d, gp, torch, rt, stream, reps):
    """One program: checked, then timed. Returns its record."""
    from event_timing import median_us
    meta, targs, fn = prepared_inputs(gp, torch, d)
    rec = {"seed": meta["seed"], "ops": meta["ops"]}
    with torch.cuda.stream(stream):
        entry = FuseEntry(d, targs, torch, stream, rt)
        stage = "fuse"
        try:
            entry()
            fz = entry.results()
            stage = "torch eager"
            eager = list(fn(*targs))
            stage = "torch.compile"
            comp, t0 = torch.compile(fn), time.time()
            cres = list(comp(*targs))
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 (a failure of this program)
            rec.update(status="fail", why=f"{stage}: {type(e).__name__}: "
                       f"{str(e)[:400]}")
            return rec
        rec["compile_s"] = round(time.time() - t0, 2)
        status, why = checked(gp, meta, fz, eager, cres)
        if status == "fail":
            rec.update(status="fail", why=why)
            return rec
        rec["fuse_us"] = median_us(entry, reps)
        rec["eager_us"] = median_us(lambda: fn(*targs), reps)
        if status == "pass":
            rec["compile_us"] = median_us(lambda: comp(*targs), reps)
    rec["bytes"] = sum(t.numel() * t.element_size() for t in targs + fz
                       if not isinstance(t, int))
    rec.update(status=status, **({"why": why} if why else {}))
    return rec


def done_records(state):
    """seed -> its newest record in state/results*.jsonl."""
    recs = {}
    for p in glob.glob(os.path.join(state, "results*.jsonl")):
        with open(p) as f:
            for r in map(json.loads, filter(str.strip, f)):
                if r.get("t", 0) >= recs.get(r["seed"], {}).get("t", 0):
                    recs[r["seed"]] = r
    return recs


def run(args):
    if args.dry:
        return dry(args)
    torch = setup_torch()
    gp, rt = folder_gen(args.dir), load_runtime(args.runtime)
    k, n = (int(x) for x in args.shard.split("/"))
    todo = [d for i, d in enumerate(programs(args.dir, args.only))
            if i % n == k]
    # Programs the warm phase compiled first: an uncompiled one can take
    # minutes of torch.compile (scans of combiner regions), which would
    # spend the call's time on one program.
    warmed = warmed_seeds(args.state)
    todo.sort(key=lambda d: int(os.path.basename(d)[4:]) not in warmed)
    done = done_records(args.state)
    stream = torch.cuda.Stream()
    out = os.path.join(args.state, f"results-{k}.jsonl")
    for d in todo:
        seed = int(os.path.basename(d)[4:])
        if seed in done and not args.only:   # --only: time them again
            continue
        if time.time() > args.deadline:
            print("time budget spent: run again to continue", flush=True)
            return 2
        try:
            rec = run_program(d, gp, torch, rt, stream, max(args.reps, 20))
        except Exception as e:  # noqa: BLE001 (drawing the inputs, OOM)
            rec = {"seed": seed, "ops": load_meta(d)["ops"], "status":
                   "fail", "why": f"{type(e).__name__}: {str(e)[:400]}"}
        rec["t"] = round(time.time(), 1)
        with open(out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(record_line(rec), flush=True)
        torch._dynamo.reset()
        torch.cuda.empty_cache()
        rt.fuse_allocator_trim()
        if rec["status"] == "fail" and re.search(
                r"CUDA error|POISONED|illegal|FUSE_ERROR_LAUNCH", rec["why"]):
            print("a device fault poisons this process: run again to go on")
            return 75
    return 0


# -- warm: torch.compile ahead, in parallel -----------------------------------
def _warm_init(gpus, counter, threads):
    with counter.get_lock():  # this worker's GPU, before torch starts
        os.environ["CUDA_VISIBLE_DEVICES"] = str(counter.value % gpus)
        counter.value += 1
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = str(threads)


def _warm_one(job):
    """torch.compile of one program and a first call (what the timed run
    would compile; the caches keep it). Returns its record."""
    d, deadline = job
    seed = int(os.path.basename(d)[4:])
    if time.time() > deadline:
        return {"seed": seed, "skipped": True}
    torch = setup_torch()
    try:
        t0 = time.time()
        _, targs, fn = prepared_inputs(folder_gen(os.path.dirname(d)),
                                       torch, d)
        torch.compile(fn)(*targs)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return {"seed": seed, "compile_s": round(time.time() - t0, 2)}
    except Exception as e:  # noqa: BLE001 (the timed run reports it)
        return {"seed": seed, "error": f"{type(e).__name__}: {e}"[:300]}
    finally:
        torch._dynamo.reset()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def warmed_seeds(state):
    """The seeds whose torch.compile the warm phase finished (state's
    warm.jsonl)."""
    path = os.path.join(state, "warm.jsonl")
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {json.loads(l)["seed"] for l in f if '"compile_s"' in l}


def warm(args):
    import multiprocessing as mp
    done = done_records(args.state)
    path = os.path.join(args.state, "warm.jsonl")
    warmed = warmed_seeds(args.state)
    todo = [(d, args.deadline) for d in programs(args.dir, args.only)
            if int(os.path.basename(d)[4:]) not in set(done) | warmed]
    ctx = mp.get_context("spawn")
    threads = max(1, (os.cpu_count() or 2) // args.jobs)
    n = 0
    with ctx.Pool(args.jobs, _warm_init, (args.gpus, ctx.Value("i", 0),
                                          threads)) as pool, \
            open(path, "a") as f:
        for rec in pool.imap_unordered(_warm_one, todo):
            f.write(json.dumps(rec) + "\n")
            f.flush()
            n += "compile_s" in rec
    print(f"warm: {n} of {len(todo)} programs compiled "
          f"({len(warmed)} before, {len(done)} already timed)")
    return 0


# -- dry run (no GPU) ---------------------------------------------------------
def dry_program(d, gp, args, k):
    """(problems, notes) of one prepared program, without a GPU."""
    meta = load_meta(d)
    probs, notes = [], []
    with open(os.path.join(d, "torch.py")) as f:
        src = f.read()
    pt.load(src, None)   # compiles and defines `program`
    with open(os.path.join(d, "prog.mlir")) as f:
        if pt.translate(f.read(), f"gen-pipelines seed {meta['seed']}"
                        ).source != src:
            notes.append("torch.py differs from today's translation")
    with open(os.path.join(d, "prog.json")) as f:
        entry = json.load(f)["entries"][0]
    env = size_env(entry, [a["value"] if a["kind"] == "scalar"
                           else a["shape"] for a in meta["args"]])
    for i, (r, m) in enumerate(zip(entry["results"], meta["results"])):
        cap = size_of(r["size"], env)
        if cap != m["shape"] and not (m["filter"] and m["shape"][0] <= cap[0]):
            probs.append(f"result{i}: manifest size {cap}, shape "
                         f"{m['shape']}")
    if args.runtime:
        probs += abi_call(d, gp, meta, args.runtime)
    if k < args.execute:
        probs += cpu_run(d, gp, meta, args.fuse_run)
    elif k < args.limit:
        redraw(gp, meta)
    return probs, notes


def abi_call(d, gp, meta, runtime):
    """FuseEntry's call without a GPU: host buffers of the arguments'
    shapes (never touched: the entry checks sizes first, then stops at
    fuse_init with FUSE_ERROR_NO_DEVICE; a wrong argument layout would
    fail the size checks instead). Without torch: the symbol only."""
    try:
        import torch
    except ImportError:
        return []
    rt = load_runtime(runtime)
    targs = [a["value"] if a["kind"] == "scalar" else torch.empty(
        a["shape"], dtype=getattr(torch, TORCH_DT[gp.mlir(a["dt"])]))
        for a in meta["args"]]
    entry = FuseEntry(d, targs, torch, None, rt, device="cpu")
    st = rt.fuse_status_name(entry.fn(entry.argv)).decode()
    if st == "FUSE_ERROR_NO_DEVICE":
        return []
    return [f"the entry's call: {st}: "
            f"{(rt.fuse_last_error_message() or b'').decode()}"]


def cpu_run(d, gp, meta, fuse_run):
    """The timed run's checks on the CPU: fuse-run (fuse's CPU backend),
    CPU torch eager and torch.compile (Inductor's C++ back end) on the
    inputs drawn again, checked as on the GPU."""
    import tempfile
    import types
    torch = setup_torch()
    with tempfile.TemporaryDirectory() as tmp:
        args = redraw(gp, meta)
        flags = gp.arg_flags(types.SimpleNamespace(args=args), tmp)
        p = subprocess.run([fuse_run, os.path.join(d, "prog.mlir"),
                            "--entry", "main", "--out", tmp] + flags,
                           capture_output=True, text=True)
        if p.returncode != 0:
            return [f"fuse-run: {p.stderr.strip()[-300:]}"]
        fz = [gp.from_file(np.load(os.path.join(tmp, f"result{i}.npy")),
                           r["dt"]) for i, r in enumerate(meta["results"])]
    fz = torch_args(gp, [gp.Val("", r["dt"], (), a, True, 0) for a, r in
                         zip(fz, meta["results"])], torch)
    with open(os.path.join(d, "torch.py")) as f:
        fn = pt.load(f.read(), torch)
    targs = torch_args(gp, args, torch)
    eager = list(fn(*targs))
    comp = list(torch.compile(fn)(*targs))
    torch._dynamo.reset()
    why = checked(gp, meta, fz, eager, comp) or \
        off_samples(gp, eager, meta["results"], "torch eager")
    return [why] if why else []


def dry(args):
    gp = folder_gen(args.dir)
    if args.runtime:
        load_runtime(args.runtime)
    ok = bad = 0
    for k, d in enumerate(programs(args.dir, args.only)):
        try:
            probs, notes = dry_program(d, gp, args, k)
        except Exception as e:  # noqa: BLE001 (reported per program)
            probs, notes = [f"{type(e).__name__}: {e}"], []
        ok, bad = ok + (not probs), bad + bool(probs)
        print(f"{'PASS' if not probs else 'FAIL'} {os.path.basename(d)}: "
              + "; ".join(probs + notes or load_meta(d)["ops"]))
    print(f"dry: {ok} passed, {bad} failed")
    return 1 if bad else 0


# -- report -------------------------------------------------------------------
def ratio(r):
    return r["compile_us"] / r["fuse_us"]


def record_line(r):
    if r["status"] == "compile-wrong":
        return (f"PEER seed{r['seed']}: fuse {r['fuse_us']:.1f} us, torch "
                f"eager {r['eager_us']:.1f} us, torch.compile not timed: "
                f"{r['why']}  [{', '.join(r['ops'])}]")
    if r["status"] != "pass":
        return f"FAIL seed{r['seed']}: {r['why']}  [{', '.join(r['ops'])}]"
    return (f"{r['seed']:>6} {r['bytes'] / 2**20:9.1f} {r['fuse_us']:10.1f} "
            f"{r['eager_us']:10.1f} {r['compile_us']:10.1f} "
            f"{ratio(r):7.2f}x  {', '.join(r['ops'])}")


def hint(r, causes):
    """What the numbers say about a slow program (a recorded cause
    first): bandwidth on the bytes it must move, op kinds that are not
    one streaming pass."""
    gbs = (lambda us: r["bytes"] / us / 1e3)
    h = [causes[str(r["seed"])]] if str(r["seed"]) in causes else []
    h.append(f"fuse {gbs(r['fuse_us']):.0f} GB/s, torch.compile "
             f"{gbs(r['compile_us']):.0f} GB/s on its in+out bytes")
    if r["fuse_us"] < 50:
        h.append("short: launch and latency bound")
    heavy = sorted({o.split()[0] for o in r["ops"]} & {
        "sort", "searchsorted", "histogram", "segmented", "filter", "gather"})
    if heavy:
        h.append("has " + ", ".join(heavy))
    return "; ".join(h)


def report(args):
    recs = sorted(done_records(args.state).values(), key=lambda r: r["seed"])
    causes = {}
    if args.causes and os.path.exists(args.causes):
        with open(args.causes) as f:
            causes = json.load(f)
    head = f"random-pipeline sweep: {len(recs)} programs run"
    if args.dir:
        with open(os.path.join(args.dir, "summary.json")) as f:
            s = json.load(f)
        head += (f" of {s['kept']} prepared (seeds {s['seeds'][0]}.."
                 f"{s['seeds'][-1]}, 2^26 elements); left out at prepare: " +
                 (", ".join(f"{sum(v.values())} {k}" for k, v in
                            s["left_out"].items()) or "none"))
    print(head)
    print(f"{'seed':>6} {'MB':>9} {'fuse us':>10} {'eager us':>10} "
          f"{'compile us':>10} {'compile/fuse':>8}  ops")
    for r in recs:
        print(record_line(r))
    ok = [r for r in recs if r["status"] == "pass"]
    if ok:
        q = np.percentile([ratio(r) for r in ok], [0, 10, 50, 90, 100])
        e = statistics.median(r["eager_us"] / r["fuse_us"] for r in ok)
        print(f"torch.compile / fuse over {len(ok)} programs: min {q[0]:.2f}x"
              f"  p10 {q[1]:.2f}x  median {q[2]:.2f}x  p90 {q[3]:.2f}x  max "
              f"{q[4]:.2f}x  (torch eager / fuse: median {e:.2f}x)")
        print("the 5 lowest:")
        for r in sorted(ok, key=ratio)[:5]:
            print(f"  seed{r['seed']} {ratio(r):.2f}x: {', '.join(r['ops'])}"
                  f"\n    {hint(r, causes)}")
        low = [r["seed"] for r in ok if ratio(r) < 0.9]
        print(f"target median >= 1.2x: {'met' if q[2] >= 1.2 else 'NOT met'}"
              f" ({q[2]:.2f}x); none below 0.9x: "
              f"{'met' if not low else 'NOT met: seeds ' + str(low)}")
    peer = [r["seed"] for r in recs if r["status"] == "compile-wrong"]
    if peer:
        print(f"torch.compile's result differs from torch eager's (fuse "
              f"agrees; not in the ratios): seeds {peer}")
    good = len(ok) + len(peer)
    partial = args.dir and len(recs) < s["kept"]
    print(f"{'partial: ' if partial else ''}{good} passed, "
          f"{len(recs) - good} failed")
    return 1 if good < len(recs) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("check")
    p.add_argument("seeds", help="A:B")
    p.add_argument("--gpu", action="store_true")
    p.add_argument("--classic", action="store_true")
    p.add_argument("--sized", action="store_true")
    p = sub.add_parser("prepare")
    p.add_argument("--out", default=os.path.join(ROOT, ".device", "sweep"))
    p.add_argument("--count", type=int, default=130)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--resume", action="store_true",
                   help="go on after the seeds DIR/prepare.jsonl lists")
    p.add_argument("--fuse-compile",
                   default=os.path.join(ROOT, "build", "bin", "fuse-compile"))
    p = sub.add_parser("recompile")
    p.add_argument("dir")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--fuse-compile",
                   default=os.path.join(ROOT, "build", "bin", "fuse-compile"))
    for name in ("warm", "run"):
        p = sub.add_parser(name)
        p.add_argument("dir")
        p.add_argument("--state", default=os.path.join(ROOT, ".device",
                                                       "sweep-run"))
        p.add_argument("--deadline", type=float, default=float("inf"),
                       help="epoch seconds: start nothing after it")
        p.add_argument("--only", help="S,S,...: these seeds only")
    p.add_argument("--runtime", help="libfuse_runtime.so")
    p.add_argument("--shard", default="0/1", help="K/N: every Nth program")
    p.add_argument("--reps", type=int, default=25)
    p.add_argument("--dry", action="store_true")
    p.add_argument("--limit", type=int, default=3,
                   help="--dry: programs whose inputs are redrawn")
    p.add_argument("--execute", type=int, default=0, help="--dry: programs "
                   "run with fuse-run and CPU torch (needs torch)")
    p.add_argument("--fuse-run",
                   default=os.path.join(ROOT, "build", "bin", "fuse-run"))
    p = sub.choices["warm"]
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--gpus", type=int, default=1)
    p = sub.add_parser("report")
    p.add_argument("state")
    p.add_argument("--dir", help="the prepared folder (its counts)")
    p.add_argument("--causes", help="JSON {seed: cause} for the lowest")
    a = ap.parse_args()
    if a.cmd in ("warm", "run") and not getattr(a, "dry", False):
        os.makedirs(a.state, exist_ok=True)
    np.seterr(all="ignore")
    return {"check": check, "prepare": prepare, "recompile": recompile,
            "warm": warm, "run": run, "report": report}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
