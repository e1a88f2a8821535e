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


def storage_dtype(dtype, scalar=False):
    """The element dtype a tensor of `dtype` is stored as. GPU kernels
    cannot read or write i1 tensors (fuse-compile refuses them as arguments,
    results and between kernels), so GPU traces store booleans as one byte
    holding 0 or 1 (i8), as NumPy, PyTorch and CuPy do; scalars stay i1."""
    dtype = np.dtype(dtype)
    ctx = getattr(_state, "ctx", None)
    if dtype == np.bool_ and not scalar and ctx is not None and ctx.gpu:
        return np.dtype(np.uint8)
    return dtype


class TensorVal:
    """An SSA tensor of the emitted function."""

    __slots__ = ("ssa", "dtype", "syms", "scalar", "storage", "static")

    def __init__(self, ssa, dtype, syms, scalar=False, static=None):
        self.ssa, self.dtype, self.syms = ssa, np.dtype(dtype), list(syms)
        # GPU traces: a 0-d value kept as a plain SSA scalar (an argument
        # passed by value, a size), captured by the fuse ops that use it.
        self.scalar = scalar
        self.storage = storage_dtype(self.dtype, scalar)
        # The sizes of a tensor of static type (a histogram's counts), or
        # None (every dimension `?`). Ops whose result type is their
        # operand's (scan, sort) keep it.
        self.static = static

    @property
    def type(self):
        if self.scalar:
            return T.mlir(self.dtype)
        if self.static is not None:
            return "tensor<%s%s>" % ("".join("%dx" % d for d in self.static),
                                     T.mlir(self.storage))
        return T.tensor_type(self.storage, len(self.syms))

    @property
    def elem(self):
        """The MLIR element type of the tensor (its storage)."""
        return T.mlir(self.dtype if self.scalar else self.storage)


def load_elem(body, ssa, dtype, storage):
    """The value of an element read as `storage`, as `dtype` (i8 -> i1)."""
    if np.dtype(storage) == np.dtype(dtype):
        return ssa
    z, v = body.ctx.fresh("s"), body.ctx.fresh("s")
    body.line("%s = arith.constant 0 : %s" % (z, T.mlir(storage)))
    body.line("%s = arith.cmpi ne, %s, %s : %s" % (v, ssa, z,
                                                   T.mlir(storage)))
    return v


def store_elem(body, ssa, dtype, storage):
    """A `dtype` value as an element stored as `storage` (i1 -> i8)."""
    if np.dtype(storage) == np.dtype(dtype):
        return ssa
    v = body.ctx.fresh("s")
    body.line("%s = arith.extui %s : %s to %s" % (v, ssa, T.mlir(dtype),
                                                  T.mlir(storage)))
    return v


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
        # The objects whose id() keys a memo (index_memo, size_tensor_memo,
        # _sym's broadcast memo), kept alive while tracing: an object freed
        # mid-trace would let a new one reuse its id and hit its entry.
        self.alive = []
        self.checks = []        # (sym, sym) that must be equal at run time
        self.nonempty = []      # (sym, message) for max/min reductions
        # (sym, least, message): a size that must be at least another
        # (fuse.topk's k), checked before each run where both are known;
        # the message is formatted with (least, size).
        self.at_least = []
        # (argument index, dtype): a Python int argument that an operation
        # casts to `dtype` must fit it (checked before each run).
        self.ranges = []
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
        self.alive.append(r)
        return v

    def size_tensor(self, sym):
        """A tensor<i64> holding the size `sym`."""
        r = sym.find()
        tv = self.size_tensor_memo.get(id(r))
        if tv is None:
            self.alive.append(r)
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
    if dtype.itemsize == 2:
        # float16 or bfloat16, rounded as NumPy (ml_dtypes) casts.
        return "0x%04X" % int(np.array(value, dtype).view(np.uint16))
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
    if T.kind(dtype) == "b":
        # MLIR's parser reads `true`/`false` as a bool attribute and would
        # reject a trailing `: i1`, so booleans are printed without a type.
        return "%s = arith.constant %s" % (ssa, "true" if value else "false")
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
                return self._float_floordiv(args[0], args[1], t)
            return self._int_divmod(args[0], args[1], n.dtype, False)
        if op == "mod":
            if k == "f":
                return self._float_mod(args[0], args[1], t)
            return self._int_divmod(args[0], args[1], n.dtype, True)
        if op in ("lshift", "rshift"):
            return self._shift(op, args[0], args[1], n.dtype)
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

    # ---- NumPy's integer division, remainder and shifts -------------------
    # LLVM's integer division by zero (and INT_MIN / -1) is undefined and
    # traps on x86; NumPy gives 0 (and INT_MIN // -1 wraps to INT_MIN).
    # The divisor is replaced by 1 where it would trap and the result fixed
    # up with selects, so no lane ever divides by 0 or -1.

    def _const(self, value, dtype):
        c = self._fresh()
        self.line(const_line(c, value, dtype))
        return c

    def _op(self, text):
        v = self._fresh()
        self.line("%s = %s" % (v, text))
        return v

    def _int_divmod(self, a, b, dtype, mod):
        t = T.mlir(dtype)
        signed = T.kind(dtype) == "s"
        zero, one = self._const(0, dtype), self._const(1, dtype)
        bz = self._op("arith.cmpi eq, %s, %s : %s" % (b, zero, t))
        bad = bz
        if signed:
            m1 = self._const(-1, dtype)
            bm1 = self._op("arith.cmpi eq, %s, %s : %s" % (b, m1, t))
            bad = self._op("arith.ori %s, %s : i1" % (bz, bm1))
        bs = self._op("arith.select %s, %s, %s : %s" % (bad, one, b, t))
        if mod:
            # x % 1 is 0: the b == 0 and b == -1 lanes already give 0.
            if not signed:
                return self._op("arith.remui %s, %s : %s" % (a, bs, t))
            r = self._op("arith.remsi %s, %s : %s" % (a, bs, t))
            # Python's sign rule: a nonzero remainder takes the divisor's sign.
            rnz = self._op("arith.cmpi ne, %s, %s : %s" % (r, zero, t))
            rneg = self._op("arith.cmpi slt, %s, %s : %s" % (r, zero, t))
            bneg = self._op("arith.cmpi slt, %s, %s : %s" % (bs, zero, t))
            diff = self._op("arith.xori %s, %s : i1" % (rneg, bneg))
            adj = self._op("arith.andi %s, %s : i1" % (rnz, diff))
            rb = self._op("arith.addi %s, %s : %s" % (r, bs, t))
            return self._op("arith.select %s, %s, %s : %s" % (adj, rb, r, t))
        if not signed:
            q = self._op("arith.divui %s, %s : %s" % (a, bs, t))
            return self._op("arith.select %s, %s, %s : %s" % (bz, zero, q, t))
        q = self._op("arith.floordivsi %s, %s : %s" % (a, bs, t))
        neg = self._op("arith.subi %s, %s : %s" % (zero, a, t))
        q = self._op("arith.select %s, %s, %s : %s" % (bm1, neg, q, t))
        return self._op("arith.select %s, %s, %s : %s" % (bz, zero, q, t))

    def _signed_zero_like(self, x, t):
        """copysign(0, x) for a float x, with integer ops only."""
        it = "i%s" % t[1:]
        bits = self._op("arith.bitcast %s : %s to %s" % (x, t, it))
        izero = self._fresh()
        self.line("%s = arith.constant 0 : %s" % (izero, it))
        neg = self._op("arith.cmpi slt, %s, %s : %s" % (bits, izero, it))
        dt = np.float32 if t == "f32" else np.float64
        pz, nz = self._const(0.0, dt), self._const(-0.0, dt)
        return self._op("arith.select %s, %s, %s : %s" % (neg, nz, pz, t))

    def _float_mod(self, a, b, t):
        """NumPy's remainder (npy_divmod): fmod, moved to the divisor's
        sign; a zero result takes the divisor's sign."""
        fm = self.fm
        dt = np.float32 if t == "f32" else np.float64
        zero = self._const(0.0, dt)
        m = self._op("arith.remf %s, %s%s : %s" % (a, b, fm, t))
        mnz = self._op("arith.cmpf une, %s, %s : %s" % (m, zero, t))
        bneg = self._op("arith.cmpf olt, %s, %s : %s" % (b, zero, t))
        mneg = self._op("arith.cmpf olt, %s, %s : %s" % (m, zero, t))
        diff = self._op("arith.xori %s, %s : i1" % (bneg, mneg))
        adj = self._op("arith.andi %s, %s : i1" % (mnz, diff))
        mb = self._op("arith.addf %s, %s%s : %s" % (m, b, fm, t))
        m1 = self._op("arith.select %s, %s, %s : %s" % (adj, mb, m, t))
        sz = self._signed_zero_like(b, t)
        return self._op("arith.select %s, %s, %s : %s" % (mnz, m1, sz, t))

    def _float_floordiv(self, a, b, t):
        """NumPy's floor_divide (npy_floor_divide / npy_divmod): computed
        from the remainder, so that 1.0 // 0.1 is 9.0 as in NumPy and
        Python, where floor(1.0 / 0.1) would give 10.0."""
        fm = self.fm
        dt = np.float32 if t == "f32" else np.float64
        zero, one = self._const(0.0, dt), self._const(1.0, dt)
        half = self._const(0.5, dt)
        m = self._op("arith.remf %s, %s%s : %s" % (a, b, fm, t))
        q0 = self._op("arith.divf %s, %s%s : %s" % (a, b, fm, t))
        am = self._op("arith.subf %s, %s%s : %s" % (a, m, fm, t))
        d = self._op("arith.divf %s, %s%s : %s" % (am, b, fm, t))
        mnz = self._op("arith.cmpf une, %s, %s : %s" % (m, zero, t))
        bneg = self._op("arith.cmpf olt, %s, %s : %s" % (b, zero, t))
        mneg = self._op("arith.cmpf olt, %s, %s : %s" % (m, zero, t))
        diff = self._op("arith.xori %s, %s : i1" % (bneg, mneg))
        adj = self._op("arith.andi %s, %s : i1" % (mnz, diff))
        d1 = self._op("arith.subf %s, %s%s : %s" % (d, one, fm, t))
        d = self._op("arith.select %s, %s, %s : %s" % (adj, d1, d, t))
        # Snap the quotient to the nearest integral value.
        fl = self._op("math.floor %s : %s" % (d, t))
        frac = self._op("arith.subf %s, %s%s : %s" % (d, fl, fm, t))
        up = self._op("arith.cmpf ogt, %s, %s : %s" % (frac, half, t))
        fl1 = self._op("arith.addf %s, %s%s : %s" % (fl, one, fm, t))
        fl = self._op("arith.select %s, %s, %s : %s" % (up, fl1, fl, t))
        dnz = self._op("arith.cmpf une, %s, %s : %s" % (d, zero, t))
        sz = self._signed_zero_like(q0, t)
        r = self._op("arith.select %s, %s, %s : %s" % (dnz, fl, sz, t))
        bz = self._op("arith.cmpf oeq, %s, %s : %s" % (b, zero, t))
        return self._op("arith.select %s, %s, %s : %s" % (bz, q0, r, t))

    def _shift(self, op, a, b, dtype):
        """NumPy's shifts: a shift by a count outside [0, bits) gives 0
        (-1 for a negative value shifted right), where LLVM's is poison."""
        t = T.mlir(dtype)
        signed = T.kind(dtype) == "s"
        nbits = T.bits(dtype)
        width = self._const(nbits, dtype)
        zero = self._const(0, dtype)
        ok = self._op("arith.cmpi ult, %s, %s : %s" % (b, width, t))
        bs = self._op("arith.select %s, %s, %s : %s" % (ok, b, zero, t))
        if op == "lshift":
            s = self._op("arith.shli %s, %s : %s" % (a, bs, t))
            far = zero
        elif signed:
            s = self._op("arith.shrsi %s, %s : %s" % (a, bs, t))
            top = self._const(nbits - 1, dtype)
            far = self._op("arith.shrsi %s, %s : %s" % (a, top, t))
        else:
            s = self._op("arith.shrui %s, %s : %s" % (a, bs, t))
            far = zero
        return self._op("arith.select %s, %s, %s : %s" % (ok, s, far, t))

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
