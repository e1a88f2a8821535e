#!/usr/bin/env python3
"""GPU against CPU on random pipelines (issue #7), helper of
scripts/gpu/prepare-differential.sh and scripts/gpu/run-differential.sh.

  differential.py prepare --out DIR --seeds A:B [--fuse-compile P] [--fuse-run P]
      (CPU machine) For each seed: the program of scripts/gen-pipelines.py
      with its data inputs resized to one of a fixed list of tile-boundary
      sizes (1, 31, 4099, 70001, ...; 2-D shapes such as 3x1025, 257x31),
      `fuse-compile --emit=shared --prefix=fx_` (programs the GPU code
      generator rejects are listed with their first error line in
      DIR/rejected.txt; only prog.mlir is kept), the CPU backend's results
      (`fuse-run`, fusion on) checked against the generator's own NumPy
      evaluation (the CPU results are the oracle only where they pass;
      failures go to DIR/oracle-failures.txt), then seedN/data.npz (inputs
      in<i>, CPU results cpu<i>, compressed) and seedN/meta.json (per
      result: dtype, shape, filter, exact, scale). DIR/programs.txt lists
      the seeds the GPU suite runs, DIR/summary.txt the counts.
  differential.py unpack SEED_DIR DEST [--cpu]
      Writes DEST/in<i>.npy (and with --cpu DEST/result<i>.npy, the CPU
      results) and prints the matching `--arg DEST/in<i>.npy` flags.
  differential.py compare SEED_DIR GOT_DIR
      Compares GOT_DIR/result<i>.npy with the CPU results; prints one line
      (ok ... / mismatch: the first bad result) and exits 0 or 1.
  differential.py self-test DIR
      Checks the comparison itself: the CPU results against themselves must
      pass bitwise; every float moved by 0.4x its allowance must pass; every
      perturbed copy (an integer +1, a float moved by 10x its allowance, an
      element dropped or added, i.e. a filter's count changed) must fail.
      Prints PASS/FAIL lines and "N passed, N failed".

Comparison rule (GPU vs CPU):
  * dtype, shape (so a filter's kept count) and result count: exact;
  * integers and booleans: every element exactly equal (filters: the kept
    elements, in order);
  * floats whose every operation is exactly rounded in any order (the
    generator's `exact` flag: + - * /, sqrt, min/max, select, casts, min/max
    reductions): |gpu - cpu| <= 4 eps |cpu| + 4 eps * scale, where eps is the
    dtype's machine epsilon and scale the generator's bound on the
    magnitudes that went into the value (the absolute term covers the GPU's
    sqrt.approx.f32, about 1 ulp, and a contracted multiply-add followed by
    a cancellation);
  * other floats (sums, products and scans reassociated by the GPU's tree
    order, exp/log/tanh from libdevice vs the host libm):
    |gpu - cpu| <= rel |cpu| + abs * max(scale, 1) with rel 1e-5 (f32) or
    1e-12 (f64) and abs the generator's tolerance 2e-4 (f32) or 1e-9 (f64);
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
EPS = {"f32": float(np.finfo(np.float32).eps),
       "f64": float(np.finfo(np.float64).eps)}
REL = {"f32": 1e-5, "f64": 1e-12}
ABS = {"f32": 2e-4, "f64": 1e-9}


def load_gen():
    spec = importlib.util.spec_from_file_location(
        "gen_pipelines", os.path.join(ROOT, "scripts", "gen-pipelines.py"))
    gp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gp)
    return gp


def sized_gen(gp, seed):
    n1 = SIZES_1D[seed % len(SIZES_1D)]
    s2 = SHAPES_2D[seed % len(SHAPES_2D)]

    class SizedGen(gp.Gen):
        """The generator's program for `seed`, with every data input of the
        chosen rank given this seed's size (gather indices keep theirs)."""

        def make_input(self, dt, shape, static, kind="data"):
            if kind == "data":
                shape = (n1,) if len(shape) == 1 else s2
            return super().make_input(dt, shape, static, kind)

    return SizedGen(seed)


def first_error(text):
    lines = [l for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l:
            return l.strip()
    return lines[0].strip() if lines else "(no message)"


# -- prepare ----------------------------------------------------------------
def prepare(args):
    gp = load_gen()
    out = os.path.abspath(args.out)
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    a, b = (int(x) for x in args.seeds.split(":"))
    compiled, rejected, oracle_bad = [], [], []
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
        argv = []
        for i, v in enumerate(g.args):
            np.save(os.path.join(d, f"in{i}.npy"), v.arr)
            argv += ["--arg", f"in{i}.npy"]
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
        if errs:
            oracle_bad.append((seed, label, errs[0]))
            print(f"CPU oracle fails seed{seed} ({label}): {errs[0]}")
            continue
        results = []
        for i, (v, r) in enumerate(zip(outs, entry["results"])):
            results.append({"dtype": v.dt, "shape": list(v.arr.shape),
                            "filter": bool(r.get("filter")),
                            "exact": bool(v.exact or v.dt in gp.INTS),
                            "scale": float(v.scale)})
        meta = {"seed": seed, "size": label,
                "args": [{"file": f"in{i}.npy", "dtype": v.dt,
                          "shape": list(v.arr.shape)}
                         for i, v in enumerate(g.args)],
                "results": results}
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        # inputs and CPU results in one compressed file (integers in
        # [-100, 100] stored as i64 shrink ~8x): `unpack` restores the .npy
        arrays = {f"in{i}": v.arr for i, v in enumerate(g.args)}
        for i in range(len(outs)):
            rp = os.path.join(d, "cpu", f"result{i}.npy")
            arrays[f"cpu{i}"] = np.load(rp)
        np.savez_compressed(os.path.join(d, "data.npz"), **arrays)
        shutil.rmtree(os.path.join(d, "cpu"))
        for i in range(len(g.args)):
            os.remove(os.path.join(d, f"in{i}.npy"))
        compiled.append((seed, label))
        print(f"ok seed{seed} ({label}): {len(g.args)} inputs, "
              f"{len(outs)} results")
    with open(os.path.join(out, "programs.txt"), "w") as f:
        for seed, label in compiled:
            f.write(f"seed{seed} {label}\n")
    with open(os.path.join(out, "rejected.txt"), "w") as f:
        for seed, label, msg in rejected:
            f.write(f"seed{seed} {label}: {msg}\n")
    with open(os.path.join(out, "oracle-failures.txt"), "w") as f:
        for seed, label, msg in oracle_bad:
            f.write(f"seed{seed} {label}: {msg}\n")
    n = b - a
    summary = (f"{n} programs generated (seeds {a}:{b}), {len(compiled)} "
               f"compiled for the GPU with CPU results, {len(rejected)} "
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
    dt = r["dtype"]
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
    if got.dtype.kind in "iub" or r["dtype"] in ("i32", "i64"):
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


def cpu_result(seed_dir, i):
    with np.load(os.path.join(seed_dir, "data.npz")) as z:
        return z[f"cpu{i}"]


def unpack(args):
    """Writes DEST/in<i>.npy (the inputs, for fuse-run-aot's --arg) and,
    with --cpu, DEST/result<i>.npy (the CPU results); prints the --arg
    flags."""
    os.makedirs(args.dest, exist_ok=True)
    with open(os.path.join(args.seed_dir, "meta.json")) as f:
        meta = json.load(f)
    flags = []
    with np.load(os.path.join(args.seed_dir, "data.npz")) as z:
        for i in range(len(meta["args"])):
            p = os.path.join(args.dest, f"in{i}.npy")
            np.save(p, z[f"in{i}"])
            flags += ["--arg", p]
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
        got = np.load(gp)
        ref = cpu_result(seed_dir, i)
        msg, w = compare_one(r, got, ref)
        worst = max(worst, w)
        if msg:
            return False, f"result{i} ({r['dtype']}): {msg}", worst
    extra = os.path.join(got_dir, f"result{len(meta['results'])}.npy")
    if os.path.exists(extra):
        return False, "more results than the CPU's", worst
    return True, f"{len(meta['results'])} results", worst


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
            # an empty result: one element more (a filter keeping too much)
            b = np.zeros((1,) + a.shape[1:] if a.ndim else (1,), a.dtype)
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
            if a.dtype.kind == "f" and a.size:
                with np.errstate(all="ignore"):
                    b = (a.astype(np.float64) + 0.4 * allowed(r, a)).astype(
                        a.dtype)
                a = np.where(np.isfinite(a) & np.isfinite(b), b, a)
            np.save(os.path.join(got, f"result{i}.npy"), a)
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
                np.save(os.path.join(got, f"result{i}.npy"), a)
            ok, msg, _ = compare_dirs(d, got)
            if not ok:
                print(f"PASS {s} perturbed ({label}) detected: {msg}")
                passed += 1
            else:
                print(f"FAIL {s} perturbed ({label}) NOT detected")
                failed += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


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
    p = sub.add_parser("self-test")
    p.add_argument("dir")
    args = ap.parse_args()
    np.seterr(all="ignore")
    return {"prepare": prepare, "compare": cmd_compare,
            "unpack": unpack, "self-test": self_test}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
