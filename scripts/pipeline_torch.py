#!/usr/bin/env python3
"""Translates a program of scripts/gen-pipelines.py (fuse dialect MLIR text)
into an equivalent PyTorch function, for the random-pipeline sweep
(bench/random_sweep.py: fuse against torch.compile of the same program).

  translate(text) -> Translation: .source (Python text defining
      `program(arg0, arg1, ...)` that returns a tuple of tensors, one per
      result), or .source None and .reason saying which op has no faithful
      torch form; .ops lists the live ops: (label such as "scan excl
      add", the values it streams: the sweep's triviality test).
  load(source, T) -> the function, with T the torch module (or a stand-in
      with the same few functions: test/Python/test_pipeline_torch.py runs
      the text on NumPy that way, without torch).

The text only uses T's functions, operators, indexing and the tensor
methods .to, .view, .contiguous, .numel and .shape, so that a small NumPy
stand-in can run it, and torch.compile traces it like hand-written code.
Semantics follow docs/dialect.md and gen-pipelines' NumPy reference:
  * integers are signless: unsigned compares, min/max, sorts and searches
    flip the sign bit (x ^ MIN orders like x unsigned), divui/remui widen
    to int64 (64-bit: Hacker's Delight's division from a halved dividend),
    shrui clears the sign bit after one step, uitofp masks (64-bit: two
    exact halves in f64);
  * f16/bf16 arithmetic is computed in f32 and rounded each op (as fuse
    does); conversions to them from f64 or integers round once (torch
    rounds twice, through f32; round-to-odd to f32 first fixes that);
    add/mul reductions and scans of them accumulate in f32;
  * gather reads 0 out of range; sorts are stable in CUB's radix order
    (-0.0 == +0.0, NaN by its sign bit); searchsorted is fuse's binary
    search (NaN after every number; the same positions on an unsorted
    array as torch's, which searches the same way);
  * and/or/xor reductions fold halves pairwise (torch has no bitwise
    reduction); histograms are bincount; segmented reductions gather each
    segment into a window as wide as the longest;
  * dead ops are dropped first (fuse drops them too; an untranslatable
    dead op does not matter).
Untranslatable: and/or/xor scans of integers wider than i1 (torch has no
bitwise cumulative op), sorts by a comparator region (no comparator sort), combiner regions other than one arith op per value
or the argmax pattern, float-to-int conversions, ops outside the tables.

usage: pipeline_torch.py FILE.mlir | --emit SEED [--gpu] [--classic]
(bench/random_sweep.py check A:B runs translations on CPU torch against
the generator's NumPy evaluation.)
"""
import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline_mlir import (FLOAT, NAME_RE, WIDTH,  # noqa: E402
                           Untranslatable, const_value, parse, parse_body,
                           parse_type, py_literal, split_top)
from pipeline_torch_helpers import HELPERS, helper_source  # noqa: E402

HALF = ("f16", "bf16")
TD = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
      "f64": "float64", "i1": "bool", "i8": "int8", "i16": "int16",
      "i32": "int32", "i64": "int64"}
INT_OF = {16: "int16", 32: "int32", 64: "int64"}   # float bits as ints


Translation = collections.namedtuple("Translation", "source reason ops")


def td(dt):
    return f"T.{TD[dt]}"


def smin(w):
    return -(1 << (w - 1))


def identity(kind, dt):
    """A built-in kind's identity in dt (signed view for integers)."""
    if dt == "i1":  # the kind as and/or/xor of booleans
        return BOOL_KIND[kind] == "and"
    if dt in FLOAT:
        return {"add": 0.0, "mul": 1.0, "min": float("inf"),
                "max": float("-inf")}[kind]
    w = WIDTH[dt]
    return {"add": 0, "mul": 1, "min": -smin(w) - 1, "max": smin(w),
            "umin": -1, "umax": 0, "and": -1, "or": 0, "xor": 0}[kind]


# -- scalar ops of bodies -----------------------------------------------------
FBIN = {"arith.addf": "({0} + {1})", "arith.subf": "({0} - {1})",
        "arith.mulf": "({0} * {1})", "arith.divf": "({0} / {1})",
        "arith.maximumf": "T.maximum({0}, {1})",
        "arith.minimumf": "T.minimum({0}, {1})"}
FUN = {"arith.negf": "(-{0})", "math.absf": "T.abs({0})",
       "math.sqrt": "T.sqrt({0})", "math.exp": "T.exp({0})",
       "math.log": "T.log({0})", "math.tanh": "T.tanh({0})"}
IBIN = {"arith.addi": "({0} + {1})", "arith.subi": "({0} - {1})",
        "arith.muli": "({0} * {1})", "arith.andi": "({0} & {1})",
        "arith.ori": "({0} | {1})", "arith.xori": "({0} ^ {1})",
        "arith.shli": "({0} << {1})", "arith.shrsi": "({0} >> {1})",
        "arith.maxsi": "T.maximum({0}, {1})",
        "arith.minsi": "T.minimum({0}, {1})"}
# i1 under integer ops: true is 1 unsigned and -1 signed, add wraps
BBIN = {"arith.andi": "&", "arith.muli": "&", "arith.minui": "&",
        "arith.maxsi": "&", "arith.ori": "|", "arith.maxui": "|",
        "arith.minsi": "|", "arith.xori": "^", "arith.addi": "^",
        "arith.subi": "^"}
CMPF = {"oeq": "({0} == {1})", "ogt": "({0} > {1})", "oge": "({0} >= {1})",
        "olt": "({0} < {1})", "ole": "({0} <= {1})",
        "one": "(({0} < {1}) | ({0} > {1}))",
        "ord": "(~T.isnan({0}) & ~T.isnan({1}))",
        "ueq": "~(({0} < {1}) | ({0} > {1}))", "ugt": "~({0} <= {1})",
        "uge": "~({0} < {1})", "ult": "~({0} >= {1})",
        "ule": "~({0} > {1})", "une": "({0} != {1})",
        "uno": "(T.isnan({0}) | T.isnan({1}))"}
CMPI = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}
CASTS = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp",
         "arith.extsi", "arith.extui", "arith.trunci", "arith.bitcast")
# a combiner region's one op per value -> the built-in kind it computes
REGION_KIND = {"arith.addi": "add", "arith.addf": "add", "arith.muli": "mul",
               "arith.mulf": "mul", "arith.andi": "and", "arith.ori": "or",
               "arith.xori": "xor", "arith.maxsi": "max",
               "arith.minsi": "min", "arith.maxui": "umax",
               "arith.minui": "umin", "arith.maximumf": "max",
               "arith.minimumf": "min"}
BOOL_KIND = {"add": "xor", "mul": "and", "and": "and", "or": "or",
             "xor": "xor", "min": "or", "max": "and", "umin": "and",
             "umax": "or"}


def half(fmt, args, dt):
    """Float op fmt over args in dt; f16/bf16 computed in f32 and rounded
    once to dt, as fuse does for every op."""
    if dt in HALF:
        return f"({fmt.format(*[a + '.to(T.float32)' for a in args])})" \
            f".to({td(dt)})"
    return fmt.format(*args)


def cast(name, x, src, dst):
    """A cast op's expression (x: src -> dst)."""
    if name in ("arith.extf", "arith.truncf"):
        return f"_rto({x}, {td(dst)})" if dst in HALF and src == "f64" \
            else f"{x}.to({td(dst)})"
    if name == "arith.sitofp":
        if src == "i1":  # true is -1
            return f"(-{x}.to({td(dst)}))"
        return f"_rto({x}.to(T.float64), {td(dst)})" if dst in HALF \
            else f"{x}.to({td(dst)})"
    if name == "arith.uitofp":
        w = WIDTH[src]
        if src == "i1":
            return f"{x}.to({td(dst)})"
        wide = f"({x}.to(T.int64) & {(1 << w) - 1})" if w < 64 else \
            f"_u64f({x})"
        if dst in HALF:
            return f"_rto({wide}.to(T.float64), {td(dst)})"
        return f"{wide}.to({td(dst)})"
    if name == "arith.extsi":
        return f"(-{x}.to({td(dst)}))" if src == "i1" else \
            f"{x}.to({td(dst)})"
    if name == "arith.extui":
        return f"{x}.to({td(dst)})" if src == "i1" else \
            f"({x}.to({td(dst)}) & {(1 << WIDTH[src]) - 1})"
    if name == "arith.trunci":
        return f"(({x} & 1) != 0)" if dst == "i1" else f"{x}.to({td(dst)})"
    if WIDTH[src] == WIDTH[dst] and "i1" not in (src, dst):  # bitcast
        return f"{x}.view({td(dst)})"
    raise Untranslatable(f"{name} {src} to {dst}")


def int_op(name, a, b, dt):
    """An integer binary op on signless dt (unsigned ops by the sign-bit
    flip, division widened)."""
    w = WIDTH[dt]
    if dt == "i1":
        if name not in BBIN:
            raise Untranslatable(f"{name} on i1")
        return f"({a} {BBIN[name]} {b})"
    if name in IBIN:
        return IBIN[name].format(a, b)
    m = smin(w)
    if name in ("arith.maxui", "arith.minui"):
        lt = f"(({a} ^ {m}) < ({b} ^ {m}))"
        return f"T.where({lt}, {b}, {a})" if name == "arith.maxui" else \
            f"T.where({lt}, {a}, {b})"
    if name == "arith.shrui":
        return f"_shru({a}, {b}, {-m - 1})"
    if name in ("arith.divui", "arith.remui"):
        rem = name == "arith.remui"
        if w < 64:
            return f"_divu({a}, {b}, {(1 << w) - 1}, {rem})"
        return f"_divu64({a}, {b}, {rem})"
    raise Untranslatable(f"{name}: not in the translator's integer ops")


def cmp_int(pred, a, b, dt):
    if pred in ("eq", "ne"):
        return f"({a} {'==' if pred == 'eq' else '!='} {b})"
    conv = ordered_int(dt, pred[0] == "u")
    return f"({conv(a)} {CMPI[pred[1:]]} {conv(b)})"


def ordered_int(dt, unsigned):
    """The expression map from an integer of dt to a signed integer
    ordered as dt is in a signed (`unsigned` false) or unsigned compare:
    i1 true is -1 signed and 1 unsigned; unsigned flips the sign bit."""
    if dt == "i1":
        return (lambda x: f"{x}.to(T.int8)") if unsigned else \
            (lambda x: f"(-{x}.to(T.int8))")
    if unsigned:
        return lambda x: f"({x} ^ {smin(WIDTH[dt])})"
    return lambda x: x


def scalar_op(name, pred, typ, args):
    """(expression, result type) of one body op over args [(expr, dt)]."""
    xs = [a[0] for a in args]
    if name in CASTS:
        src, _, dst = typ.partition(" to ")
        return cast(name, xs[0], src.strip(), dst.strip()), dst.strip()
    if name == "arith.cmpf":
        if pred not in CMPF:
            raise Untranslatable(f"arith.cmpf {pred}")
        return CMPF[pred].format(*xs), "i1"
    if name == "arith.cmpi":
        return cmp_int(pred, xs[0], xs[1], typ), "i1"
    if name == "arith.select":
        return f"T.where({xs[0]}, {xs[1]}, {xs[2]})", typ
    if name in FBIN and typ in FLOAT:
        return half(FBIN[name], xs, typ), typ
    if name in FUN and typ in FLOAT:
        return half(FUN[name], xs, typ), typ
    if typ in WIDTH and typ not in FLOAT and len(xs) == 2:
        return int_op(name, xs[0], xs[1], typ), typ
    raise Untranslatable(f"{name}: not in the translator's tables")


# -- top-level ops ------------------------------------------------------------
def tuple_expr(items):
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def sig_types(sig):
    """([operand types], [result types]) of `A, B -> C, D`."""
    ins, _, outs = sig.partition(" -> ")
    return ([parse_type(t) for t in split_top(ins, ", ") if t.strip()],
            [parse_type(t) for t in split_top(outs, ", ") if t.strip()])


Head = collections.namedtuple("Head", "words ins init dims dim seg sizes")


def parse_head(head):
    """A fuse op's text before ' : ': its leading words (kind, mode, side),
    tensor operands, init(...) names, dims [..], dim D, segments(...)
    names and a broadcast's (sizes)."""
    def names(pat):
        m = re.search(pat, head)
        return NAME_RE.findall(m.group(1)) if m else []
    dims = re.search(r"dims \[([\d, ]*)\]", head)
    dim = re.search(r"(?:^|\s)dim (\d+)", head)
    core = re.split(r" ?(?:init\(|dims \[|(?:^|\s)dim \d|segments\()",
                    head)[0]
    words = [w for w in core.replace(",", " ").split()
             if not w.startswith("%")]
    return Head(words, NAME_RE.findall(core), names(r"init\(([^:]*):"),
                [int(d) for d in dims.group(1).split(",")] if dims else None,
                int(dim.group(1)) if dim else None,
                names(r"segments\(([^:]*):"), names(r"\]\s*\(([^)]*)\)"))


def combiner(body, n):
    """The built-in kind each value of an n-input combiner region computes
    ("last" for a region yielding the element)."""
    blk, ops, yields = parse_body(body)
    if len(blk) != 2 * n or len(yields) != n:
        raise Untranslatable("combiner region: not one value per input")
    defs = {o[0][0]: o for o in ops}
    kinds = []
    for k, y in enumerate(yields):
        acc, e = blk[k], blk[n + k]
        o = defs.get(y)
        if y == e:
            kinds.append("last")
        elif o and o[1] in REGION_KIND and sorted(o[2]) == sorted([acc, e]):
            kinds.append(REGION_KIND[o[1]])
        else:
            raise Untranslatable("combiner region: not one arith op of the "
                                 "accumulator and the element")
    return kinds


def reduce_expr(kind, x, dt, axes, rank, init):
    """x (dt) reduced with a built-in kind over axes, combined with init (a
    0-d tensor): integers accumulate in int64 (wrapping like dt's own
    arithmetic), f16/bf16 add and mul in f32."""
    dim = "" if len(axes) == rank else f", dim={tuple_expr(map(str, axes))}"
    if dt == "i1":
        kind = BOOL_KIND[kind]
        n = f"T.sum({x}.to(T.int64){dim})"
        return {"and": f"((T.sum((~{x}).to(T.int64){dim}) == 0) & {init})",
                "or": f"(({n} > 0) | {init})",
                "xor": f"((({n} & 1) == 1) ^ {init})"}[kind]
    if kind in ("add", "mul"):
        op = "+" if kind == "add" else "*"
        f = "T.sum" if kind == "add" else "T.prod"
        if kind == "mul" and dim and len(axes) > 1:
            x, dim = f"_flat({x}, {tuple_expr(map(str, axes))})", ", dim=-1"
        elif kind == "mul" and dim:
            dim = f", dim={axes[0]}"
        if dt in ("f32", "f64", "i64"):  # in their own type
            return f"({f}({x}{dim}) {op} {init})"
        acc = "T.float32" if dt in HALF else "T.int64"
        cv = f"{x}.to(T.float32)" if dt in HALF else x
        kw = "" if dt in HALF else ", dtype=T.int64"
        return f"({f}({cv}{dim}{kw}) {op} {init}.to({acc})).to({td(dt)})"
    ax = tuple_expr(map(str, axes))
    if kind in ("min", "max"):
        return f"_mm({x}, {ax}, {kind == 'max'}, {init})"
    if kind in ("umin", "umax"):
        m = smin(WIDTH[dt])
        return f"(_mm({x} ^ {m}, {ax}, {kind == 'umax'}, {init} ^ {m}) ^ {m})"
    if kind in ("and", "or", "xor") and dt not in FLOAT:
        return f"_fold({x}, {ax}, {kind!r}, {init})"
    raise Untranslatable(f"reduce {kind} over {dt}")


def scan_expr(kind, x, dt, d, init, excl):
    """The scan of x (dt) along d from init: torch's cumulative ops (the
    inclusive scan; an exclusive one is it shifted by one after init)."""
    if kind == "last":
        incl = x
    elif dt == "i1":
        kind = BOOL_KIND[kind]
        n = f"T.cumsum({x}.to(T.int64), {d})"
        incl = {"xor": f"((({n} & 1) == 1) ^ {init})",
                "or": f"(({n} > 0) | {init})",
                "and": f"((T.cumsum((~{x}).to(T.int64), {d}) == 0) & {init})"
                }[kind]
    elif kind in ("add", "mul"):
        f, op = ("T.cumsum", "+") if kind == "add" else ("T.cumprod", "*")
        if dt in ("f32", "f64", "i64"):  # in their own type
            incl = f"({f}({x}, {d}) {op} {init})"
        else:
            acc = "T.float32" if dt in HALF else "T.int64"
            cv = f"{x}.to(T.float32)" if dt in HALF else x
            kw = "" if dt in HALF else ", dtype=T.int64"
            incl = f"({f}({cv}, {d}{kw}) {op} {init}.to({acc})).to({td(dt)})"
    elif kind in ("min", "max"):
        f = "T.maximum" if kind == "max" else "T.minimum"
        incl = f"{f}(T.cum{kind}({x}, {d}).values, {init})"
    elif kind in ("umin", "umax"):
        m = smin(WIDTH[dt])
        f = "T.maximum" if kind == "umax" else "T.minimum"
        incl = f"({f}(T.cum{kind[1:]}({x} ^ {m}, {d}).values, {init} ^ {m})" \
            f" ^ {m})"
    else:
        raise Untranslatable("scan and/or/xor over integers wider than i1: "
                             "torch has no bitwise cumulative op")
    return f"_excl({incl}, {init}, {d})" if excl else incl


def order_key(x, dt, uns, search=False):
    """x as a signed key ordered like fuse's sort (search: searchsorted,
    NaN last); None where x orders itself."""
    w = WIDTH[dt]
    if dt in FLOAT:
        f = "_skey" if search else "_fkey"
        return f"{f}({x}, T.{INT_OF[w]}, {smin(w)})"
    if dt == "i1":
        return f"{x}.to(T.int8)"
    return f"({x} ^ {smin(w)})" if uns else None


def arg_key(x, dt, init, pred):
    """(key, init's key) for the argmax pattern with cmp `pred` (the new
    element wins when pred(element, accumulator)): argmax of the key is
    the first winner; NaN never wins (an ordered compare)."""
    gt = pred[1:] == "gt"
    if dt in FLOAT:
        if pred[0] != "o":
            raise Untranslatable("argmax-style region with an unordered "
                                 "compare")
        lo = py_literal(float("-inf" if gt else "inf"))
        k = f"T.where(T.isnan({x}), {lo}, {x})"
        return (k, init) if gt else (f"(-{k})", f"(-{init})")
    f = ordered_int(dt, pred[0] == "u")
    k, ki = f(x), f(init)
    return (k, ki) if gt else (f"(~{k})", f"(~{ki})")


class Emitter:
    """Emits `program`'s body op by op: tensors under their MLIR names
    (made identifiers), index values as Python ints, scalar constants
    inlined as 0-d tensors where used."""

    def __init__(self):
        self.lines, self.used = [], {"T", "dev", "program"}
        self.vals, self.py, self.consts = {}, {}, {}
        self.live = set()   # the values the results depend on
        self.ops = []   # (label, values it streams) per live op

    def line(self, s):
        self.lines.append("    " + s)

    def name(self, n):
        s = re.sub(r"\W", "_", n)
        s = "v_" + s if not s or s[0].isdigit() or s[0] == "_" else s
        while s in self.used:
            s += "_"
        self.used.add(s)
        return s

    def define(self, n, dt, expr):
        v = self.name(n)
        self.line(f"{v} = {expr}")
        self.py[n], self.vals[n] = v, dt
        return v

    def tensor(self, n):
        if n not in self.vals:
            raise Untranslatable(f"operand %{n} is not a tensor")
        return self.py[n], self.vals[n]

    def const(self, v, dt):
        return f"_k({py_literal(v)}, {td(dt)}, dev)"

    def scalar(self, n):
        if n not in self.consts:
            raise Untranslatable("an init that is not an arith.constant")
        return self.const(self.consts[n][1], self.consts[n][0])

    def ident(self, kind, dt):
        if kind == "last":
            raise Untranslatable("a region keeping the last element without "
                                 "an init")
        return self.const(identity(kind, dt), dt)

    def body_val(self, env, n):
        if n in env:
            return env[n]
        if n in self.consts:  # a constant defined above the body
            return self.scalar(n), self.consts[n][0], False
        raise Untranslatable("a body reading a value defined above it")

    def region(self, body, ins, keep=None):
        """Emits a body's live ops over tensors ins [(expr, dt)]; returns
        its yields [(expr, dt, full)] (full: depends on an input; else a
        0-d tensor, broadcast by the caller), only those at positions
        `keep` if given (the others' ops are dead)."""
        blk, ops, yields = parse_body(body)
        if keep is not None:
            yields = [y for k, y in enumerate(yields) if k in keep]
        env = {b: (x, dt, True) for b, (x, dt) in zip(blk, ins)}
        need, live = set(yields), []
        for o in reversed(ops):
            if set(o[0]) & need:
                live.append(o)
                need |= set(o[2])
        for res, name, operands, pred, typ in reversed(live):
            if name == "arith.constant":
                if typ not in TD:  # an index, for a tensor.dim of a value above
                    raise Untranslatable(f"a constant of type {typ} in a body")
                env[res[0]] = (self.const(const_value(pred, typ), typ), typ,
                               False)
                continue
            args = [self.body_val(env, o) for o in operands]
            expr, dt = scalar_op(name, pred, typ, args)
            env[res[0]] = (self.name(res[0]), dt, any(a[2] for a in args))
            self.line(f"{env[res[0]][0]} = {expr}")
        return [self.body_val(env, y) for y in yields]

    def op(self, op):
        f = getattr(self, "op_" + op.name.split(".")[-1], None)
        if f is None or op.name.split(".")[0] not in ("fuse", "arith",
                                                       "tensor"):
            raise Untranslatable(f"{op.name}: not in the translator's tables")
        f(op, parse_head(op.head) if op.name.startswith("fuse.") else None)

    def op_constant(self, op, _):
        if op.sig == "index":
            v = self.name(op.results[0])
            self.line(f"{v} = {int(op.head, 0)}")
            self.py[op.results[0]] = v
        else:
            self.consts[op.results[0]] = (op.sig, const_value(op.head,
                                                              op.sig))

    def op_dim(self, op, _):
        t, c = NAME_RE.findall(op.head)
        v = self.name(op.results[0])
        self.line(f"{v} = {self.tensor(t)[0]}.shape[{self.py[c]}]")
        self.py[op.results[0]] = v

    def op_map(self, op, h):
        ins = [self.tensor(n) for n in h.ins]
        keep = [k for k, r in enumerate(op.results) if r in self.live]
        outs = [(r, t) for k, (r, t) in enumerate(zip(
            op.results, sig_types(op.sig)[1])) if k in keep]
        for (r, (dt, _)), (x, _, full) in zip(
                outs, self.region(op.body, ins, keep)):
            self.define(r, dt, x if full else
                        f"T.broadcast_to({x}, {ins[0][0]}.shape)")
        self.ops.append(("map", h.ins + [r for r, _ in outs]))

    def op_reduce(self, op, h):
        rank = len(sig_types(op.sig)[0][0][1])
        axes = tuple(h.dims) if h.dims is not None else tuple(range(rank))
        if op.body is not None and len(h.ins) == 2:
            return self.argext(op, h, axes, rank)
        if len(h.ins) != 1:
            raise Untranslatable("reduce of several inputs (sibling kinds "
                                 "or a tuple combiner)")
        x, dt = self.tensor(h.ins[0])
        kind = h.words[0] if op.body is None else combiner(op.body, 1)[0]
        if kind == "last":
            raise Untranslatable("reduce keeping the last element")
        init = self.scalar(h.init[0]) if h.init else self.ident(kind, dt)
        self.define(op.results[0], dt, reduce_expr(kind, x, dt, axes, rank,
                                                   init))
        label = "reduce region " if op.body is not None else "reduce "
        self.ops.append((label + kind, h.ins))

    def argext(self, op, h, axes, rank):
        """The argmax pattern: (value, index) inputs, p = cmp(new, acc),
        both selected by p."""
        blk, ops, ys = parse_body(op.body)
        bad = Untranslatable("combiner region of two inputs other than "
                             "the argmax pattern")
        if len(blk) != 4 or len(ops) != 3 or len(axes) != rank:
            raise bad
        av, ai, bv, bi = blk
        p, pred = ops[0][0][0], ops[0][3]
        if not (ops[0][1] in ("arith.cmpf", "arith.cmpi") and
                ops[0][2] == [bv, av] and pred in (
                    "ogt", "olt", "sgt", "slt", "ugt", "ult") and
                ops[1][1:3] == ("arith.select", [p, bv, av]) and
                ops[2][1:3] == ("arith.select", [p, bi, ai]) and
                ys == [ops[1][0][0], ops[2][0][0]]):
            raise bad
        (x, dt), (idx, idt) = self.tensor(h.ins[0]), self.tensor(h.ins[1])
        init, iinit = self.scalar(h.init[0]), self.scalar(h.init[1])
        key, kinit = arg_key(x, dt, init, pred)
        v, i = self.name(op.results[0]), self.name(op.results[1])
        self.line(f"{v}, {i} = _argext({key}, {x}, {idx}, {kinit}, {init}, "
                  f"{iinit})")
        self.py.update({op.results[0]: v, op.results[1]: i})
        self.vals.update({op.results[0]: dt, op.results[1]: idt})
        kind = "argmax" if pred[1:] == "gt" else "argmin"
        self.ops.append(("reduce " + kind, h.ins))

    def op_scan(self, op, h):
        rank = len(sig_types(op.sig)[0][0][1])
        d = h.dim if h.dim is not None else rank - 1
        if op.body is None and (len(h.words) < 2 or len(h.ins) != 1):
            raise Untranslatable("scan of several inputs with built-in "
                                 "kinds")
        kinds = [h.words[1]] if op.body is None else \
            combiner(op.body, len(h.ins))
        for k, (n, r, kind) in enumerate(zip(h.ins, op.results, kinds)):
            x, dt = self.tensor(n)
            init = self.scalar(h.init[k]) if h.init else self.ident(kind, dt)
            self.define(r, dt, scan_expr(kind, x, dt, d,
                                         init, h.words[0] == "exclusive"))
            self.ops.append((f"scan {h.words[0][:4]} {kind}", [n]))

    def op_filter(self, op, h):
        ins = [self.tensor(n) for n in h.ins]
        (p, _, full), = self.region(op.body, ins)
        mask = self.name("mask")
        self.line(f"{mask} = " + (p if full else
                                  f"T.broadcast_to({p}, {ins[0][0]}.shape)"))
        for r, (x, dt) in zip(op.results, ins):
            self.define(r, dt, f"{x}[{mask}]")
        self.ops.append(("filter", h.ins))

    def op_sort(self, op, h):
        if op.body:
            raise Untranslatable("sort by a comparator region: torch has no "
                                 "comparator sort")
        ins = [self.tensor(n) for n in h.ins]
        desc = h.words[0] == "descending"
        key = order_key(ins[0][0], ins[0][1], "unsigned" in h.words)
        if "positions" in h.words:
            k, p = self.name(op.results[0]), self.name(op.results[1])
            self.line(f"{k}, {p} = _argsort({key or ins[0][0]}, {desc}, "
                      f"{ins[0][0]})")
            self.py[op.results[0]], self.vals[op.results[0]] = k, ins[0][1]
            self.py[op.results[1]], self.vals[op.results[1]] = p, "i64"
        elif key is None and len(ins) == 1:  # signed integers sort themselves
            self.define(op.results[0], ins[0][1], f"T.sort({ins[0][0]}, "
                        f"stable=True, descending={desc}).values")
        else:
            names = [self.name(r) for r in op.results]
            self.line(f"{', '.join(names)}, = _sort({key or ins[0][0]}, "
                      f"{desc}, {', '.join(x for x, _ in ins)})")
            for r, v, (_, dt) in zip(op.results, names, ins):
                self.py[r], self.vals[r] = v, dt
        self.ops.append(("sort", h.ins))

    def op_searchsorted(self, op, h):
        (s, dt), (v, _) = self.tensor(h.ins[0]), self.tensor(h.ins[1])
        uns = "unsigned" in h.words
        ks = order_key(s, dt, uns, True) or s
        kv = order_key(v, dt, uns, True) or v
        self.define(op.results[0], "i64", f"T.searchsorted({ks}, {kv}, "
                    f"right={h.words[0] == 'right'})")
        self.ops.append(("searchsorted", h.ins[1:] + op.results))

    def op_histogram(self, op, h):
        cdt, dims = sig_types(op.sig)[1][0]
        self.define(op.results[0], cdt, f"_hist({self.tensor(h.ins[0])[0]}, "
                    f"{dims[0]}, {td(cdt)})")
        self.ops.append(("histogram", h.ins))

    def op_segmented_reduce(self, op, h):
        (x, dt), st, en = self.tensor(h.ins[0]), *h.seg
        st, en = self.tensor(st)[0], self.tensor(en)[0]
        kind = h.words[0] if op.body is None else combiner(op.body, 1)[0]
        if dt == "i1" or (h.init and kind != "last"):
            raise Untranslatable("segmented_reduce of i1 or with an init")
        if kind == "last":
            if not h.init:
                self.ident(kind, dt)
            expr = f"_seg({x}, {st}, {en}, 'last', {self.scalar(h.init[0])}" \
                ", None)"
        else:
            acc = "T.float32" if dt in HALF else \
                td(dt) if dt in FLOAT else "T.int64"
            m = smin(WIDTH[dt])
            u = kind in ("umin", "umax")
            xk, ident = (f"({x} ^ {m})", f"({self.ident(kind, dt)} ^ {m})") \
                if u else (x, self.ident(kind, dt))
            expr = f"_seg({xk}, {st}, {en}, {kind[u:]!r}, {ident}, {acc})"
            expr = f"({expr} ^ {m})" if u else expr
        self.define(op.results[0], dt, expr)
        self.ops.append((f"segmented {kind}", h.seg + op.results))

    def op_broadcast(self, op, h):
        s, dt = self.tensor(h.ins[0])
        sizes = iter(self.py[n] for n in h.sizes)
        view, shape, j = [], [], 0
        for i, n in enumerate(sig_types(op.sig)[1][0][1]):
            if i in h.dims:
                view.append("1")
                shape.append(str(n) if n is not None else next(sizes))
            else:
                view.append(f"{s}.shape[{j}]")
                shape.append(f"{s}.shape[{j}]")
                j += 1
        self.define(op.results[0], dt, f"T.broadcast_to(T.reshape({s}, "
                    f"{tuple_expr(view)}), {tuple_expr(shape)})")
        self.ops.append(("broadcast", op.results))

    def op_iota(self, op, h):
        dt, dims = parse_type(op.sig)
        sizes = iter(self.py[n] for n in h.ins)
        shape = [str(n) if n is not None else next(sizes) for n in dims]
        d = h.dim or 0
        ar = f"T.arange({shape[d]}, device=dev)"
        if dt == "i1":
            raise Untranslatable("iota of i1")
        ar = f"_rto({ar}.to(T.float64), {td(dt)})" if dt in HALF else \
            f"{ar}.to({td(dt)})"
        if len(dims) > 1:
            view = ["1"] * len(dims)
            view[d] = shape[d]
            ar = f"T.broadcast_to(T.reshape({ar}, {tuple_expr(view)}), " \
                f"{tuple_expr(shape)})"
        self.define(op.results[0], dt, ar)
        self.ops.append(("iota", op.results))

    def op_prefix(self, op, h):
        # the count is clamped to the source, as fuse does; slicing by it
        # reads it on the host (torch has no device-sized view)
        (x, dt), (n, _) = self.tensor(h.ins[0]), self.tensor(h.ins[1])
        self.define(op.results[0], dt,
                    f"{x}[:int(T.clamp({n}, 0, {x}.shape[0]))]")
        self.ops.append(("prefix", h.ins))

    def op_gather(self, op, h):
        (s, dt), (i, _) = self.tensor(h.ins[0]), self.tensor(h.ins[1])
        self.define(op.results[0], dt, f"_gather({s}, {i})")
        self.ops.append(("gather", h.ins[1:] + op.results))


def uses(op):
    """The values an op reads (a body may read constants above it)."""
    names = set(NAME_RE.findall(op.head))
    if op.body:
        blk, ops, _ = parse_body(op.body)
        local = set(blk) | {r for o in ops for r in o[0]}
        names |= {n for l in op.body for n in NAME_RE.findall(l)} - local
    return names


def live_ops(ops, rets):
    """The ops the results depend on, in order (fuse drops the others),
    and the values they read."""
    need, live = set(rets), []
    for op in reversed(ops):
        if set(op.results) & need:
            live.append(op)
            need |= uses(op)
    return live[::-1], need


def distinct_results(em, exprs, params):
    """Each result as a tensor of its own, as fuse's are (every result is
    written to a buffer of its own): `.contiguous()`, or `.clone()` where
    the result is, through plain assignments, an argument or an earlier
    result (an identity map returned beside its input), which torch would
    otherwise return without writing anything."""
    alias = {}
    for l in em.lines:
        m = re.fullmatch(r"\s*(\w+) = (\w+)", l)
        if m:
            alias[m.group(1)] = m.group(2)

    def root(v):
        while v in alias:
            v = alias[v]
        return v
    seen, out = set(params), []
    for e in exprs:
        r = root(e)
        out.append(f"{e}.clone()" if r in seen else f"{e}.contiguous()")
        seen.add(r)
    return out


def translate(text, title="fuse program"):
    """Translation of a program's MLIR text (see the module's doc)."""
    em = Emitter()
    try:
        args, ops, rets = parse(text)
        params, tensors = [], []
        for n, t in args:
            dt, dims = parse_type(t)
            params.append(em.name(n))
            em.py[n] = params[-1]
            if dims is not None:
                em.vals[n] = dt
                tensors.append(params[-1])
        if not tensors:
            raise Untranslatable("no tensor argument")
        em.line(f"dev = {tensors[0]}.device")
        live, em.live = live_ops(ops, rets)
        for op in live:
            em.op(op)
        em.line("return " + tuple_expr(distinct_results(
            em, [em.tensor(r)[0] for r in rets], params)))
    except Untranslatable as e:
        return Translation(None, str(e), None)
    body = "\n".join(em.lines)
    used = [h for h in HELPERS if h + "(" in body]
    src = (f"# {title}, translated by scripts/pipeline_torch.py\n"
           f"{helper_source(used)}\n\ndef program({', '.join(params)}):\n"
           f"{body}\n")
    return Translation(src, None, em.ops)


def load(source, T):
    """The `program` function of a translation, over the module T."""
    ns = {"T": T}
    exec(compile(source, "<pipeline_torch>", "exec"), ns)
    return ns["program"]


# -- running a translation on the generator's arrays --------------------------
def load_gen(path=None):
    """scripts/gen-pipelines.py (or the copy at path) as a module (its
    name has a dash)."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "gen_pipelines", path or os.path.join(here, "gen-pipelines.py"))
    gp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gp)
    return gp


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file", nargs="?", help="a program's .mlir")
    ap.add_argument("--emit", type=int, metavar="SEED")
    ap.add_argument("--gpu", action="store_true",
                    help="the generator's GPU mode (no i1 arguments/results)")
    ap.add_argument("--classic", action="store_true")
    a = ap.parse_args()
    if a.emit is not None:
        text = load_gen().Gen(a.emit, gpu=a.gpu, classic=a.classic).build()[0]
    elif a.file:
        with open(a.file) as f:
            text = f.read()
    else:
        ap.error("give FILE.mlir or --emit SEED")
    tr = translate(text)
    if tr.source is None:
        print(f"untranslatable: {tr.reason}")
        return 1
    sys.stdout.write(tr.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
