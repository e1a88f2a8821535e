#!/usr/bin/env python3
"""Random pipeline generator and differential tester for fuse.

Generates well-typed random fuse programs (chains of maps with random
arith/math bodies, reductions over all or some dims with built-in kinds or
custom combiners, inclusive/exclusive scans, filters, broadcasts of
reduction results into maps, iota, gathers with in- and out-of-range
indices) over random shapes (0 and 1 sizes included) and dtypes (f32, f64,
i32, i64), avoiding undefined behaviour (no integer division, no shifts by
the width, no float-to-int conversion; integer add/mul wrap, which arith
defines). The generator evaluates each program itself with NumPy while it
builds it, so it knows the expected results.

For each seed:
  1. `fuse-opt` must verify the program;
  2. `fuse-run` (fusion on) and `fuse-run --no-fusion` run it on the same
     inputs (written as .npy by the generator);
  3. both must agree with each other and with the NumPy evaluation:
     integers exactly, floats exactly where the computation is exactly
     rounded in every order (+ - * / sqrt min max select casts), else within
     a tolerance scaled by the magnitudes involved (reassociated reductions,
     exp/log/tanh from different libms).

usage:
  gen-pipelines.py --emit SEED             print program SEED and exit
  gen-pipelines.py --seeds A:B [--fuse-opt P] [--fuse-run P] [--keep DIR]
Exits 1 when any seed fails; prints one line per failure and a summary
`seeds: N passed, N failed`.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

FLOATS = ("f32", "f64")
INTS = ("i32", "i64")
NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32,
      "i64": np.int64}
SIZES = (0, 1, 1, 2, 3, 5, 8, 17, 64, 100, 257, 1000)
SIZES2 = (0, 1, 2, 3, 7, 16, 33)
RTOL = {"f32": 2e-4, "f64": 1e-9}


class Val:
    """An SSA tensor value: its name, dtype, type-level shape (None =
    dynamic), the NumPy value, whether every element is computed exactly
    (bitwise reproducible in any evaluation order) and an error scale (the
    largest magnitude that went into it, for float tolerances)."""

    def __init__(self, name, dt, tshape, arr, exact, scale):
        self.name, self.dt, self.tshape = name, dt, tuple(tshape)
        self.arr, self.exact, self.scale = arr, exact, scale

    @property
    def shape(self):
        return self.arr.shape

    @property
    def ttype(self):
        return ttype(self.dt, self.tshape)


def ttype(dt, tshape):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in tshape)
    return f"tensor<{dims}{dt}>"


def fconst(x, dt):
    return f"{float(x)!r}".replace("inf", "0x7F800000") if dt in FLOATS else \
        str(int(x))


def maxabs(a):
    a = np.asarray(a)
    if a.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        m = np.nanmax(np.abs(a.astype(np.float64)))
    return float(m) if np.isfinite(m) else 1e300


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.lines = []     # function body
        self.args = []      # (Val, numpy input)
        self.pool = []      # Vals usable as operands
        self.n = 0
        self.consts = {}    # index constants

    def fresh(self, p="v"):
        self.n += 1
        return f"%{p}{self.n}"

    def emit(self, s):
        self.lines.append("    " + s)

    def index_const(self, k):
        if k not in self.consts:
            name = f"%c{k}"
            self.consts[k] = name
            self.emit(f"{name} = arith.constant {k} : index")
        return self.consts[k]

    def dim_of(self, v, d):
        """An index SSA value holding size d of v (for dynamic types)."""
        c = self.index_const(d)
        name = self.fresh("d")
        self.emit(f"{name} = tensor.dim {v.name}, {c} : {v.ttype}")
        return name

    # -- inputs -----------------------------------------------------------
    def make_input(self, dt, shape, static, kind="data"):
        r = self.r
        rng = np.random.default_rng(r.randrange(1 << 30))
        if kind == "index":
            hi = max(shape[1], 1)
            src_n = shape[1]
            arr = rng.integers(-3, src_n + 3, size=shape[0]).astype(NP[dt])
            if r.random() < 0.3 and shape[0] > 0:  # extreme indices
                arr[0] = np.iinfo(NP[dt]).max
                arr[-1] = np.iinfo(NP[dt]).min
            del hi
        elif dt in FLOATS:
            arr = rng.uniform(-1, 1, size=shape).astype(NP[dt])
            arr[arr == 0] = NP[dt](0.5)
            if r.random() < 0.3:
                arr = (arr * r.choice([4.0, 100.0])).astype(NP[dt])
        else:
            if r.random() < 0.2:  # large magnitudes: wrap-around paths
                info = np.iinfo(NP[dt])
                arr = rng.integers(info.min, info.max, size=shape,
                                   dtype=NP[dt], endpoint=True)
            else:
                arr = rng.integers(-100, 101, size=shape).astype(NP[dt])
        tshape = list(arr.shape) if static else [None] * arr.ndim
        name = f"%arg{len(self.args)}"
        v = Val(name, dt, tshape, arr, True, maxabs(arr))
        self.args.append(v)
        return v

    # -- scalar expression bodies ------------------------------------------
    def expr(self, dt, leaves, depth, ctx):
        """Returns (ssa, numpy array, exact) for a random expression in dt
        over `leaves` [(ssa, arr, exact)], emitting into ctx (list)."""
        r = self.r
        if depth == 0 or r.random() < 0.25:
            if r.random() < 0.15:
                c = r.choice([0.5, 1.5, -2.0, 3.0, 0.25]) if dt in FLOATS \
                    else r.choice([1, 2, 3, -7, 255])
                name = self.fresh("k")
                ctx.append(f"{name} = arith.constant {fconst(c, dt)} : {dt}")
                return name, NP[dt](c), True
            return r.choice(leaves)
        a = self.expr(dt, leaves, depth - 1, ctx)
        b = self.expr(dt, leaves, depth - 1, ctx)
        name = self.fresh("t")
        T = NP[dt]
        with np.errstate(all="ignore"):
            if dt in FLOATS:
                op = r.choice(["addf", "subf", "mulf", "divf", "maximumf",
                               "minimumf", "negf", "absf", "sqrt", "exp",
                               "tanh", "log", "select"])
                if op in ("addf", "subf", "mulf", "maximumf", "minimumf"):
                    ctx.append(f"{name} = arith.{op} {a[0]}, {b[0]} : {dt}")
                    f = {"addf": np.add, "subf": np.subtract,
                         "mulf": np.multiply, "maximumf": np.maximum,
                         "minimumf": np.minimum}[op]
                    return name, T(f(a[1], b[1])) if np.ndim(f(a[1], b[1])) == 0 \
                        else f(a[1], b[1]).astype(T), a[2] and b[2]
                if op == "divf":  # a / (|b| + 1): never a division by 0
                    ab, one, den = self.fresh("t"), self.fresh("k"), \
                        self.fresh("t")
                    ctx.append(f"{ab} = math.absf {b[0]} : {dt}")
                    ctx.append(f"{one} = arith.constant 1.0 : {dt}")
                    ctx.append(f"{den} = arith.addf {ab}, {one} : {dt}")
                    ctx.append(f"{name} = arith.divf {a[0]}, {den} : {dt}")
                    d = (np.abs(b[1]) + T(1)).astype(T)
                    return name, (a[1] / d).astype(T), a[2] and b[2]
                if op in ("negf", "absf"):
                    dialect = "arith" if op == "negf" else "math"
                    ctx.append(f"{name} = {dialect}.{op} {a[0]} : {dt}")
                    f = np.negative if op == "negf" else np.abs
                    return name, f(a[1]).astype(T), a[2]
                if op in ("sqrt", "log"):  # of |a| (+1 for log)
                    ab = self.fresh("t")
                    ctx.append(f"{ab} = math.absf {a[0]} : {dt}")
                    arg = ab
                    x = np.abs(a[1]).astype(T)
                    if op == "log":
                        one, s = self.fresh("k"), self.fresh("t")
                        ctx.append(f"{one} = arith.constant 1.0 : {dt}")
                        ctx.append(f"{s} = arith.addf {ab}, {one} : {dt}")
                        arg, x = s, (x + T(1)).astype(T)
                    ctx.append(f"{name} = math.{op} {arg} : {dt}")
                    f = np.sqrt if op == "sqrt" else np.log
                    return name, f(x).astype(T), a[2] and op == "sqrt"
                if op in ("exp", "tanh"):  # exp of tanh: bounded
                    t = self.fresh("t")
                    ctx.append(f"{t} = math.tanh {a[0]} : {dt}")
                    x = np.tanh(a[1]).astype(T)
                    if op == "exp":
                        ctx.append(f"{name} = math.exp {t} : {dt}")
                        return name, np.exp(x).astype(T), False
                    ctx.append(f"{name} = arith.addf {t}, {t} : {dt}")
                    return name, (x + x).astype(T), False
                # select on a comparison of exact values only
                if not (a[2] and b[2]):
                    ctx.append(f"{name} = arith.addf {a[0]}, {b[0]} : {dt}")
                    return name, (a[1] + b[1]).astype(T), False
                p = self.fresh("p")
                pred = r.choice(["olt", "ogt", "oge"])
                ctx.append(f"{p} = arith.cmpf {pred}, {a[0]}, {b[0]} : {dt}")
                ctx.append(f"{name} = arith.select {p}, {a[0]}, {b[0]} : {dt}")
                f = {"olt": np.less, "ogt": np.greater,
                     "oge": np.greater_equal}[pred]
                return name, np.where(f(a[1], b[1]), a[1], b[1]).astype(T), \
                    True
            op = r.choice(["addi", "subi", "muli", "andi", "ori", "xori",
                           "maxsi", "minsi", "shrsi", "select"])
            if op == "shrsi":
                k = r.randint(1, 5)
                c = self.fresh("k")
                ctx.append(f"{c} = arith.constant {k} : {dt}")
                ctx.append(f"{name} = arith.shrsi {a[0]}, {c} : {dt}")
                return name, np.right_shift(a[1], T(k)).astype(T), True
            if op == "select":
                p = self.fresh("p")
                pred = r.choice(["slt", "sgt", "eq", "ne"])
                ctx.append(f"{p} = arith.cmpi {pred}, {a[0]}, {b[0]} : {dt}")
                ctx.append(f"{name} = arith.select {p}, {a[0]}, {b[0]} : {dt}")
                f = {"slt": np.less, "sgt": np.greater, "eq": np.equal,
                     "ne": np.not_equal}[pred]
                return name, np.where(f(a[1], b[1]), a[1], b[1]).astype(T), \
                    True
            f = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
                 "andi": np.bitwise_and, "ori": np.bitwise_or,
                 "xori": np.bitwise_xor, "maxsi": np.maximum,
                 "minsi": np.minimum}[op]
            ctx.append(f"{name} = arith.{op} {a[0]}, {b[0]} : {dt}")
            return name, np.asarray(f(a[1], b[1])).astype(T), True

    def convert(self, ssa, arr, src, dst, ctx):
        """Converts a scalar from src to dst dtype (exactly as NumPy's
        astype does for these pairs); no float->int conversions."""
        if src == dst:
            return ssa, arr
        name = self.fresh("t")
        width = {"f32": 32, "f64": 64, "i32": 32, "i64": 64}
        if src in INTS and dst in FLOATS:
            ctx.append(f"{name} = arith.sitofp {ssa} : {src} to {dst}")
        elif src in FLOATS and dst in FLOATS:
            op = "extf" if width[dst] > width[src] else "truncf"
            ctx.append(f"{name} = arith.{op} {ssa} : {src} to {dst}")
        else:
            op = "extsi" if width[dst] > width[src] else "trunci"
            ctx.append(f"{name} = arith.{op} {ssa} : {src} to {dst}")
        return name, np.asarray(arr).astype(NP[dst])

    # -- ops ----------------------------------------------------------------
    def same_shape(self, v):
        return [w for w in self.pool if w.tshape == v.tshape and
                w.shape == v.shape]

    def gen_map(self):
        r = self.r
        base = r.choice(self.pool)
        cands = self.same_shape(base)
        ins = [base] + [r.choice(cands) for _ in range(r.randint(0, 2))]
        nres = 2 if r.random() < 0.2 else 1
        blk = [self.fresh("a") for _ in ins]
        ctx = []
        res_dts, res_vals = [], []
        for _ in range(nres):
            dt = r.choice([base.dt] * 3 + list(FLOATS + INTS))
            if dt in INTS and base.dt in FLOATS:
                dt = base.dt  # no float -> int conversion
            leaves = []
            for b, v in zip(blk, ins):
                if v.dt in FLOATS and dt in INTS:
                    continue
                s, a = self.convert(b, v.arr, v.dt, dt, ctx)
                exact = v.exact and not (
                    v.dt in INTS and dt in FLOATS and dt == "f32"
                    and maxabs(v.arr) >= 2**24) or v.exact
                leaves.append((s, a, exact))
            if not leaves:
                dt = ins[0].dt
                leaves = [(blk[0], ins[0].arr, ins[0].exact)]
            name, arr, exact = self.expr(dt, leaves, r.randint(1, 3), ctx)
            arr = np.broadcast_to(np.asarray(arr, dtype=NP[dt]),
                                  base.shape).copy()
            res_dts.append(dt)
            res_vals.append((name, arr, exact))
        names = [self.fresh() for _ in range(nres)]
        in_types = ", ".join(v.ttype for v in ins)
        out_types = ", ".join(ttype(dt, base.tshape) for dt in res_dts)
        self.emit(f"{', '.join(names)} = fuse.map "
                  f"{', '.join(v.name for v in ins)} : {in_types} -> "
                  f"{out_types} {{")
        self.emit("^bb0(" + ", ".join(f"{b}: {v.dt}" for b, v in
                                      zip(blk, ins)) + "):")
        for line in ctx:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {', '.join(x[0] for x in res_vals)} : "
                  f"{', '.join(res_dts)}")
        self.emit("}")
        scale = max(v.scale for v in ins)
        out = []
        for nm, dt, (_, arr, exact) in zip(names, res_dts, res_vals):
            out.append(Val(nm, dt, base.tshape, arr, exact,
                           max(scale, maxabs(arr)) * (1 if exact else 4)))
        return out

    def reduce_ref(self, kind, x, axes, init, dt):
        T = NP[dt]
        f = {"add": np.add, "mul": np.multiply, "min": np.minimum,
             "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}[kind]
        with np.errstate(all="ignore"):
            return np.asarray(f.reduce(x.astype(T), axis=axes, dtype=T,
                                       initial=T(init))).astype(T)

    def identity(self, kind, dt):
        if dt in FLOATS:
            return {"add": 0.0, "mul": 1.0, "min": np.inf,
                    "max": -np.inf}[kind]
        info = np.iinfo(NP[dt])
        return {"add": 0, "mul": 1, "min": info.max, "max": info.min,
                "and": -1, "or": 0, "xor": 0}[kind]

    def scalar_init(self, dt):
        c = self.r.choice([0.5, -1.0, 2.0, 0.0]) if dt in FLOATS else \
            self.r.choice([0, 1, -5, 42])
        name = self.fresh("i")
        self.emit(f"{name} = arith.constant {fconst(c, dt)} : {dt}")
        return name, c

    def kinds_for(self, dt):
        return ["add", "mul", "min", "max"] + (
            ["and", "or", "xor"] if dt in INTS else [])

    def gen_reduce(self):
        r = self.r
        x = r.choice(self.pool)
        rank = x.arr.ndim
        if rank == 0:
            return []
        if r.random() < 0.4 or rank == 1:
            dims = None
            axes = tuple(range(rank))
        else:
            dims = sorted(r.sample(range(rank), r.randint(1, rank)))
            axes = tuple(dims)
        kept = [d for d in range(rank) if d not in axes]
        rts = [x.tshape[d] for d in kept]
        dims_txt = f" dims [{', '.join(map(str, dims))}]" if dims else ""
        count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        name = self.fresh()
        # custom combiner: an argmax-style tuple over x and an iota
        if r.random() < 0.25 and x.exact and rank == 1:
            return self.gen_argmax(x)
        if r.random() < 0.2:
            # sum via a combiner region (a user-written add)
            init, c = self.scalar_init(x.dt)
            op = "addf" if x.dt in FLOATS else "addi"
            self.emit(f"{name} = fuse.reduce {x.name} init({init} : "
                      f"{x.dt}){dims_txt} : {x.ttype} -> {ttype(x.dt, rts)} {{")
            acc, e, sm = self.fresh("b"), self.fresh("b"), self.fresh("t")
            self.emit(f"^bb0({acc}: {x.dt}, {e}: {x.dt}):")
            self.emit(f"  {sm} = arith.{op} {acc}, {e} : {x.dt}")
            self.emit(f"  fuse.yield {sm} : {x.dt}")
            self.emit("}")
            arr = self.reduce_ref("add", x.arr, axes, c, x.dt)
            exact = x.dt in INTS
            return [Val(name, x.dt, rts, arr, exact,
                        max(x.scale, maxabs(arr)) * max(count, 1) + abs(c))]
        kind = r.choice(self.kinds_for(x.dt))
        if kind == "mul" and x.dt in FLOATS and x.arr.size:
            # A float product that overflows makes the result depend on
            # the association (init 0 * a finite prefix is 0; times an
            # overflowed partial product it is NaN): take max instead (no
            # extra draw, so the seed's later choices stay the same).
            with np.errstate(all="ignore"):
                logs = np.log10(np.maximum(np.abs(x.arr.astype(np.float64)),
                                           1e-300))
            part = np.sum(np.maximum(logs, 0), axis=axes)
            if np.max(part) > 0.9 * np.log10(np.finfo(NP[x.dt]).max):
                kind = "max"
        if r.random() < 0.4:
            init, c = self.scalar_init(x.dt)
            init_txt = f" init({init} : {x.dt})"
        else:
            init_txt, c = "", self.identity(kind, x.dt)
        self.emit(f"{name} = fuse.reduce {kind} {x.name}{init_txt}{dims_txt} "
                  f": {x.ttype} -> {ttype(x.dt, rts)}")
        arr = self.reduce_ref(kind, x.arr, axes, c, x.dt)
        exact = x.exact and (x.dt in INTS or kind in ("min", "max"))
        scale = max(x.scale, maxabs(arr))
        if kind == "add":
            scale = scale * max(count, 1) + abs(float(c))
        return [Val(name, x.dt, rts, arr, exact, scale)]

    def gen_argmax(self, x):
        """(max value, first index of it) with a custom tuple combiner;
        exact inputs only (ties are decided by exact comparisons)."""
        n = x.shape[0]
        idx = self.fresh()
        sizes = f"{self.dim_of(x, 0)} " if x.tshape[0] is None else ""
        it = ttype("i64", x.tshape)
        self.emit(f"{idx} = fuse.iota {sizes}: {it}".replace("  :", " :"))
        ninf, c0 = self.fresh("i"), self.fresh("i")
        lo = "0xFF800000" if x.dt == "f32" else "0xFFF0000000000000"
        if x.dt in INTS:
            lo = str(np.iinfo(NP[x.dt]).min)
        self.emit(f"{ninf} = arith.constant {lo} : {x.dt}")
        self.emit(f"{c0} = arith.constant -1 : i64")
        v, i = self.fresh(), self.fresh()
        cmp = "arith.cmpf ogt" if x.dt in FLOATS else "arith.cmpi sgt"
        self.emit(f"{v}, {i} = fuse.reduce {x.name}, {idx} init({ninf}, {c0} "
                  f": {x.dt}, i64) : {x.ttype}, {it} -> tensor<{x.dt}>, "
                  f"tensor<i64> {{")
        av, ai, bv, bi, gt, v2, i2 = (self.fresh(p) for p in
                                      ("b", "b", "b", "b", "p", "t", "t"))
        self.emit(f"^bb0({av}: {x.dt}, {ai}: i64, {bv}: {x.dt}, {bi}: i64):")
        self.emit(f"  {gt} = {cmp}, {bv}, {av} : {x.dt}")
        self.emit(f"  {v2} = arith.select {gt}, {bv}, {av} : {x.dt}")
        self.emit(f"  {i2} = arith.select {gt}, {bi}, {ai} : i64")
        self.emit(f"  fuse.yield {v2}, {i2} : {x.dt}, i64")
        self.emit("}")
        if n == 0:
            mv = NP[x.dt](-np.inf) if x.dt in FLOATS else \
                np.iinfo(NP[x.dt]).min
            mi = -1
        else:
            k = int(np.argmax(x.arr))
            mv, mi = x.arr[k], k
            if x.dt in INTS and mv == np.iinfo(NP[x.dt]).min:
                mi = -1  # no element is greater than the init
        return [Val(v, x.dt, (), np.asarray(mv, NP[x.dt]), True,
                    maxabs(x.arr)),
                Val(i, "i64", (), np.asarray(mi, np.int64), True, 0)]

    def gen_scan(self):
        r = self.r
        x = r.choice([v for v in self.pool if v.arr.ndim >= 1] or [None])
        if x is None:
            return []
        rank = x.arr.ndim
        dim = r.randrange(rank)
        dim_txt = f" dim {dim}" if (dim != rank - 1 or r.random() < 0.3) \
            else ""
        kinds = ["add", "min", "max"] + (["mul", "xor"] if x.dt in INTS
                                         else [])
        kind = r.choice(kinds)
        excl = r.random() < 0.5
        if r.random() < 0.4:
            init, c = self.scalar_init(x.dt)
            init_txt = f" init({init} : {x.dt})"
        else:
            init_txt, c = "", self.identity(kind, x.dt)
        name = self.fresh()
        self.emit(f"{name} = fuse.scan {'exclusive' if excl else 'inclusive'}"
                  f" {kind} {x.name}{init_txt}{dim_txt} : {x.ttype} -> "
                  f"{x.ttype}")
        T = NP[x.dt]
        f = {"add": np.add, "mul": np.multiply, "min": np.minimum,
             "max": np.maximum, "xor": np.bitwise_xor}[kind]
        with np.errstate(all="ignore"):
            shp = list(x.shape)
            shp[dim] = 1
            initarr = np.full(shp, T(c), dtype=T)
            ext = np.concatenate([initarr, x.arr.astype(T)], axis=dim)
            acc = f.accumulate(ext, axis=dim, dtype=T).astype(T)
            n = x.shape[dim]
            sl = [slice(None)] * rank
            sl[dim] = slice(0, n) if excl else slice(1, n + 1)
            arr = acc[tuple(sl)].copy()
        exact = x.exact and (x.dt in INTS or kind in ("min", "max"))
        scale = max(x.scale, maxabs(arr))
        if kind == "add":
            scale = scale * max(x.shape[dim], 1) + abs(float(c))
        return [Val(name, x.dt, x.tshape, arr, exact, scale)]

    def gen_filter(self):
        r = self.r
        cands = [v for v in self.pool if v.arr.ndim == 1 and v.exact]
        if not cands:
            return []
        x = r.choice(cands)
        others = [w for w in self.same_shape(x) if w is not x]
        ins = [x] + ([r.choice(others)] if others and r.random() < 0.5 else [])
        blk = [self.fresh("a") for _ in ins]
        t = self.fresh("k")
        p = self.fresh("p")
        if x.dt in FLOATS:
            thr = r.choice([0.0, 0.25, -0.5])
            pred = r.choice(["ogt", "olt"])
            body = [f"{t} = arith.constant {thr!r} : {x.dt}",
                    f"{p} = arith.cmpf {pred}, {blk[0]}, {t} : {x.dt}"]
            mask = x.arr > thr if pred == "ogt" else x.arr < thr
        else:
            thr = r.choice([0, 10, -20])
            pred = r.choice(["sgt", "slt"])
            body = [f"{t} = arith.constant {thr} : {x.dt}",
                    f"{p} = arith.cmpi {pred}, {blk[0]}, {t} : {x.dt}"]
            mask = x.arr > thr if pred == "sgt" else x.arr < thr
        names = [self.fresh() for _ in ins]
        self.emit(f"{', '.join(names)} = fuse.filter "
                  f"{', '.join(v.name for v in ins)} : "
                  f"{', '.join(v.ttype for v in ins)} -> "
                  f"{', '.join(ttype(v.dt, [None]) for v in ins)} {{")
        self.emit("^bb0(" + ", ".join(f"{b}: {v.dt}" for b, v in
                                      zip(blk, ins)) + "):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {p} : i1")
        self.emit("}")
        return [Val(nm, v.dt, [None], v.arr[mask].copy(), v.exact, v.scale)
                for nm, v in zip(names, ins)]

    def gen_broadcast_map(self):
        """Broadcast a reduction result back to a full shape and combine
        it with a value of that shape in a map (softmax/variance style)."""
        r = self.r
        reds = [v for v in self.pool if v.arr.ndim < 2 and
                any(w.arr.ndim == v.arr.ndim + 1 or
                    (v.arr.ndim == 0 and w.arr.ndim >= 1) for w in self.pool)]
        if not reds:
            return []
        s = r.choice(reds)
        targets = [w for w in self.pool if w.arr.ndim > s.arr.ndim and
                   w.arr.ndim - s.arr.ndim <= 2]
        # pick a target whose kept dims match s
        opts = []
        for w in targets:
            k = w.arr.ndim - s.arr.ndim
            for dims in ([list(range(w.arr.ndim))] if s.arr.ndim == 0 else
                         [[d] for d in range(w.arr.ndim)] if k == 1 else []):
                kept = [d for d in range(w.arr.ndim) if d not in dims]
                if [w.shape[d] for d in kept] == list(s.shape) and \
                        [w.tshape[d] for d in kept] == list(s.tshape):
                    opts.append((w, dims))
        if not opts:
            return []
        w, dims = r.choice(opts)
        sizes = [self.dim_of(w, d) for d in dims if w.tshape[d] is None]
        b = self.fresh()
        sz = f" ({', '.join(sizes)})" if sizes else ""
        self.emit(f"{b} = fuse.broadcast {s.name} dims [{', '.join(map(str, dims))}]"
                  f"{sz} : {s.ttype} -> {ttype(s.dt, w.tshape)}")
        arr = np.broadcast_to(np.expand_dims(s.arr, tuple(dims)),
                              w.shape).copy()
        bv = Val(b, s.dt, w.tshape, arr, s.exact, s.scale)
        self.pool.append(bv)
        # and a map over the pair
        return self.map_pair(bv, w)

    def map_pair(self, a, b):
        dt = a.dt if a.dt == b.dt or a.dt in FLOATS else b.dt
        if a.dt in FLOATS and dt in INTS:
            dt = a.dt
        ctx = []
        x, y = self.fresh("a"), self.fresh("a")
        sa, aa = self.convert(x, a.arr, a.dt, dt, ctx) if not (
            a.dt in FLOATS and dt in INTS) else (x, a.arr)
        if b.dt in FLOATS and dt in INTS:
            return []
        sb, ab = self.convert(y, b.arr, b.dt, dt, ctx)
        name = self.fresh()
        op = self.r.choice(["sub", "add", "mul"])
        opn = f"arith.{op}{'f' if dt in FLOATS else 'i'}"
        res = self.fresh("t")
        ctx.append(f"{res} = {opn} {sb}, {sa} : {dt}")
        with np.errstate(all="ignore"):
            f = {"sub": np.subtract, "add": np.add, "mul": np.multiply}[op]
            arr = np.asarray(f(ab, aa)).astype(NP[dt])
        self.emit(f"{name} = fuse.map {a.name}, {b.name} : {a.ttype}, "
                  f"{b.ttype} -> {ttype(dt, a.tshape)} {{")
        self.emit(f"^bb0({x}: {a.dt}, {y}: {b.dt}):")
        for line in ctx:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {res} : {dt}")
        self.emit("}")
        return [Val(name, dt, a.tshape, arr, a.exact and b.exact,
                    max(a.scale, b.scale, maxabs(arr)) * 2)]

    def gen_iota(self):
        r = self.r
        w = r.choice([v for v in self.args if v.arr.ndim >= 1] or [None])
        if w is None:
            return []
        dt = r.choice(FLOATS + INTS)
        dim = r.randrange(w.arr.ndim)
        sizes = [self.dim_of(w, d) for d in range(w.arr.ndim)
                 if w.tshape[d] is None]
        name = self.fresh()
        dim_txt = f" dim {dim}" if dim or r.random() < 0.3 else ""
        self.emit(f"{name} = fuse.iota {', '.join(sizes)}{dim_txt} : "
                  f"{ttype(dt, w.tshape)}".replace("iota  :", "iota :")
                  .replace("iota  dim", "iota dim"))
        shp = [1] * w.arr.ndim
        shp[dim] = w.shape[dim]
        arr = np.broadcast_to(np.arange(w.shape[dim]).reshape(shp),
                              w.shape).astype(NP[dt])
        return [Val(name, dt, w.tshape, arr, True, maxabs(arr))]

    def gen_gather(self):
        r = self.r
        srcs = [v for v in self.pool if v.arr.ndim == 1]
        if not srcs:
            return []
        s = r.choice(srcs)
        idt = r.choice(INTS)
        nidx = r.choice(SIZES)
        idx = self.make_input(idt, (nidx, s.shape[0]), r.random() < 0.2,
                              kind="index")
        name = self.fresh()
        self.emit(f"{name} = fuse.gather {s.name}[{idx.name}] : {s.ttype}, "
                  f"{idx.ttype} -> {ttype(s.dt, idx.tshape)}")
        n = s.shape[0]
        ii = idx.arr.astype(np.int64)
        ok = (ii >= 0) & (ii < n)
        arr = np.zeros(ii.shape, NP[s.dt])
        arr[ok] = s.arr[ii[ok]]
        return [Val(name, s.dt, idx.tshape, arr, s.exact, s.scale)]

    # -- program ------------------------------------------------------------
    def build(self):
        r = self.r
        static = r.random() < 0.2
        rank = r.choice([1, 1, 2])
        shape = (r.choice(SIZES),) if rank == 1 else \
            (r.choice(SIZES2), r.choice(SIZES2))
        for _ in range(r.randint(1, 3)):
            self.pool.append(self.make_input(r.choice(FLOATS + INTS), shape,
                                             static))
        made = []
        for _ in range(r.randint(2, 6)):
            g = r.choice([self.gen_map] * 4 + [self.gen_reduce] * 3 +
                         [self.gen_scan] * 2 + [self.gen_filter] * 2 +
                         [self.gen_broadcast_map] * 2 + [self.gen_iota,
                                                         self.gen_gather])
            new = g()
            self.pool.extend(new)
            made.extend(new)
        if not made:
            made = self.gen_map()
            self.pool.extend(made)
        k = r.randint(1, min(3, len(made)))
        outs = [made[-1]] + r.sample(made[:-1], min(k - 1, len(made) - 1))
        sig = ", ".join(f"{a.name}: {a.ttype}" for a in self.args)
        res = ", ".join(v.ttype for v in outs)
        text = [f"// gen-pipelines seed {self.seed}",
                f"func.func @main({sig}) -> ({res}) {{"]
        text += self.lines
        text.append(f"    return {', '.join(v.name for v in outs)} : {res}")
        text.append("}")
        return "\n".join(text) + "\n", outs


def compare(got, v, what):
    """None if `got` matches Val v's reference, else a message."""
    ref = v.arr
    np.seterr(all="ignore")
    if got.shape != ref.shape:
        return f"{what}: shape {got.shape} != expected {ref.shape}"
    if got.dtype != ref.dtype:
        return f"{what}: dtype {got.dtype} != expected {ref.dtype}"
    if v.dt in INTS or v.exact:
        ok = np.array_equal(got, ref, equal_nan=v.dt in FLOATS)
        if v.dt in FLOATS and not ok:
            # exactly rounded ops agree bitwise; allow one ulp for libm
            # sqrt / division folding differences
            ok = np.allclose(got, ref, rtol=4 * np.finfo(ref.dtype).eps,
                             atol=0, equal_nan=True)
    else:
        tol = RTOL[v.dt]
        ok = np.allclose(got, ref, rtol=tol, atol=tol * max(v.scale, 1.0),
                         equal_nan=True)
    if ok:
        return None
    with np.errstate(all="ignore"):
        diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    if diff.size and not np.all(np.isnan(diff)):
        k = int(np.nanargmax(diff))
    else:
        # NaN against a number (or inf against -inf): the first such place
        bad = ~((got == ref) | (np.isnan(got) & np.isnan(ref))) \
            if v.dt in FLOATS else got != ref
        k = int(np.flatnonzero(bad)[0]) if np.any(bad) else 0
    return (f"{what}: mismatch at flat index {k}: got {got.flat[k]!r}, "
            f"expected {ref.flat[k]!r} (exact={v.exact}, scale={v.scale:.3g})")


def run_seed(seed, tools, workdir, keep):
    g = Gen(seed)
    text, outs = g.build()
    d = os.path.join(workdir, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "prog.mlir")
    with open(prog, "w") as f:
        f.write(text)
    argv = []
    for i, a in enumerate(g.args):
        p = os.path.join(d, f"in{i}.npy")
        np.save(p, a.arr)
        argv += ["--arg", p]
    errs = []
    p = subprocess.run([tools["opt"], prog, "-o", os.devnull],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        errs.append("fuse-opt rejects the program: " + p.stderr.strip()[:2000])
    else:
        results = {}
        for mode, extra in (("fused", []), ("unfused", ["--no-fusion"])):
            od = os.path.join(d, mode)
            shutil.rmtree(od, ignore_errors=True)
            p = subprocess.run([tools["run"], prog, "--entry", "main",
                                "--out", od] + extra + argv,
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                errs.append(f"fuse-run ({mode}) exit {p.returncode}: "
                            + (p.stderr.strip() or p.stdout.strip())[-2000:])
                continue
            results[mode] = [np.load(os.path.join(od, f"result{i}.npy"))
                             for i in range(len(outs))]
            for i, (got, v) in enumerate(zip(results[mode], outs)):
                m = compare(got, v, f"{mode} result{i} vs numpy")
                if m:
                    errs.append(m)
        if len(results) == 2:
            for i, (a, b) in enumerate(zip(results["fused"],
                                           results["unfused"])):
                v = Val("", outs[i].dt, (), b, outs[i].exact, outs[i].scale)
                m = compare(a, v, f"result{i} fused vs unfused")
                if m:
                    errs.append(m)
    if not errs and not keep:
        shutil.rmtree(d, ignore_errors=True)
    return errs, d


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--emit", type=int, metavar="SEED")
    ap.add_argument("--seeds", default="0:20", help="A:B (B excluded)")
    ap.add_argument("--fuse-opt", default="fuse-opt")
    ap.add_argument("--fuse-run", default="fuse-run")
    ap.add_argument("--workdir", help="where programs and arrays go "
                    "(default: a temporary directory)")
    ap.add_argument("--keep", action="store_true",
                    help="keep passing seeds' files too")
    args = ap.parse_args()
    if args.emit is not None:
        sys.stdout.write(Gen(args.emit).build()[0])
        return 0
    a, b = (int(x) for x in args.seeds.split(":"))
    tools = {"opt": args.fuse_opt, "run": args.fuse_run}
    workdir = args.workdir or tempfile.mkdtemp(prefix="fuse-gen-")
    os.makedirs(workdir, exist_ok=True)
    passed = failed = 0
    t0 = time.time()
    for seed in range(a, b):
        try:
            errs, d = run_seed(seed, tools, workdir, args.keep)
        except subprocess.TimeoutExpired as e:
            errs, d = [f"timeout: {e}"], os.path.join(workdir, f"seed{seed}")
        if errs:
            failed += 1
            print(f"FAIL seed {seed} ({d}):")
            for e in errs:
                print("  " + e.replace("\n", "\n    "))
        else:
            passed += 1
    print(f"seeds: {passed} passed, {failed} failed "
          f"({time.time() - t0:.1f} s)")
    if not args.workdir and failed == 0:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
