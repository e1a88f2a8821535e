#!/usr/bin/env python3
"""GPU against CPU on random pipelines (issue #7), helper of
scripts/gpu/prepare-differential.sh and scripts/gpu/run-differential.sh.

  differential.py prepare --out DIR --seeds A:B [--fuse-compile P]
                          [--fuse-run P]
      (CPU machine) For each seed: the program of scripts/gen-pipelines.py
      (its GPU mode: no i1 table of a searchsorted, which the GPU reads
      at computed positions and takes in no other element type) with its data inputs resized to one of a fixed
      list of tile-boundary sizes (1, 31, 4099, 70001, ...; 2-D shapes
      such as 3x1025, 257x31; 3-D ones such as 2x3x1025, 17x3x31),
      `fuse-compile --emit=shared --prefix=fx_`
      (programs the GPU code generator rejects are listed with their first
      error line in DIR/rejected.txt; only prog.mlir is kept), the CPU
      backend's results (`fuse-run`, fusion on) checked against the
      generator's own NumPy evaluation (the CPU results are the oracle only
      where they pass; failures go to DIR/oracle-failures.txt), then
      seedN/data.npz (inputs in<i>, CPU results cpu<i>, compressed; unsigned
      data as the signed dtype of the same width and bf16 as raw 2-byte
      'V2' items, as fuse-run and fuse-run-aot read and write them; V2 is
      only ever bf16, read back as ml_dtypes.bfloat16) and seedN/meta.json
      (per argument: a tensor's dtype and shape or an index scalar's
      value; per result: dtype, shape, filter, exact, scale, prec).
      DIR/programs.txt lists the seeds the GPU suite runs, DIR/summary.txt
      the counts.
      The seeds that gen-pipelines.py gives a mismatched-size case (a
      quarter) get it here too: the arguments with one dynamic size
      changed so that an equality the program implies breaks (or an index
      size made negative), stored as mm<i> in data.npz and "mismatch" in
      meta.json (the changed size, its value, the sizes it must equal);
      the CPU must reject it (else an oracle failure), and the GPU run
      must too. DIR/mismatched.txt lists them.
  differential.py unpack SEED_DIR DEST [--cpu] [--mismatch]
      Writes DEST/in<i>.npy (and with --cpu DEST/result<i>.npy, the CPU
      results; as stored, bf16 as '<V2', which fuse-run-aot reads as bf16)
      and prints the matching `--arg DEST/in<i>.npy` flags
      (`--arg scalar:N` for an index scalar); with --mismatch, the
      mismatched-size case's inputs.
  differential.py check-rejected SEED_DIR RC LOG
      Judges one run of SEED_DIR's mismatched case that exited with RC and
      printed LOG: it must exit non-zero without a crash (no signal, no
      "Stack dump" / "LLVM ERROR"), printing `size mismatch: ...` that
      names the changed size and one it must equal with both sizes as
      passed (`invalid size: ...` for a negative one), as the C ABI's
      FUSE_ERROR_INVALID_ARGUMENT message through fuse-run-aot does
      (`fuse-run-aot: 'main' failed: FUSE_ERROR_INVALID_ARGUMENT: fx_main:
      size mismatch: in1 dimension 0 is 10 but in0 dimension 0 is 1000;
      ...`). fuse-run-aot's own refusal before the call (a result whose
      buffer size depends on the changed size: `result #K: size 'in1' is
      negative`) also counts as a rejection. Prints ok/wrong, exits 0/1.
  differential.py run-mismatched DIR (--runner AOT | --fuse-run P |
                                      --c-abi LIBFUSE_RUNTIME)
      Runs and judges every case of DIR/mismatched.txt: with fuse-run-aot
      on the GPU machine (--runner), or as dry runs here: fuse-run on the
      CPU (--fuse-run), or each prog.so's entry called through its packed
      wrapper with made-up device addresses (--c-abi, loading the runtime
      library: the generated host code must refuse the sizes before it
      touches the device; an entry that accepts them stops at fuse_init,
      FUSE_ERROR_NO_DEVICE, and fails). PASS/FAIL lines, then "N passed,
      N failed".
  differential.py compare SEED_DIR GOT_DIR
      Compares GOT_DIR/result<i>.npy with the CPU results; prints one line
      (ok ... / mismatch: the first bad result) and exits 0 or 1.
  differential.py self-test DIR
      Checks the comparison itself: the CPU results against themselves must
      pass bitwise; every float moved by 0.4x its allowance must pass; every
      perturbed copy (an integer +1, a float moved by 10x its allowance, an
      element dropped or added, i.e. a filter's count changed) must fail;
      for a mismatched case, the rejection judge takes the C ABI's message
      and refuses an exit 0, a stack dump, a signal and a message naming
      another size. Prints PASS/FAIL lines and "N passed, N failed".

Comparison rule (GPU vs CPU):
  * dtype, shape (so a filter's kept count) and result count: exact;
  * integers (signed and unsigned, compared as stored) and booleans: every
    element exactly equal (filters: the kept elements, in order);
  * floats whose every operation is exactly rounded in any order (the
    generator's `exact` flag: + - * /, sqrt, min/max, select, casts, min/max
    reductions): |gpu - cpu| <= 4 eps |cpu| + 4 eps * scale, where eps is the
    machine epsilon of the result's `prec` (the least precise float type a
    rounding step on its way used: an f32 value widened to f64 keeps f32's
    error, a bf16 value widened to f32 bf16's; f16 and bf16 arithmetic is
    rounded to the type on both backends, the same bits) and scale the
    generator's bound on the
    magnitudes that went into the value (the absolute term covers the GPU's
    sqrt.approx.f32, about 1 ulp, and a contracted multiply-add followed by
    a cancellation);
  * other floats (sums, products and scans reassociated by the GPU's tree
    order, exp/log/tanh from libdevice vs the host libm):
    |gpu - cpu| <= rel |cpu| + abs * max(scale, 1) with rel 1.6e-2 (bf16),
    2e-3 (f16; two ulps of each: an f32 sum or libm value a little
    different can round to the neighbouring half value), 1e-5 (f32) or
    1e-12 (f64) and abs the generator's tolerance 1e-1 (bf16), 2e-2 (f16),
    2e-4 (f32) or 1e-9 (f64), taken for `prec` (bf16 the least precise,
    then f16, f32, f64);
    for a sum, scale is max|x| * count + |init|, an upper bound on the sum
    of |terms|; where an infinity went in (the generator marks scale
    1e300: a min scan's +inf identity, an overflowed product), scale is
    the largest finite |CPU value| of that result instead;
  * NaN equals NaN (the generator avoids NaN; both backends must agree).
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    # The GPU machine may lack it (the prepare step needs it): bf16 is then
    # compared as the float32 values its bits encode, exactly.
    BF16 = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Input sizes, picked by seed (seed % len): around warp (32), block (256,
# 1024) and scan/filter tile sizes, primes, 2^k +- 1; 0 and 1. Each
# size appears twice in 100 seeds; few large ones keep .device small.
SIZES_1D = [1, 31, 4099, 70001, 0, 32, 33, 255, 257, 1023, 1025, 2049,
            4095, 4096, 4097, 8193, 12289, 129, 3, 511, 513, 1000, 6143, 2,
            97, 16385, 2047, 8191, 7, 65537, 63, 65, 256, 1024, 3071, 5, 127,
            4093, 17, 200, 769, 9, 1537, 3000, 24577, 100, 8, 2, 33, 40961]
SHAPES_2D = [(1, 1), (3, 1025), (257, 31), (31, 33), (1, 4099), (4099, 1),
             (33, 257), (129, 129), (2, 2049), (65, 1), (0, 5), (5, 0),
             (7, 1000), (1000, 7), (17, 4097), (1, 31), (31, 1), (64, 64),
             (13, 513), (255, 17), (1, 70001), (2, 3), (9, 4095), (127, 1),
             (1, 0)]
# rank 3 (the wide flavor's): rows of warp, block and vector boundary
# lengths under a few batches (fuse-collapse-rows makes them one matrix),
# empty and unit dimensions
SHAPES_3D = [(2, 3, 1025), (4, 33, 257), (1, 1, 4099), (3, 0, 5),
             (17, 3, 31), (64, 2, 33), (1, 129, 129), (8, 8, 1000),
             (2, 2049, 1), (7, 5, 0), (31, 33, 32), (3, 1, 1), (5, 255, 17)]
FLOATS = ("bf16", "f16", "f32", "f64")
EPS = {"bf16": 2.0**-7,
       "f16": float(np.finfo(np.float16).eps),
       "f32": float(np.finfo(np.float32).eps),
       "f64": float(np.finfo(np.float64).eps)}
# f16 and bf16: two ulps (both backends round f32 sums and libm results
# once, so a different f32 value can give the neighbouring half value)
REL = {"bf16": 1.6e-2, "f16": 2e-3, "f32": 1e-5, "f64": 1e-12}
ABS = {"bf16": 1e-1, "f16": 2e-2, "f32": 2e-4, "f64": 1e-9}


def values(a):
    """An array as np.load gives it, with bf16's raw 2-byte 'V2' items
    (how NumPy saves ml_dtypes.bfloat16, and how fuse-run and fuse-run-aot
    write bf16; only bf16 is stored as V2) as bf16 values (float32 ones
    without ml_dtypes)."""
    a = np.asarray(a)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:
        if BF16 is not None:
            return a.view(BF16)
        u = a.view("<u2").astype(np.uint32)
        u <<= 16  # in place: a 0-d array stays an array
        return u.view(np.float32)
    return a


def stored(a, dtype):
    """values() of a result of meta dtype `dtype` as the runners write
    them: bf16 as V2 items (from float32 values, rounded to nearest
    even)."""
    a = np.asarray(a)
    if dtype != "bf16" or a.dtype.kind == "V":
        return a
    if BF16 is not None:
        return a.astype(BF16)  # np.save writes it as V2
    f = a.astype(np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    bits = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    bits = np.where(np.isnan(f), (u >> 16) | 0x40, bits)
    return np.asarray(bits).astype("<u2").view("V2")


def load_gen():
    spec = importlib.util.spec_from_file_location(
        "gen_pipelines", os.path.join(ROOT, "scripts", "gen-pipelines.py"))
    gp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gp)
    return gp


def sized_gen(gp, seed):
    """The generator's program for `seed`, with every data input of the
    chosen rank given this seed's size (gather indices, and vectors or
    scalars sized after another value, keep theirs), in the generator's
    GPU mode (no i1 searchsorted tables, which the GPU code generator
    rejects; i1 arguments and results are bytes there)."""
    n1 = SIZES_1D[seed % len(SIZES_1D)]
    s2 = SHAPES_2D[seed % len(SHAPES_2D)]
    s3 = SHAPES_3D[seed % len(SHAPES_3D)]
    return gp.Gen(seed, gpu=True, sizes=(n1, s2, s3))


def first_error(text):
    lines = [l for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l:
            return l.strip()
    return lines[0].strip() if lines else "(no message)"


def arg_meta(i, v):
    if v.kind == "scalar":
        return {"kind": "scalar", "dtype": "index", "value": int(v.arr)}
    return {"kind": "tensor", "file": f"in{i}.npy", "dtype": v.dt,
            "shape": list(v.arr.shape)}


# -- prepare ----------------------------------------------------------------
def prepare(args):
    gp = load_gen()
    out = os.path.abspath(args.out)
    # fuse-run runs in each seed's folder: a relative tool path is this
    # folder's
    for tool in ("fuse_compile", "fuse_run"):
        path = getattr(args, tool)
        if os.sep in path:
            setattr(args, tool, os.path.abspath(path))
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    a, b = (int(x) for x in args.seeds.split(":"))
    compiled, rejected, oracle_bad, mismatched = [], [], [], []
    for seed in range(a, b):
        g = sized_gen(gp, seed)
        text, outs = g.build()
        d = os.path.join(out, f"seed{seed}")
        os.makedirs(d)
        prog = os.path.join(d, "prog.mlir")
        with open(prog, "w") as f:
            f.write(text)
        shape = g.args[0].arr.shape if g.args else ()
        label = "x".join(map(str, shape)) or "scalar"
        p = subprocess.run([args.fuse_compile, prog, "--prefix=fx_",
                            "--emit=shared", "-o", os.path.join(d, "prog")],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            msg = first_error(p.stderr or p.stdout)
            msg = msg.replace(prog + ":", "prog.mlir:")
            rejected.append((seed, label, msg))
            for f in os.listdir(d):
                if f != "prog.mlir":
                    os.remove(os.path.join(d, f))
            print(f"rejected seed{seed} ({label}): {msg}")
            continue
        with open(os.path.join(d, "prog.json")) as f:
            man = json.load(f)
        entry = man["entries"][0]
        argv = [os.path.relpath(a, d) if a.endswith(".npy") else a
                for a in gp.arg_flags(g, d)]
        p = subprocess.run([args.fuse_run, "prog.mlir", "--entry", "main",
                            "--out", "cpu"] + argv, cwd=d,
                           capture_output=True, text=True, timeout=300)
        errs = []
        if p.returncode != 0:
            errs.append(f"fuse-run exit {p.returncode}: "
                        + first_error(p.stderr or p.stdout))
        else:
            for i, v in enumerate(outs):
                got = np.load(os.path.join(d, "cpu", f"result{i}.npy"))
                m = gp.compare(got, v, f"CPU result{i} vs NumPy")
                if m:
                    errs.append(m)
        # The mismatched-size case (a quarter of the seeds, as in
        # gen-pipelines.py): the expectation is the generator's, a
        # rejection naming the changed size; the CPU must reject it too.
        mism = g.plan_mismatch() if g.want_mismatch else None
        if mism:
            margv = [os.path.relpath(a, d) if a.endswith(".npy") else a
                     for a in gp.arg_flags(g, d, mism["args"], prefix="mm")]
            p = subprocess.run([args.fuse_run, "prog.mlir", "--entry",
                                "main", "--out", "mm-cpu"] + margv, cwd=d,
                               capture_output=True, text=True, timeout=300)
            m = gp.judge_rejection(mism, p.returncode, p.stderr + p.stdout)
            shutil.rmtree(os.path.join(d, "mm-cpu"), ignore_errors=True)
            if m:
                errs.append(f"mismatched sizes ({mism['member']} = "
                            f"{mism['value']}): CPU: {m}")
        if errs:
            oracle_bad.append((seed, label, errs[0]))
            print(f"CPU oracle fails seed{seed} ({label}): {errs[0]}")
            continue
        results = []
        for i, (v, r) in enumerate(zip(outs, entry["results"])):
            results.append({"dtype": v.dt, "shape": list(v.arr.shape),
                            "filter": bool(r.get("filter")),
                            "exact": bool(v.exact or not gp.isfloat(v.dt)),
                            "scale": float(v.scale),
                            # the tolerance's precision: the narrowest a
                            # rounding step on the way used (an f32 value
                            # widened to f64 keeps f32's error)
                            "prec": v.prec or v.dt})
        meta = {"seed": seed, "size": label,
                "args": [arg_meta(i, v) for i, v in enumerate(g.args)],
                "results": results}
        # inputs and CPU results in one compressed file (integers in
        # [-100, 100] stored as i64 shrink ~8x): `unpack` restores the .npy
        arrays = {f"in{i}": gp.file_array(v) for i, v in enumerate(g.args)
                  if v.kind == "tensor"}
        if mism:
            margs = []
            for i, (v, x) in enumerate(zip(g.args, mism["args"])):
                if v.kind == "scalar":
                    margs.append({"kind": "scalar", "value": int(x)})
                elif x is v.arr:
                    margs.append({"kind": "tensor", "key": f"in{i}"})
                else:
                    arrays[f"mm{i}"] = gp.file_array(gp.Val(
                        "", v.dt, (), np.asarray(x, gp.NP[v.dt]), True, 0))
                    margs.append({"kind": "tensor", "key": f"mm{i}"})
            meta["mismatch"] = {k: mism[k] for k in (
                "member", "value", "negative", "class", "allowed", "sizes",
                "late")}
            meta["mismatch"]["args"] = margs
            mismatched.append((seed, label, mism["member"], mism["value"]))
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        for i in range(len(outs)):
            rp = os.path.join(d, "cpu", f"result{i}.npy")
            arrays[f"cpu{i}"] = np.load(rp)
        np.savez_compressed(os.path.join(d, "data.npz"), **arrays)
        shutil.rmtree(os.path.join(d, "cpu"))
        for f in os.listdir(d):
            if f.endswith(".npy"):
                os.remove(os.path.join(d, f))
        compiled.append((seed, label))
        print(f"ok seed{seed} ({label}): {len(g.args)} inputs, "
              f"{len(outs)} results"
              + (f", mismatched case {mism['member']} = {mism['value']}"
                 if mism else ""))
    with open(os.path.join(out, "programs.txt"), "w") as f:
        for seed, label in compiled:
            f.write(f"seed{seed} {label}\n")
    with open(os.path.join(out, "mismatched.txt"), "w") as f:
        for seed, label, member, value in mismatched:
            f.write(f"seed{seed} {label} {member.replace(' ', '_')}="
                    f"{value}\n")
    with open(os.path.join(out, "rejected.txt"), "w") as f:
        for seed, label, msg in rejected:
            f.write(f"seed{seed} {label}: {msg}\n")
    with open(os.path.join(out, "oracle-failures.txt"), "w") as f:
        for seed, label, msg in oracle_bad:
            f.write(f"seed{seed} {label}: {msg}\n")
    n = b - a
    summary = (f"{n} programs generated (seeds {a}:{b}), {len(compiled)} "
               f"compiled for the GPU with CPU results ({len(mismatched)} "
               f"with a mismatched-size case), {len(rejected)} "
               f"rejected by the GPU code generator, {len(oracle_bad)} "
               f"failing the CPU-vs-NumPy check")
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(summary + "\n")
    reasons = {}
    for _, _, msg in rejected:
        key = msg.split("error:", 1)[-1].strip()
        reasons[key] = reasons.get(key, 0) + 1
    for key, k in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"  {k:3d} x {key}")
    print(summary)
    return 1 if oracle_bad else 0


# -- compare ----------------------------------------------------------------
def allowed(r, ref):
    """Per-element allowance |got - ref| <= allowed for a float result."""
    dt = r.get("prec", r["dtype"])
    a = np.abs(ref.astype(np.float64))
    scale = r["scale"]
    if scale >= 1e300:
        # the generator's marker for "an infinity went in" (e.g. the +inf
        # identity of a min scan, an overflowed product): no bound, so the
        # finite elements are held to the largest finite |CPU value|
        fin = a[np.isfinite(a)]
        scale = float(fin.max()) if fin.size else 1.0
    if r["exact"]:
        return 4 * EPS[dt] * a + 4 * EPS[dt] * scale
    return REL[dt] * a + ABS[dt] * max(scale, 1.0)


def compare_one(r, got, ref):
    """(None or a message, worst |err| / allowance) for one result."""
    if got.dtype != ref.dtype:
        return f"dtype {got.dtype}, CPU {ref.dtype}", 0.0
    if got.shape != ref.shape:
        what = "kept count" if r["filter"] else "shape"
        return f"{what} {got.shape}, CPU {ref.shape}", 0.0
    if got.size == 0:
        return None, 0.0
    if got.dtype.kind in "iub" or r["dtype"] not in FLOATS:
        bad = np.flatnonzero(got.ravel() != ref.ravel())
        if bad.size:
            k = int(bad[0])
            return (f"{bad.size} of {got.size} elements differ (first at "
                    f"flat index {k}: {got.flat[k]!r}, CPU {ref.flat[k]!r})"
                    ), 0.0
        return None, 0.0
    g = got.astype(np.float64).ravel()
    c = ref.astype(np.float64).ravel()
    with np.errstate(all="ignore"):
        both_nan = np.isnan(g) & np.isnan(c)
        same = (g == c) | both_nan          # also equal infinities
        err = np.where(same, 0.0, np.abs(g - c))
        tol = allowed(r, ref).ravel()
        ratio = np.where(same, 0.0, err / np.maximum(tol, 1e-300))
    bad = np.flatnonzero(~(ratio <= 1.0))
    worst = float(np.max(ratio)) if ratio.size else 0.0
    if bad.size:
        k = int(bad[np.argmax(ratio[bad])]) if np.all(np.isfinite(
            ratio[bad])) else int(bad[0])
        return (f"{bad.size} of {got.size} elements off (worst at flat index "
                f"{k}: {got.flat[k]!r}, CPU {ref.flat[k]!r}, allowed "
                f"{tol[k]:.3g}, {'exact' if r['exact'] else 'reassociated'}"
                f" rule)"), worst
    return None, worst


def cpu_result(seed_dir, i, raw=False):
    """CPU result i: its values, or with raw as stored."""
    with np.load(os.path.join(seed_dir, "data.npz")) as z:
        a = z[f"cpu{i}"]
    return a if raw else values(a)


def unpack_flags(seed_dir, dest, mismatch=False):
    """Writes DEST/in<i>.npy (the inputs; with mismatch, the mismatched
    case's) and returns the --arg flags (`scalar:N` for index scalars)."""
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(seed_dir, "meta.json")) as f:
        meta = json.load(f)
    flags = []
    with np.load(os.path.join(seed_dir, "data.npz")) as z:
        args = meta["mismatch"]["args"] if mismatch else meta["args"]
        for i, a in enumerate(args):
            if a.get("kind", "tensor") == "scalar":
                flags += ["--arg", f"scalar:{a['value']}"]
                continue
            p = os.path.join(dest, f"in{i}.npy")
            np.save(p, z[a.get("key", f"in{i}")])
            flags += ["--arg", p]
    return flags


def unpack(args):
    """Writes DEST/in<i>.npy (the inputs, for fuse-run-aot's --arg; with
    --mismatch the mismatched-size case's) and, with --cpu,
    DEST/result<i>.npy (the CPU results); prints the --arg flags."""
    flags = unpack_flags(args.seed_dir, args.dest,
                         getattr(args, "mismatch", False))
    with open(os.path.join(args.seed_dir, "meta.json")) as f:
        meta = json.load(f)
    with np.load(os.path.join(args.seed_dir, "data.npz")) as z:
        if args.cpu:
            for i in range(len(meta["results"])):
                np.save(os.path.join(args.dest, f"result{i}.npy"),
                        z[f"cpu{i}"])
    if not getattr(args, "quiet", False):
        print(" ".join(flags))
    return 0


def compare_dirs(seed_dir, got_dir):
    with open(os.path.join(seed_dir, "meta.json")) as f:
        meta = json.load(f)
    worst = 0.0
    for i, r in enumerate(meta["results"]):
        gp = os.path.join(got_dir, f"result{i}.npy")
        if not os.path.exists(gp):
            return False, f"result{i}.npy missing", worst
        raw = np.load(gp)
        ref = cpu_result(seed_dir, i, raw=True)
        if raw.dtype != ref.dtype:  # before values() (it may decode bf16)
            return False, (f"result{i} ({r['dtype']}): dtype {raw.dtype}, "
                           f"CPU {ref.dtype}"), worst
        msg, w = compare_one(r, values(raw), values(ref))
        worst = max(worst, w)
        if msg:
            return False, f"result{i} ({r['dtype']}): {msg}", worst
    extra = os.path.join(got_dir, f"result{len(meta['results'])}.npy")
    if os.path.exists(extra):
        return False, "more results than the CPU's", worst
    return True, f"{len(meta['results'])} results", worst


def mismatch_case(seed_dir):
    with open(os.path.join(seed_dir, "meta.json")) as f:
        return json.load(f).get("mismatch")


def check_rejected(args):
    """A run of SEED_DIR's mismatched case exited RC with LOG: was it
    rejected as it must be? One line (ok ... / wrong: ...), exit 0 or 1."""
    gp = load_gen()
    case = mismatch_case(args.seed_dir)
    if case is None:
        print(f"wrong: {args.seed_dir} has no mismatched-size case")
        return 1
    with open(args.log, errors="replace") as f:
        text = f.read()
    why = gp.judge_rejection(case, int(args.rc), text, runner_prechecks=True)
    if why:
        print(f"wrong: {case['member']} = {case['value']}: {why}")
        return 1
    line = next((l for l in text.splitlines() if "size" in l), "").strip()
    print(f"ok: {case['member']} = {case['value']} rejected: {line}")
    return 0


def run_mismatched(args):
    """Runs every mismatched-size case of DIR/mismatched.txt with
    fuse-run-aot (--runner; on the GPU machine) or, for a dry run here,
    fuse-run on the CPU (--fuse-run), and judges each: PASS/FAIL lines,
    then "N passed, N failed"."""
    gp = load_gen()
    root = os.path.abspath(args.dir)
    lst = os.path.join(root, "mismatched.txt")
    cases = []
    if os.path.exists(lst):
        with open(lst) as f:
            cases = [l.split() for l in f if l.strip()]
    work = os.path.abspath(args.work or os.path.join(root, ".mismatched"))
    shutil.rmtree(work, ignore_errors=True)
    passed = failed = 0
    for seed, label, _ in cases:
        d = os.path.join(root, seed)
        case = mismatch_case(d)
        w = os.path.join(work, seed)
        flags = unpack_flags(d, os.path.join(w, "in"), mismatch=True)
        if args.fuse_run:
            cmd = [args.fuse_run, os.path.join(d, "prog.mlir"), "--entry",
                   "main"] + flags + ["--out", os.path.join(w, "out")]
        elif args.c_abi:
            # in a child process: a crash in the entry is a verdict
            cmd = [sys.executable, os.path.abspath(__file__), "c-abi-call",
                   d, "--runtime", args.c_abi]
        else:
            cmd = [args.runner, os.path.join(d, "prog.json")] + flags + \
                ["--out", os.path.join(w, "out")]
        try:
            p = subprocess.run(cmd,
                               capture_output=True, text=True,
                               timeout=args.timeout)
            rc, text = p.returncode, p.stderr + p.stdout
        except subprocess.TimeoutExpired:
            rc, text = 124, "timed out"
        if "FUSE_ERROR_NO_DEVICE" in text and args.runner:
            print(f"FAIL device: no usable GPU: {text.strip()[-300:]}")
            failed += 1
            break
        why = gp.judge_rejection(case, rc, text,
                                 runner_prechecks=bool(args.runner))
        what = f"{seed} ({label}) {case['member']} = {case['value']}"
        if why:
            print(f"FAIL {what}: {why} (program {d}/prog.mlir)")
            failed += 1
        else:
            line = next((l for l in text.splitlines() if "size" in l), "")
            print(f"PASS {what}: rejected: {line.strip()}")
            passed += 1
    shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def c_abi_call(args):
    """Calls SEED_DIR's entry in prog.so through its packed wrapper with
    the mismatched case's arguments, host memory standing in for device
    buffers, and prints what fuse-run-aot would: the entry must refuse
    the sizes before it touches the device (on a machine without a GPU an
    entry that accepts them stops at fuse_init with
    FUSE_ERROR_NO_DEVICE). The buffers are made-up addresses 64 GiB apart
    (the host code only compares them, for overlaps; a device would be
    needed to touch them). Exit 0 when the call succeeded, else 1."""
    import ctypes
    rt = ctypes.CDLL(os.path.abspath(args.runtime), mode=ctypes.RTLD_GLOBAL)
    rt.fuse_last_error_message.restype = ctypes.c_char_p
    rt.fuse_status_name.restype = ctypes.c_char_p
    rt.fuse_status_name.argtypes = [ctypes.c_int]
    d = args.seed_dir
    with open(os.path.join(d, "prog.json")) as f:
        entry = json.load(f)["entries"][0]
    lib = ctypes.CDLL(os.path.join(d, "prog.so"))
    fn = getattr(lib, entry["packed"])
    fn.restype = ctypes.c_int32
    fn.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    keep, params = [], []

    def cell(obj):
        keep.append(obj)
        params.append(ctypes.cast(ctypes.pointer(obj), ctypes.c_void_p))

    with open(os.path.join(d, "meta.json")) as f:
        margs = json.load(f)["mismatch"]["args"]
    fake = iter(range(1 << 40, 1 << 62, 1 << 36))
    with np.load(os.path.join(d, "data.npz")) as z:
        for a in margs:
            if a["kind"] == "scalar":
                cell(ctypes.c_int64(a["value"]))
                continue
            cell(ctypes.c_void_p(next(fake)))
            for n in z[a["key"]].shape:
                cell(ctypes.c_int64(n))
    for r in entry["results"]:
        cell(ctypes.c_void_p(next(fake)))
    for r in entry["results"]:
        if r.get("filter"):
            cnt = ctypes.c_int64(-1)
            keep.append(cnt)
            cell(ctypes.c_void_p(ctypes.addressof(cnt)))
    cell(ctypes.c_void_p(None))  # the stream
    arr_t = ctypes.c_void_p * len(params)
    st = fn(arr_t(*params))
    if st == 0:
        print("the call succeeded")
        return 0
    msg = (rt.fuse_last_error_message() or b"").decode(errors="replace")
    name = rt.fuse_status_name(st).decode()
    print(f"fuse-run-aot: '{entry['name']}' failed: {name}: {msg}")
    return 1


def cmd_compare(args):
    ok, msg, worst = compare_dirs(args.seed_dir, args.got_dir)
    print(f"{'ok' if ok else 'mismatch'}: {msg}, worst error "
          f"{worst:.3g} of the allowance")
    return 0 if ok else 1


# -- self-test ----------------------------------------------------------------
def perturbations(meta, seed_dir):
    """Yields (label, {i: array}) copies of the CPU results that must fail."""
    res = [cpu_result(seed_dir, i) for i in range(len(meta["results"]))]
    for i, (r, a) in enumerate(zip(meta["results"], res)):
        if a.size == 0:
            # an empty result: one element more (a filter keeping too
            # much; of a 1x0 result, the empty dimension grown to 1)
            shp = list(a.shape)
            shp[shp.index(0)] = 1
            b = np.zeros(shp, a.dtype)
            yield f"result{i} gains an element", {i: b}
            continue
        k = a.size // 2
        b = a.copy()
        if a.dtype.kind in "iu":
            b.flat[k] = b.flat[k] + 1 if b.flat[k] != np.iinfo(
                a.dtype).max else b.flat[k] - 1
            yield f"result{i}[{k}] + 1", {i: b}
        elif a.dtype.kind == "b":
            b.flat[k] = not b.flat[k]
            yield f"result{i}[{k}] flipped", {i: b}
        else:
            tol = float(allowed(r, a).flat[k])
            with np.errstate(all="ignore"):
                v = a.dtype.type(float(a.flat[k]) +
                                 (10 * tol if tol > 0 else 1.0))
            if np.isfinite(v) and v != a.flat[k]:
                b.flat[k] = v
                yield f"result{i}[{k}] moved by 10x its tolerance", {i: b}
            else:  # an allowance beyond the dtype's range (scale overflowed)
                b.flat[k] = np.nan if not np.isnan(a.flat[k]) else 0
                yield f"result{i}[{k}] set to NaN (allowance too large)", \
                    {i: b}
        if r["filter"] or a.ndim == 1:
            yield f"result{i} loses its last element", {i: a[:-1].copy()}


def self_test(args):
    gp = load_gen()
    root = os.path.abspath(args.dir)
    tmp = os.path.join(root, ".self-test")
    shutil.rmtree(tmp, ignore_errors=True)
    passed = failed = 0
    with open(os.path.join(root, "programs.txt")) as f:
        seeds = [l.split()[0] for l in f if l.strip()]
    for s in seeds:
        d = os.path.join(root, s)
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        cpu = os.path.join(tmp, s + "-cpu")
        unpack(argparse.Namespace(seed_dir=d, dest=cpu, cpu=True,
                                  quiet=True))
        ok, msg, worst = compare_dirs(d, cpu)
        if ok and worst == 0.0:
            print(f"PASS {s} CPU vs itself: {msg}")
            passed += 1
        else:
            print(f"FAIL {s} CPU vs itself: {msg} (worst {worst})")
            failed += 1
        # within tolerance: half the allowance on every float element passes
        n = len(meta["results"])
        got = os.path.join(tmp, s + "-half")
        os.makedirs(got)
        for i, r in enumerate(meta["results"]):
            a = cpu_result(d, i)
            if r["dtype"] in FLOATS and a.size:
                with np.errstate(all="ignore"):
                    b = (a.astype(np.float64) + 0.4 * allowed(r, a)).astype(
                        a.dtype)
                a = np.where(np.isfinite(a) & np.isfinite(b), b, a)
            np.save(os.path.join(got, f"result{i}.npy"),
                    stored(a, r["dtype"]))
        ok, msg, worst = compare_dirs(d, got)
        if ok:
            print(f"PASS {s} within tolerance: {msg}, worst {worst:.2f}")
            passed += 1
        else:
            print(f"FAIL {s} within tolerance rejected: {msg}")
            failed += 1
        for j, (label, repl) in enumerate(perturbations(meta, d)):
            got = os.path.join(tmp, f"{s}-p{j}")
            os.makedirs(got)
            for i in range(n):
                a = repl.get(i)
                if a is None:
                    a = cpu_result(d, i)
                np.save(os.path.join(got, f"result{i}.npy"),
                        stored(a, meta["results"][i]["dtype"]))
            ok, msg, _ = compare_dirs(d, got)
            if not ok:
                print(f"PASS {s} perturbed ({label}) detected: {msg}")
                passed += 1
            else:
                print(f"FAIL {s} perturbed ({label}) NOT detected")
                failed += 1
        # the rejection judge on made-up runs of the mismatched case
        case = meta.get("mismatch")
        if case:
            for label, rc, text, want in rejection_samples(case):
                why = gp.judge_rejection(case, rc, text,
                                         runner_prechecks=True)
                if (why is None) == want:
                    print(f"PASS {s} mismatched case, {label}: "
                          f"{'accepted' if want else 'refused: ' + why}")
                    passed += 1
                else:
                    print(f"FAIL {s} mismatched case, {label}: "
                          f"{'refused: ' + why if want else 'accepted'}")
                    failed += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def rejection_samples(case):
    """(label, rc, log, must pass) runs of a mismatched case: fuse-run-aot's
    message for it passes; an exit 0, a crash, another argument named,
    wrong sizes fail."""
    m, v, sizes = case["member"], case["value"], case["sizes"]
    pre = "fuse-run-aot: 'main' failed: FUSE_ERROR_INVALID_ARGUMENT: fx_main: "
    if case["negative"]:
        good = (f"{pre}invalid size: {m} is {v}, but it sizes a tensor and "
                f"cannot be negative")
        wrong = f"{pre}invalid size: {m} is {v + 1}, but it sizes a tensor"
    else:
        other = next(s for s in case["class"] if s != m)

        def named(s):
            if s.startswith("const "):
                return f"the pipeline's type says {s.split()[1]}"
            return f"{s} is {sizes[s]}"
        good = (f"{pre}size mismatch: {m} is {v} but {named(other)}; the "
                f"pipeline combines them, so they must be equal")
        wrong = (f"{pre}size mismatch: {m} is {v} but in99 dimension 0 is "
                 f"{v + 1}; the pipeline combines them, so they must be "
                 f"equal")
    yield "its message", 1, good, True
    yield "exit 0", 0, "", False
    yield "a stack dump", 1, good + "\nStack dump:\n0. fuse-run-aot", False
    yield "killed by a signal", -11, "", False
    yield "another size named", 1, wrong, False


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--out", required=True)
    p.add_argument("--seeds", default="0:100")
    p.add_argument("--fuse-compile",
                   default=os.path.join(ROOT, "build", "bin", "fuse-compile"))
    p.add_argument("--fuse-run",
                   default=os.path.join(ROOT, "build", "bin", "fuse-run"))
    p = sub.add_parser("compare")
    p.add_argument("seed_dir")
    p.add_argument("got_dir")
    p = sub.add_parser("unpack")
    p.add_argument("seed_dir")
    p.add_argument("dest")
    p.add_argument("--cpu", action="store_true")
    p.add_argument("--mismatch", action="store_true")
    p = sub.add_parser("check-rejected")
    p.add_argument("seed_dir")
    p.add_argument("rc")
    p.add_argument("log")
    p = sub.add_parser("run-mismatched")
    p.add_argument("dir")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--runner", help="fuse-run-aot")
    g.add_argument("--fuse-run", help="dry run on the CPU with fuse-run")
    g.add_argument("--c-abi", metavar="LIBFUSE_RUNTIME",
                   help="dry run without a GPU: each prog.so's entry "
                   "called with host memory, loading this runtime library")
    p.add_argument("--work", help="scratch folder (default DIR/.mismatched)")
    p.add_argument("--timeout", type=int, default=120)
    p = sub.add_parser("c-abi-call")
    p.add_argument("seed_dir")
    p.add_argument("--runtime", required=True)
    p = sub.add_parser("self-test")
    p.add_argument("dir")
    args = ap.parse_args()
    np.seterr(all="ignore")
    return {"prepare": prepare, "compare": cmd_compare,
            "unpack": unpack, "self-test": self_test,
            "check-rejected": check_rejected,
            "run-mismatched": run_mismatched,
            "c-abi-call": c_abi_call}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
