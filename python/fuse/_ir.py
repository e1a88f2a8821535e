"""Symbolic arrays and emission of textual fuse IR.

A traced function builds expression trees of `SymArray` nodes. Elementwise
operations stay lazy; a node is *materialized* (emitted as one `fuse.map`
over its distinct tensor leaves, with `fuse.broadcast` for broadcast
operands) when a non-elementwise op (reduce, scan, filter, gather) or the
function's return needs it as a tensor. Everything is emitted into one
`func.func @main` in program order, so dominance holds by construction.
Sizes are dynamic: each dimension carries a `Sym` (union-find), and sizes
combined elementwise are checked against each other in Python before the
compiled code runs.
"""

import struct
import threading

import numpy as np

from . import _types as T

_state = threading.local()

# A broadcast (size-1) dimension in a SymArray's shape; other entries are Syms.
ONE = 1


def current():
    ctx = getattr(_state, "ctx", None)
    if ctx is None:
        raise RuntimeError(
            "fuse: symbolic arrays can only be used while a fuse function is "
            "being traced")
    return ctx


# ---- sizes -----------------------------------------------------------------

class Sym:
    """A dimension size. kind: 'input' (arg, dim), 'const' (int),
    'tensor' (TensorVal, dim) or 'scalar' (0-d integer TensorVal)."""

    __slots__ = ("kind", "src", "parent")

    def __init__(self, kind, src):
        self.kind, self.src, self.parent = kind, src, None

    def find(self):
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    @property
    def checkable(self):
        return self.kind in ("input", "const", "value")

    def describe(self, names):
        if self.kind == "input":
            return "argument %r dimension %d" % (names[self.src[0]],
                                                self.src[1])
        if self.kind == "const":
            return "the constant size %d" % self.src
        if self.kind == "value":
            return "argument %r" % names[self.src]
        if self.kind == "tensor":
            return "a size computed while running (e.g. a filter's count)"
        return "a computed size"


class TensorVal:
    """An SSA tensor of the emitted function."""

    __slots__ = ("ssa", "dtype", "syms", "scalar")

    def __init__(self, ssa, dtype, syms, scalar=False):
        self.ssa, self.dtype, self.syms = ssa, np.dtype(dtype), list(syms)
        # GPU traces: a 0-d value kept as a plain SSA scalar (an argument
        # passed by value, a size), captured by the fuse ops that use it.
        self.scalar = scalar

    @property
    def type(self):
        if self.scalar:
            return T.mlir(self.dtype)
        return T.tensor_type(self.dtype, len(self.syms))


# ---- fast-math flags -------------------------------------------------------

# MLIR's arith fast-math flags, in MLIR's printing order.
FASTMATH_FLAGS = ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract",
                  "afn")


def fastmath_flags(value):
    """The `fastmath<...>` contents for a jit's `fastmath` argument: None or
    "" (none), "fast" (all), or flag names as "arcp,afn" or an iterable;
    unknown names raise ValueError."""
    if value is None:
        return ""
    if isinstance(value, str):
        names = [f.strip() for f in value.split(",") if f.strip()]
    else:
        try:
            names = list(value)
        except TypeError:
            raise TypeError("fastmath: expected a string such as 'arcp,afn' "
                            "or a list of flag names, not %s"
                            % type(value).__name__) from None
        if not all(isinstance(f, str) for f in names):
            raise TypeError("fastmath: flag names must be strings")
    if "fast" in names:
        return "fast"
    bad = [f for f in names if f not in FASTMATH_FLAGS]
    if bad:
        raise ValueError("fastmath: unknown flag %r (known: %s, fast)"
                         % (bad[0], ", ".join(FASTMATH_FLAGS)))
    return ",".join(f for f in FASTMATH_FLAGS if f in names)


# ---- the trace context -----------------------------------------------------

class TraceContext:
    def __init__(self, arg_names, gpu=False, fastmath=""):
        self.names = list(arg_names)
        # Fast-math flags for the float arithmetic and math functions of
        # the traced code (fastmath_flags; "" for none).
        self.fastmath = fastmath
        # gpu: trace for fuse-compile's GPU code generation, whose entry
        # functions take 0-d arguments as scalars by value and accept only
        # fuse ops, scalar ops and tensor.dim (no tensor.from_elements or
        # tensor.extract): 0-d inputs and sizes stay scalars.
        self.gpu = gpu
        self.lines = []
        self.n = 0
        self.index_memo = {}
        self.size_tensor_memo = {}
        self.checks = []        # (sym, sym) that must be equal at run time
        self.nonempty = []      # (sym, message) for max/min reductions
        self.args = []          # TensorVal per argument

    def fresh(self, prefix="v"):
        self.n += 1
        return "%%%s%d" % (prefix, self.n)

    def emit(self, line):
        self.lines.append("  " + line)

    def __enter__(self):
        self.prev = getattr(_state, "ctx", None)
        _state.ctx = self
        return self

    def __exit__(self, *exc):
        _state.ctx = self.prev

    # sizes
    def unify(self, a, b):
        ra, rb = a.find(), b.find()
        if ra is rb:
            return
        if ra.checkable and rb.checkable:
            if ra.kind == "const" and rb.kind == "const":
                if ra.src != rb.src:
                    raise ValueError("fuse: sizes %d and %d do not match"
                                     % (ra.src, rb.src))
            rb.parent = ra
            self.checks.append((a, b))
            return
        raise ValueError(
            "fuse: cannot combine arrays whose sizes come from %s and %s: "
            "they cannot be proven equal before running" % (
                ra.describe(self.names), rb.describe(self.names)))

    def index_of(self, sym):
        """An `index` SSA value holding the size `sym`."""
        r = sym.find()
        v = self.index_memo.get(id(r))
        if v is not None:
            return v
        if r.kind == "const":
            v = self.fresh("c")
            self.emit("%s = arith.constant %d : index" % (v, r.src))
        elif r.kind in ("input", "tensor"):
            tv = self.args[r.src[0]] if r.kind == "input" else r.src[0]
            c = self.fresh("c")
            self.emit("%s = arith.constant %d : index" % (c, r.src[1]))
            v = self.fresh("d")
            self.emit("%s = tensor.dim %s, %s : %s" % (v, tv.ssa, c, tv.type))
        else:
            tv = self.args[r.src] if r.kind == "value" else r.src
            if tv.scalar:
                e = tv.ssa
            else:
                e = self.fresh()
                self.emit("%s = tensor.extract %s[] : %s" % (e, tv.ssa,
                                                             tv.type))
            if T.bits(tv.dtype) != 64:
                e2 = self.fresh()
                self.emit("%s = arith.%s %s : %s to i64" % (
                    e2, "extui" if T.kind(tv.dtype) in "ub" else "extsi",
                    e, T.mlir(tv.dtype)))
                e = e2
            v = self.fresh("d")
            self.emit("%s = arith.index_cast %s : i64 to index" % (v, e))
        self.index_memo[id(r)] = v
        return v

    def size_tensor(self, sym):
        """A tensor<i64> holding the size `sym`."""
        r = sym.find()
        tv = self.size_tensor_memo.get(id(r))
        if tv is None:
            idx = self.index_of(r)
            i = self.fresh()
            self.emit("%s = arith.index_cast %s : index to i64" % (i, idx))
            if self.gpu:
                tv = TensorVal(i, np.int64, [], scalar=True)
                self.size_tensor_memo[id(r)] = tv
                return tv
            t = self.fresh("t")
            self.emit("%s = tensor.from_elements %s : tensor<i64>" % (t, i))
            tv = TensorVal(t, np.int64, [])
            self.size_tensor_memo[id(r)] = tv
        return tv


# ---- expressions -------------------------------------------------------------

_UNARY_FLOAT = {"exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt",
                "tanh": "math.tanh", "sin": "math.sin", "cos": "math.cos",
                "floor": "math.floor", "ceil": "math.ceil",
                "log1p": "math.log1p", "expm1": "math.expm1",
                "rsqrt": "math.rsqrt"}

_CMP_F = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq",
          "ne": "une"}
_CMP_S = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq",
          "ne": "ne"}
_CMP_U = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge", "eq": "eq",
          "ne": "ne"}


def float_literal(value, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        return "0x%08X" % bits
    bits = struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    return "0x%016X" % bits


def int_literal(value, dtype):
    if np.dtype(dtype) == np.bool_:
        return "true" if value else "false"
    b = T.bits(dtype)
    v = int(value) & ((1 << b) - 1)
    if v >= 1 << (b - 1):
        v -= 1 << b
    return str(v)


def const_line(ssa, value, dtype):
    t = T.mlir(dtype)
    if T.kind(dtype) == "f":
        return "%s = arith.constant %s : %s" % (ssa, float_literal(value,
                                                                   dtype), t)
    return "%s = arith.constant %s : %s" % (ssa, int_literal(value, dtype), t)


class BodyEmitter:
    """Emits scalar ops for expression nodes, given SSA names for leaves."""

    def __init__(self, ctx, env):
        self.ctx, self.env, self.memo = ctx, env, {}
        # " fastmath<...>" for float arithmetic and math functions.
        fm = getattr(ctx, "fastmath", "")
        self.fm = " fastmath<%s>" % fm if fm else ""

    def line(self, text):
        self.ctx.emit("  " + text)

    def value(self, node):
        v = self.memo.get(id(node))
        if v is None:
            v = self._emit(node)
            self.memo[id(node)] = v
        return v

    def _fresh(self):
        return self.ctx.fresh("s")

    def _emit(self, n):
        op = n.op
        if n._mat is not None and n._mat.key() in self.env:
            return self.env[n._mat.key()]
        if op in ("leaf", "param"):
            return self.env[n.key()]
        if op == "const":
            v = self._fresh()
            self.line(const_line(v, n.value, n.dtype))
            return v
        args = [self.value(a) for a in n.args]
        t = T.mlir(n.dtype)
        k = T.kind(n.dtype)
        v = self._fresh()
        if op == "cast":
            return self._cast(args[0], n.args[0].dtype, n.dtype)
        if op in ("add", "sub", "mul"):
            if k == "f":
                self.line("%s = arith.%sf %s, %s%s : %s" % (
                    v, op, args[0], args[1], self.fm, t))
            elif k == "b":
                if op == "sub":
                    raise TypeError("fuse: subtraction of booleans is not "
                                    "supported (use ^ or ~)")
                self.line("%s = arith.%s %s, %s : i1" % (
                    v, "ori" if op == "add" else "andi", args[0], args[1]))
            else:
                self.line("%s = arith.%si %s, %s : %s" % (v, op, args[0],
                                                          args[1], t))
            return v
        if op == "div":
            self.line("%s = arith.divf %s, %s%s : %s" % (
                v, args[0], args[1], self.fm, t))
            return v
        if op == "floordiv":
            if k == "f":
                q = self._fresh()
                self.line("%s = arith.divf %s, %s%s : %s" % (
                    q, args[0], args[1], self.fm, t))
                self.line("%s = math.floor %s : %s" % (v, q, t))
            elif k == "s":
                self.line("%s = arith.floordivsi %s, %s : %s" % (
                    v, args[0], args[1], t))
            else:
                self.line("%s = arith.divui %s, %s : %s" % (v, args[0],
                                                            args[1], t))
            return v
        if op in ("and", "or", "xor"):
            self.line("%s = arith.%si %s, %s : %s" % (v, op, args[0], args[1],
                                                      t))
            return v
        if op == "invert":
            c = self._fresh()
            self.line(const_line(c, -1 if k != "b" else 1, n.dtype))
            self.line("%s = arith.xori %s, %s : %s" % (v, args[0], c, t))
            return v
        if op == "neg":
            if k == "f":
                self.line("%s = arith.negf %s%s : %s" % (v, args[0],
                                                         self.fm, t))
            else:
                z = self._fresh()
                self.line(const_line(z, 0, n.dtype))
                self.line("%s = arith.subi %s, %s : %s" % (v, z, args[0], t))
            return v
        if op == "abs":
            if k == "f":
                self.line("%s = math.absf %s : %s" % (v, args[0], t))
            elif k == "s":
                self.line("%s = math.absi %s : %s" % (v, args[0], t))
            else:
                return args[0]
            return v
        if op in ("maximum", "minimum"):
            m = op[:3]
            if k == "f":
                self.line("%s = arith.%sf %s, %s : %s" % (
                    v, "maximum" if m == "max" else "minimum", args[0],
                    args[1], t))
            elif k == "b":
                self.line("%s = arith.%s %s, %s : i1" % (
                    v, "ori" if m == "max" else "andi", args[0], args[1]))
            else:
                self.line("%s = arith.%s%si %s, %s : %s" % (
                    v, m, "s" if k == "s" else "u", args[0], args[1], t))
            return v
        if op in _UNARY_FLOAT:
            self.line("%s = %s %s%s : %s" % (v, _UNARY_FLOAT[op], args[0],
                                             self.fm, t))
            return v
        if op == "pow":
            self.line("%s = math.powf %s, %s%s : %s" % (
                v, args[0], args[1], self.fm, t))
            return v
        if op in _CMP_F:
            at = n.args[0].dtype
            ak = T.kind(at)
            if ak == "f":
                self.line("%s = arith.cmpf %s, %s, %s : %s" % (
                    v, _CMP_F[op], args[0], args[1], T.mlir(at)))
            else:
                table = _CMP_S if ak == "s" else _CMP_U
                self.line("%s = arith.cmpi %s, %s, %s : %s" % (
                    v, table[op], args[0], args[1], T.mlir(at)))
            return v
        if op == "where":
            self.line("%s = arith.select %s, %s, %s : %s" % (
                v, args[0], args[1], args[2], t))
            return v
        raise AssertionError("unknown op " + op)

    def _cast(self, a, src, dst):
        src, dst = np.dtype(src), np.dtype(dst)
        if src == dst:
            return a
        ks, kd = T.kind(src), T.kind(dst)
        bs, bd = T.bits(src), T.bits(dst)
        ts, td = T.mlir(src), T.mlir(dst)
        v = self._fresh()
        if kd == "b":
            z = self._fresh()
            self.line(const_line(z, 0, src))
            if ks == "f":
                self.line("%s = arith.cmpf une, %s, %s : %s" % (v, a, z, ts))
            else:
                self.line("%s = arith.cmpi ne, %s, %s : %s" % (v, a, z, ts))
            return v
        if ks == "f" and kd == "f":
            self.line("%s = arith.%s %s : %s to %s" % (
                v, "extf" if bd > bs else "truncf", a, ts, td))
        elif kd == "f":
            self.line("%s = arith.%s %s : %s to %s" % (
                v, "sitofp" if ks == "s" else "uitofp", a, ts, td))
        elif ks == "f":
            self.line("%s = arith.%s %s : %s to %s" % (
                v, "fptosi" if kd == "s" else "fptoui", a, ts, td))
        else:
            if bs == bd:
                return a
            if bd > bs:
                self.line("%s = arith.%s %s : %s to %s" % (
                    v, "extsi" if ks == "s" else "extui", a, ts, td))
            else:
                self.line("%s = arith.trunci %s : %s to %s" % (v, a, ts, td))
        return v
