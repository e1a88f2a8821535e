"""SymArray: the symbolic array of traced functions, and fuse's array ops."""

import numbers

import numpy as np

from . import _types as T
from ._ir import (ONE, BodyEmitter, Sym, TensorVal, current, load_elem,
                  storage_dtype, store_elem)


def _bshape(a, b, ctx):
    """NumPy broadcasting of two shapes of Sym / 1 entries."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x is ONE:
            out.append(y)
        elif y is ONE:
            out.append(x)
        else:
            ctx.unify(x, y)
            out.append(x)
    return tuple(out)


class SymArray:
    """A symbolic array inside a `fuse.jit` function (or a scalar inside a
    lambda that fuse traces). Supports NumPy-like operators."""

    __slots__ = ("op", "args", "dtype", "dims", "weak", "tv", "value",
                 "sym", "pidx", "_mat", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, op, dtype, shape, args=(), weak=False):
        self.op, self.dtype, self.dims = op, np.dtype(dtype), tuple(shape)
        self.args, self.weak = tuple(args), weak
        self.tv = self.value = self.sym = self.pidx = self._mat = None

    # keys identifying leaves in a body
    def key(self):
        if self.op == "leaf":
            return ("leaf", id(self.tv), self.dims)
        if self.op == "param":
            return ("param", self.pidx)
        return ("node", id(self))

    @property
    def ndim(self):
        return len(self.dims)

    @property
    def shape(self):
        """A tuple of symbolic sizes (0-d int64 arrays; 1 for broadcast
        dimensions). Use them in arithmetic, as fuse.iota sizes or return
        them (they come back as Python ints)."""
        return tuple(size_array(s) if isinstance(s, Sym) else 1
                     for s in self.dims)

    def __repr__(self):
        return "SymArray(dtype=%s, ndim=%d)" % (self.dtype, self.ndim)

    # ---- misuse -----------------------------------------------------------
    def __bool__(self):
        raise TypeError(
            "fuse: the truth value of a symbolic array is unknown while "
            "tracing; use fuse.where(cond, a, b) instead of if/and/or")

    def __len__(self):
        raise TypeError("fuse: len() of a symbolic array is not a Python "
                        "int; use x.shape[0] (a symbolic size)")

    def __iter__(self):
        raise TypeError("fuse: cannot iterate over a symbolic array")

    def __index__(self):
        raise TypeError("fuse: a symbolic value cannot be used as a Python "
                        "int")

    def __int__(self):
        self.__index__()

    def __float__(self):
        raise TypeError("fuse: a symbolic value cannot be used as a Python "
                        "float")

    def __array__(self, *a, **k):
        raise TypeError(
            "fuse: a symbolic array cannot be converted to a NumPy array "
            "while tracing (np.asarray, np.array, or a NumPy function that "
            "converts its arguments); inside a fuse function use operators, "
            ".sum/.max/..., fuse.exp/log/sqrt/where/maximum/scan/filter, or "
            "the NumPy functions fuse traces (ufuncs such as np.exp, "
            "np.where, np.sum, np.cumsum)")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._numpy import array_ufunc
        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from ._numpy import array_function
        return array_function(func, types, args, kwargs)

    # ---- operators --------------------------------------------------------
    def __add__(self, o): return _binary("add", self, o)
    def __radd__(self, o): return _binary("add", o, self)
    def __sub__(self, o): return _binary("sub", self, o)
    def __rsub__(self, o): return _binary("sub", o, self)
    def __mul__(self, o): return _binary("mul", self, o)
    def __rmul__(self, o): return _binary("mul", o, self)
    def __truediv__(self, o): return _binary("div", self, o)
    def __rtruediv__(self, o): return _binary("div", o, self)
    def __floordiv__(self, o): return _binary("floordiv", self, o)
    def __rfloordiv__(self, o): return _binary("floordiv", o, self)
    def __mod__(self, o): return _binary("mod", self, o)
    def __rmod__(self, o): return _binary("mod", o, self)
    def __divmod__(self, o): return (_binary("floordiv", self, o),
                                     _binary("mod", self, o))
    def __rdivmod__(self, o): return (_binary("floordiv", o, self),
                                      _binary("mod", o, self))
    def __lshift__(self, o): return _binary("lshift", self, o)
    def __rlshift__(self, o): return _binary("lshift", o, self)
    def __rshift__(self, o): return _binary("rshift", self, o)
    def __rrshift__(self, o): return _binary("rshift", o, self)
    def __pow__(self, o): return power(self, o)
    def __and__(self, o): return _binary("and", self, o)
    def __rand__(self, o): return _binary("and", o, self)
    def __or__(self, o): return _binary("or", self, o)
    def __ror__(self, o): return _binary("or", o, self)
    def __xor__(self, o): return _binary("xor", self, o)
    def __rxor__(self, o): return _binary("xor", o, self)
    def __lt__(self, o): return _binary("lt", self, o)
    def __le__(self, o): return _binary("le", self, o)
    def __gt__(self, o): return _binary("gt", self, o)
    def __ge__(self, o): return _binary("ge", self, o)
    def __eq__(self, o): return _binary("eq", self, o)
    def __ne__(self, o): return _binary("ne", self, o)
    __hash__ = object.__hash__

    def __neg__(self):
        if self.dtype == np.bool_:
            raise TypeError("fuse: unary - of booleans is not supported "
                            "(use ~)")
        return _node("neg", self.dtype, self.dims, [self], self.weak)

    def __pos__(self):
        return self

    def __abs__(self):
        return _node("abs", self.dtype, self.dims, [self], self.weak)

    def __invert__(self):
        if T.kind(self.dtype) == "f":
            raise TypeError("fuse: ~ needs an integer or boolean operand, got "
                            "%s" % self.dtype)
        return _node("invert", self.dtype, self.dims, [self], self.weak)

    def __getitem__(self, idx):
        # Only x[:, None]-style insertion of broadcast dimensions.
        if not isinstance(idx, tuple):
            idx = (idx,)
        out, i = [], 0
        for item in idx:
            if item is None:
                out.append(1)
            elif item is Ellipsis:
                rest = len([t for t in idx if t is not None and
                            t is not Ellipsis])
                take = self.ndim - i - rest
                out.extend(self.dims[i:i + take])
                i += take
            elif isinstance(item, slice) and item == slice(None):
                if i >= self.ndim:
                    raise IndexError("fuse: too many indices")
                out.append(self.dims[i])
                i += 1
            else:
                raise TypeError(
                    "fuse: symbolic arrays support only x[:, None]-style "
                    "indexing (got %r); use fuse.gather to read at indices"
                    % (item,))
        out.extend(self.dims[i:])
        base = materialize(self)
        return _view(base, tuple(out))

    def astype(self, dtype):
        dtype = T.check_supported(dtype, "astype")
        return cast(self, dtype)

    # ---- reductions -------------------------------------------------------
    def sum(self, axis=None, keepdims=False):
        return _reduce_builtin(self, "add", axis, keepdims)

    def prod(self, axis=None, keepdims=False):
        return _reduce_builtin(self, "mul", axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return _reduce_builtin(self, "max", axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return _reduce_builtin(self, "min", axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return _reduce_builtin(cast(self, np.bool_), "and", axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return _reduce_builtin(cast(self, np.bool_), "or", axis, keepdims)

    def mean(self, axis=None, keepdims=False):
        axes = _axes(self, axis)
        out = T.float_of(self.dtype)
        # NumPy's float16 mean sums and divides in float32 (a sum of f16
        # overflows at 65504 where the mean would not), then rounds once.
        acc = np.dtype(np.float32) if T.is_half(out) else out
        s = _reduce_builtin(cast(self, acc), "add", axis, keepdims)
        count = None
        for a in axes:
            if self.dims[a] is ONE:
                continue
            n = size_array(self.dims[a])
            count = n if count is None else count * n
        if count is not None:
            s = s / cast(count, acc)
        return cast(s, out)

    @property
    def T(self):
        raise TypeError("fuse: transposes are not supported")


def _node(op, dtype, shape, args, weak=False):
    return SymArray(op, dtype, shape, args, weak)


def leaf(tv, shape=None):
    n = SymArray("leaf", tv.dtype, tuple(tv.syms) if shape is None else shape)
    n.tv = tv
    return n


def _view(base, shape):
    n = SymArray("leaf", base.dtype, shape)
    n.tv = base.tv
    return n


def param(idx, dtype):
    n = SymArray("param", dtype, ())
    n.pidx = idx
    return n


def const(value, dtype=None):
    """A constant; Python scalars are weakly typed as in NumPy 2."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        dt = T.check_supported(value.dtype, "constant")
        n = SymArray("const", dt, ())
        n.value = value.item()
        return n
    if isinstance(value, (bool, np.bool_)):
        dt, weak = np.dtype(np.bool_), True
    elif isinstance(value, numbers.Integral):
        dt, weak = np.dtype(np.int64), True
    elif isinstance(value, numbers.Real):
        dt, weak = np.dtype(np.float64), True
    else:
        raise TypeError("fuse: cannot use %r (%s) in a fuse expression; "
                        "expected a symbolic array or a Python/NumPy number"
                        % (value, type(value).__name__))
    if dtype is not None:
        dt, weak = np.dtype(dtype), False
    n = SymArray("const", dt, (), weak=weak)
    n.value = value
    return n


def size_array(sym):
    """A 0-d int64 SymArray standing for a size."""
    n = SymArray("size", np.int64, ())
    n.sym = sym
    return n


def as_sym(v, what):
    """A Sym for a size given as an int, x.shape[i] or a 0-d integer."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError("%s: expected a size, got a bool" % what)
    if isinstance(v, (numbers.Integral, np.integer)):
        if int(v) < 0:
            raise ValueError("%s: size must be >= 0, got %d" % (what, int(v)))
        return Sym("const", int(v))
    if isinstance(v, SymArray):
        if v.op == "size":
            return v.sym
        if v.ndim == 0 and T.kind(v.dtype) in "su":
            tv = materialize(v).tv
            if current().gpu and not tv.scalar and tv.ssa.startswith("%arg"):
                raise TypeError(
                    "%s: a 0-d device array is a value in device memory; a "
                    "size must be known on the host (pass a Python int)"
                    % what)
            return Sym("scalar", tv)
    raise TypeError("%s: expected a size (an int, x.shape[i] or a 0-d "
                    "integer array), got %r" % (what, v))


def wrap(v):
    if isinstance(v, SymArray):
        return v
    return const(v)


def cast(x, dtype):
    x = wrap(x)
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    if x.op == "const":
        n = SymArray("const", dtype, x.dims)
        if isinstance(x.value, numbers.Integral) and not isinstance(
                x.value, (bool, np.bool_)) and T.kind(x.dtype) == "s":
            # A Python int may lie outside int64 (2**63 + 5 for a uint64
            # operation): convert it exactly, not through an int64 array.
            v, k = int(x.value), T.kind(dtype)
            if k in "su":
                b = T.bits(dtype)
                v &= (1 << b) - 1
                if k == "s" and v >= 1 << (b - 1):
                    v -= 1 << b
                n.value = v
            else:
                n.value = float(v) if k == "f" else bool(v)
            return n
        with np.errstate(all="ignore"):
            v = np.array(x.value, x.dtype).astype(dtype)
        n.value = v.item()
        return n
    return _node("cast", dtype, x.dims, [x], False)


def _unify_weak(a, b):
    dt, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
    return dt, weak


_COMPARE = ("lt", "le", "gt", "ge", "eq", "ne")
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//",
           "mod": "%", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
           "rshift": ">>", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
           "eq": "==", "ne": "!="}


def _int_range(dt):
    info = np.iinfo(dt)
    return int(info.min), int(info.max)


def _weak_int_value(x):
    """The value of a Python integer constant (weakly typed), else None."""
    if x.op == "const" and x.weak and T.kind(x.dtype) == "s" and \
            not isinstance(x.value, (bool, np.bool_)):
        return int(x.value)
    return None


def _operand(x, dt):
    """`x` cast to the operation's dtype `dt`. A Python integer outside
    `dt`'s range raises OverflowError, as in NumPy 2 (NEP 50), where a cast
    would wrap it silently (uint8 + 300, uint32 + -1)."""
    v = _weak_int_value(x)
    if v is not None and T.kind(dt) in "su":
        lo, hi = _int_range(dt)
        if not lo <= v <= hi:
            raise OverflowError("fuse: Python integer %d out of bounds for "
                                "%s" % (v, dt))
    if x.op == "leaf" and x.weak and T.kind(x.dtype) == "s" and \
            T.kind(dt) in "su" and x.tv is not None:
        _check_weak_argument(x, dt)
    return cast(x, dt)


def _check_weak_argument(x, dt):
    """A Python int passed as an argument and used with a narrower or
    unsigned integer array: its value must fit `dt` (checked before each
    run, as NumPy checks Python integers)."""
    ctx = current()
    for i, tv in enumerate(ctx.args):
        if tv is x.tv and np.dtype(dt) != np.int64:
            ctx.ranges.append((i, np.dtype(dt)))
            return


def _compare_out_of_range(op, a, b, shape):
    """NumPy 2 compares an integer array with a Python integer outside its
    dtype's range exactly (uint8 < 300 is True, uint8 == -1 is False): the
    result is the same for every element."""
    for side, (x, y) in enumerate(((a, b), (b, a))):
        v = _weak_int_value(y)
        if v is None or T.kind(x.dtype) not in "su" or x.weak:
            continue
        lo, hi = _int_range(x.dtype)
        if lo <= v <= hi:
            continue
        # Orient as `x op v`.
        o = op
        if side == 1:
            o = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}.get(op, op)
        above = v > hi
        truth = {"lt": above, "le": above, "gt": not above,
                 "ge": not above, "eq": False, "ne": True}[o]
        # x == x (integers: never NaN) is all True, with x's shape.
        same = _node("eq", np.bool_, shape, [x, x])
        return same if truth else ~same
    return None


def _binary(op, a, b):
    ctx = current()
    a, b = wrap(a), wrap(b)
    dt, weak = _unify_weak(a, b)
    shape = _bshape(a.dims, b.dims, ctx)
    if op in _COMPARE:
        r = _compare_out_of_range(op, a, b, shape)
        if r is not None:
            return r
    if op == "div" and T.kind(dt) != "f":
        dt = np.dtype(np.float64)
    if op in ("and", "or", "xor", "lshift", "rshift") and T.kind(dt) == "f":
        raise TypeError("fuse: %s needs integer or boolean operands, got %s "
                        "and %s%s" % (_SYMBOL[op], a.dtype, b.dtype,
                                      " (NumPy promotes uint64 with a signed "
                                      "integer to float64)"
                                      if {T.kind(a.dtype), T.kind(b.dtype)}
                                      == {"s", "u"} else ""))
    if op in ("floordiv", "mod", "lshift", "rshift") and T.kind(dt) == "b":
        # NumPy computes these on booleans as int8.
        dt, weak = np.dtype(np.int8), False
    a, b = _operand(a, dt), _operand(b, dt)
    if op in _COMPARE:
        return _node(op, np.bool_, shape, [a, b])
    return _node(op, dt, shape, [a, b], weak)


def power(a, b):
    a = wrap(a)
    if a.dtype == np.bool_:
        # NumPy raises booleans to a power as int8.
        a = cast(a, np.int8)
    if isinstance(b, (numbers.Integral, np.integer)) and not isinstance(
            b, bool) and 0 <= int(b) <= 8:
        e = int(b)
        if e == 0:
            return _binary("add", cast(const(0, a.dtype), a.dtype),
                           const(1)) + a * 0
        r = a
        for _ in range(e - 1):
            r = r * a
        return r
    b = wrap(b)
    dt, weak = _unify_weak(a, b)
    if T.kind(dt) != "f":
        raise TypeError("fuse: ** with integer operands supports only "
                        "constant exponents 0..8")
    shape = _bshape(a.dims, b.dims, current())
    return _node("pow", dt, shape, [_operand(a, dt), _operand(b, dt)], weak)


def unary_float(op, x):
    x = wrap(x)
    dt = T.float_of(x.dtype)
    return _node(op, dt, x.dims, [cast(x, dt)], x.weak)


def maximum(a, b):
    return _minmax("maximum", a, b)


def minimum(a, b):
    return _minmax("minimum", a, b)


def _minmax(op, a, b):
    ctx = current()
    a, b = wrap(a), wrap(b)
    dt, weak = _unify_weak(a, b)
    shape = _bshape(a.dims, b.dims, ctx)
    return _node(op, dt, shape, [_operand(a, dt), _operand(b, dt)], weak)


def where(c, a, b):
    ctx = current()
    c, a, b = wrap(c), wrap(a), wrap(b)
    dt, weak = _unify_weak(a, b)
    shape = _bshape(_bshape(c.dims, a.dims, ctx), b.dims, ctx)
    return _node("where", dt, shape, [cast(c, np.bool_), _operand(a, dt),
                                      _operand(b, dt)], weak)


# ---- materialization ---------------------------------------------------------

def _collect_leaves(node, out, seen):
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.op == "size" and n._mat is None:
            n._mat = leaf(current().size_tensor(n.sym))
        if n._mat is not None:
            if id(n._mat) not in seen:
                seen.add(id(n._mat))
                out.append(n._mat)
        elif n.op == "leaf":
            out.append(n)
        elif n.op == "param":
            raise TypeError("fuse: a scalar argument escaped its lambda")
        else:
            stack.extend(reversed(n.args))


def _broadcast_leaf_emit(ctx, lf, target):
    """The tensor SSA of leaf `lf` broadcast to `target` (shape entries)."""
    tv = lf.tv
    view = (1,) * (len(target) - len(lf.dims)) + tuple(lf.dims)
    added, sizes = [], []
    pos = 0
    for t, v in zip(target, view):
        if t is ONE:
            continue
        if v is ONE:
            added.append(pos)
            sizes.append(ctx.index_of(t))
        pos += 1
    if not added:
        return tv.ssa, tv.type
    rt = T.tensor_type(tv.storage, pos)
    r = ctx.fresh("b")
    ctx.emit("%s = fuse.broadcast %s dims [%s] (%s) : %s -> %s" % (
        r, tv.ssa, ", ".join(map(str, added)), ", ".join(sizes), tv.type, rt))
    return r, rt


def _broadcast_leaf(ctx, lf, target):
    """Memoised _broadcast_leaf_emit (one broadcast per leaf and shape)."""
    memo = ctx.__dict__.setdefault("bcast_memo", {})
    k = (id(lf.tv), lf.dims, target)
    r = memo.get(k)
    if r is None:
        r = _broadcast_leaf_emit(ctx, lf, target)
        memo[k] = r
        ctx.alive.append(lf.tv)
    return r


def materialize_many(nodes):
    """Materializes same-shape nodes with one fuse.map; returns leaves."""
    ctx = current()
    nodes = [wrap(n) for n in nodes]
    todo = []
    for n in nodes:
        if n.op == "leaf" or n._mat is not None:
            continue
        if n.op == "size":
            n._mat = leaf(ctx.size_tensor(n.sym))
            continue
        if not any(n is t for t in todo):
            todo.append(n)
    if todo:
        target = todo[0].dims
        for n in todo[1:]:
            if n.dims != target:
                raise AssertionError("materialize_many: shapes differ")
        leaves, seen = [], set()
        for n in todo:
            _collect_leaves(n, leaves, seen)
        syms = [s for s in target if s is not ONE]
        ins, keys, env = [], [], {}
        scalars = [lf for lf in leaves if lf.tv.scalar]
        leaves = [lf for lf in leaves if not lf.tv.scalar]
        for lf in scalars:
            env[lf.key()] = lf.tv.ssa     # captured by the map body
        for lf in leaves:
            k = _broadcast_leaf(ctx, lf, target)
            if k not in keys:
                keys.append(k)
                ins.append((k[0], k[1], lf.dtype, lf.tv.storage))
        if not ins:
            # Constants only: compute at top level, then make a 0-d tensor.
            body = BodyEmitter(ctx, env)
            body.line = ctx.emit
            for n in todo:
                s = body.value(n)
                if ctx.gpu:
                    # GPU entries compute scalars on the host, as scalars.
                    n._mat = leaf(TensorVal(s, n.dtype, [], scalar=True),
                                  n.dims)
                    continue
                t = ctx.fresh("t")
                ctx.emit("%s = tensor.from_elements %s : %s" % (
                    t, s, T.tensor_type(n.dtype, 0)))
                n._mat = leaf(TensorVal(t, n.dtype, []), n.dims)
        else:
            ctx.n += 1
            args = ["%%a%d_%d" % (ctx.n, i) for i in range(len(ins))]
            for lf in leaves:
                env[lf.key()] = args[keys.index(_broadcast_leaf(ctx, lf,
                                                                target))]
            results = [ctx.fresh("m") for _ in todo]
            stores = [storage_dtype(n.dtype) for n in todo]
            rtypes = [T.tensor_type(st, len(syms)) for st in stores]
            ctx.emit("%s = fuse.map %s : %s -> %s {" % (
                ", ".join(results), ", ".join(i[0] for i in ins),
                ", ".join(i[1] for i in ins), ", ".join(rtypes)))
            ctx.emit("^bb0(%s):" % ", ".join(
                "%s: %s" % (a, T.mlir(i[3])) for a, i in zip(args, ins)))
            body = BodyEmitter(ctx, env)
            loaded = {}
            for a, i in zip(args, ins):
                loaded[a] = load_elem(body, a, i[2], i[3])
            for key in list(env):
                if env[key] in loaded:
                    env[key] = loaded[env[key]]
            vals = [store_elem(body, body.value(n), n.dtype, st)
                    for n, st in zip(todo, stores)]
            ctx.emit("  fuse.yield %s : %s" % (", ".join(vals), ", ".join(
                T.mlir(st) for st in stores)))
            ctx.emit("}")
            for n, r in zip(todo, results):
                n._mat = leaf(TensorVal(r, n.dtype, syms), n.dims)
    return [n if n.op == "leaf" else n._mat for n in nodes]


def materialize(node):
    return materialize_many([node])[0]


# ---- reductions, scans, filters, gathers -------------------------------------

def _axes(x, axis):
    if axis is None:
        return list(range(x.ndim))
    axs = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in axs:
        if not isinstance(a, (numbers.Integral, np.integer)):
            raise TypeError("fuse: axis must be an int, a tuple of ints or "
                            "None, got %r" % (a,))
        a = int(a)
        if not -x.ndim <= a < max(x.ndim, 1) or (x.ndim == 0 and a not in
                                                 (0, -1)):
            raise ValueError("fuse: axis %d is out of bounds for an array of "
                             "rank %d" % (a, x.ndim))
        a = a % x.ndim if x.ndim else 0
        if a in out:
            raise ValueError("fuse: repeated axis %d" % a)
        out.append(a)
    if x.ndim == 0:
        return []
    return sorted(out)


_KIND_NAMES = {"add": "sum", "mul": "prod", "max": "max", "min": "min"}


def _dialect_kind(kind, dtype):
    """The fuse combiner kind for a built-in kind on `dtype`: integers are
    signless in the dialect, and its `max`/`min` order them as signed, so
    unsigned integers and booleans (i1: true is 1) take `umax`/`umin`."""
    if kind in ("max", "min") and T.kind(dtype) in "ub":
        return "u" + kind
    return kind


def _reduce_builtin(x, kind, axis, keepdims):
    ctx = current()
    x = wrap(x)
    axes = _axes(x, axis)
    if kind in ("add", "mul"):
        x = cast(x, T.sum_dtype(x.dtype))
    red = [a for a in axes if x.dims[a] is not ONE]
    if kind in ("max", "min"):
        for a in red:
            ctx.nonempty.append((x.dims[a], "zero-size array to reduction "
                                 "operation %s which has no identity"
                                 % ("maximum" if kind == "max" else
                                    "minimum")))
    if keepdims:
        out_shape = tuple(1 if i in axes else s for i, s in
                          enumerate(x.dims))
    else:
        out_shape = tuple(s for i, s in enumerate(x.dims) if i not in axes)
    if not red:
        # Reducing only broadcast (size-1) dims: the value itself.
        if x.op == "leaf":
            return _view(x, out_shape)
        n = SymArray(x.op, x.dtype, out_shape, x.args, x.weak)
        n.value, n.sym = x.value, x.sym
        return n
    lf = materialize(x)
    under = [i for i, s in enumerate(x.dims) if s is not ONE]
    dims = [under.index(a) for a in red]
    rank = len(under)
    keep = [s for i, s in enumerate(x.dims) if s is not ONE and i not in red]
    r = ctx.fresh("r")
    rt = T.tensor_type(lf.tv.storage, len(keep))
    dims_txt = "" if len(dims) == rank else " dims [%s]" % ", ".join(
        map(str, dims))
    ctx.emit("%s = fuse.reduce %s %s%s : %s -> %s" % (
        r, _dialect_kind(kind, x.dtype), lf.tv.ssa, dims_txt, lf.tv.type,
        rt))
    return leaf(TensorVal(r, x.dtype, keep), out_shape)


def _scalar_operand(ctx, v, dtype, what):
    """A top-level scalar SSA of `dtype` from a number or a 0-d SymArray."""
    if isinstance(v, SymArray):
        if v.ndim != 0:
            raise ValueError("%s: expected a scalar (0-d) value, got rank %d"
                             % (what, v.ndim))
        lf = materialize(cast(v, dtype))
        if lf.tv.scalar:
            return lf.tv.ssa
        e = ctx.fresh()
        ctx.emit("%s = tensor.extract %s[] : %s" % (e, lf.tv.ssa,
                                                    lf.tv.type))
        return e
    if not isinstance(v, (numbers.Number, np.generic)):
        raise TypeError("%s: expected a number, got %r" % (what, v))
    from ._ir import const_line
    e = ctx.fresh("c")
    ctx.emit(const_line(e, np.dtype(dtype).type(v).item()
                        if T.kind(dtype) != "f" else float(v), dtype))
    return e


def _trace_combiner(op, dtypes, what):
    """Traces `op(acc..., elem...)` on scalar params; returns (env params,
    result nodes)."""
    for dt in dtypes:
        if storage_dtype(dt) != dt:
            raise TypeError("%s: a function combiner over booleans is not "
                            "supported on the GPU (booleans are stored as "
                            "bytes there); combine x.astype(np.uint8)" % what)
    k = len(dtypes)
    ps = [param(i, dt) for i, dt in enumerate(list(dtypes) * 2)]
    res = op(*ps) if k == 1 else op(tuple(ps[:k]), tuple(ps[k:]))
    if not isinstance(res, (tuple, list)):
        res = (res,)
    if len(res) != k:
        raise ValueError("%s: the combiner returned %d values, expected %d"
                         % (what, len(res), k))
    res = [cast(wrap(r), dt) for r, dt in zip(res, dtypes)]
    for r in res:
        _check_params_only(r, what)
    return ps, res


def trace_comparator(less, dtype, what):
    """Traces `less(a, b)` on two scalar params of `dtype` (a sort's key
    order: true when a goes strictly before b); returns (params, [result])
    for _emit_region."""
    if storage_dtype(dtype) != dtype:
        raise TypeError("%s: a comparator over booleans is not supported "
                        "(booleans are stored as bytes on the GPU); sort "
                        "x.astype(np.uint8)" % what)
    ps = [param(0, dtype), param(1, dtype)]
    r = wrap(less(ps[0], ps[1]))
    if r.dtype != np.bool_:
        raise TypeError("%s: the comparator must return a boolean (whether "
                        "a goes before b), got %s" % (what, r.dtype))
    _check_params_only(r, what)
    return ps, [r]


def _check_params_only(node, what):
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n.op in ("leaf", "size"):
            raise TypeError("%s: may use only its arguments and "
                            "constants, not other arrays" % what)
        if n.ndim != 0:
            raise TypeError("%s: must compute scalars" % what)
        stack.extend(n.args)


def _emit_region(ctx, ps, res):
    args = ["%%p%d_%d" % (ctx.n + 1, i) for i in range(len(ps))]
    ctx.n += 1
    env = {p.key(): a for p, a in zip(ps, args)}
    ctx.emit("^bb0(%s):" % ", ".join("%s: %s" % (a, T.mlir(p.dtype))
                                     for a, p in zip(args, ps)))
    body = BodyEmitter(ctx, env)
    vals = [body.value(r) for r in res]
    ctx.emit("  fuse.yield %s : %s" % (", ".join(vals), ", ".join(
        T.mlir(r.dtype) for r in res)))


_KINDS = {"add": "add", "sum": "add", "+": "add", "mul": "mul", "prod": "mul",
          "*": "mul", "max": "max", "maximum": "max", "min": "min",
          "minimum": "min"}


def reduce(x, op, init=None, axis=None, keepdims=False):
    """Reduction with a built-in kind ("add", "mul", "max", "min") or a
    Python combiner `lambda acc, elem: ...` (init required). A tuple of
    arrays takes a combiner `lambda accs, elems: accs` and a tuple of
    inits (_argreduce.reduce_tuple)."""
    if isinstance(x, (tuple, list)):
        from ._argreduce import reduce_tuple
        return reduce_tuple(x, op, init, axis, keepdims)
    ctx = current()
    x = wrap(x)
    if isinstance(op, str):
        if op not in _KINDS:
            raise ValueError("fuse.reduce: unknown op %r (expected one of %s "
                             "or a function)" % (op, sorted(set(_KINDS))))
        kind = _KINDS[op]
        if init is None:
            return _reduce_builtin(x, kind, axis, keepdims)
        r = _reduce_builtin(x, kind, axis, keepdims)
        # init takes the result's dtype; a Python int outside it raises
        # (as NumPy's `initial=`) rather than wrapping.
        iv = _operand(wrap(init), r.dtype)
        if kind == "add":
            return _binary("add", iv, r)
        if kind == "mul":
            return _binary("mul", iv, r)
        return _minmax("maximum" if kind == "max" else "minimum", iv, r)
    if not callable(op):
        raise TypeError("fuse.reduce: op must be a string or a function, got "
                        "%r" % (op,))
    if init is None:
        raise ValueError("fuse.reduce: a function combiner needs init")
    axes = _axes(x, axis)
    if any(x.dims[a] is ONE for a in axes):
        raise NotImplementedError("fuse.reduce: reducing a broadcast (size-1) "
                                  "axis with a function combiner")
    acc = np.dtype(init.dtype) if isinstance(init, (SymArray, np.generic)) \
        else x.dtype
    x = cast(x, acc)
    iv = _scalar_operand(ctx, init, acc, "fuse.reduce init")
    ps, res = _trace_combiner(op, [acc], "fuse.reduce combiner")
    lf = materialize(x)
    under = [i for i, s in enumerate(x.dims) if s is not ONE]
    dims = [under.index(a) for a in axes]
    keep = [s for i, s in enumerate(x.dims) if s is not ONE and i not in axes]
    if keepdims:
        out_shape = tuple(1 if i in axes else s for i, s in
                          enumerate(x.dims))
    else:
        out_shape = tuple(s for i, s in enumerate(x.dims) if i not in axes)
    r = ctx.fresh("r")
    rt = T.tensor_type(acc, len(keep))
    dims_txt = "" if len(dims) == len(under) else " dims [%s]" % ", ".join(
        map(str, dims))
    ctx.emit("%s = fuse.reduce %s init(%s : %s)%s : %s -> %s {" % (
        r, lf.tv.ssa, iv, T.mlir(acc), dims_txt, lf.tv.type, rt))
    _emit_region(ctx, ps, res)
    ctx.emit("}")
    return leaf(TensorVal(r, acc, keep), out_shape)


def scan(x, op="add", exclusive=False, axis=-1, init=None):
    """Prefix scan along `axis` (the last by default): inclusive
    (y[i] = x[0] op ... op x[i]) or exclusive (starts from the identity or
    `init`). op: "add", "mul", "max", "min" or `lambda acc, elem: ...`.
    A tuple of arrays takes a combiner `lambda accs, elems: accs` and a
    tuple of inits (_argreduce.scan_tuple)."""
    if isinstance(x, (tuple, list)):
        from ._argreduce import scan_tuple
        return scan_tuple(x, op, init, exclusive, axis)
    ctx = current()
    x = wrap(x)
    if x.ndim == 0:
        raise ValueError("fuse.scan: x must have rank >= 1")
    (a,) = _axes(x, axis)
    if x.dims[a] is ONE:
        raise NotImplementedError("fuse.scan: scanning a broadcast axis")
    if isinstance(op, str):
        if op not in _KINDS:
            raise ValueError("fuse.scan: unknown op %r" % (op,))
        kind = _KINDS[op]
        acc = T.sum_dtype(x.dtype) if kind in ("add", "mul") else x.dtype
        if isinstance(init, (SymArray, np.generic)):
            acc = np.promote_types(acc, init.dtype)
        ps = res = None
    else:
        if not callable(op):
            raise TypeError("fuse.scan: op must be a string or a function")
        if init is None:
            raise ValueError("fuse.scan: a function combiner needs init")
        kind = None
        acc = np.dtype(init.dtype) if isinstance(init, (SymArray,
                                                        np.generic)) \
            else x.dtype
        ps, res = _trace_combiner(op, [acc], "fuse.scan combiner")
    x = cast(x, acc)
    iv = None
    if init is not None:
        iv = _scalar_operand(ctx, init, acc, "fuse.scan init")
    lf = materialize(x)
    under = [i for i, s in enumerate(x.dims) if s is not ONE]
    d = under.index(a)
    ty = lf.tv.type
    r = ctx.fresh("r")
    parts = ["fuse.scan", "exclusive" if exclusive else "inclusive"]
    if kind:
        parts.append(_dialect_kind(kind, acc))
    parts.append(lf.tv.ssa)
    if iv is not None:
        st = lf.tv.storage
        if st != acc:
            e = ctx.fresh()
            ctx.emit("%s = arith.extui %s : %s to %s" % (e, iv, T.mlir(acc),
                                                        T.mlir(st)))
            iv = e
        parts.append("init(%s : %s)" % (iv, T.mlir(st)))
    if d != len(under) - 1:
        parts.append("dim %d" % d)
    ctx.emit("%s = %s : %s -> %s%s" % (r, " ".join(parts), ty, ty,
                                       " {" if kind is None else ""))
    if kind is None:
        _emit_region(ctx, ps, res)
        ctx.emit("}")
    return leaf(TensorVal(r, acc, lf.tv.syms, static=lf.tv.static), x.dims)


def filter_(xs, predicate):
    """Keeps, in order, the elements where `predicate` holds.

    xs: one rank-1 array or a tuple of arrays of one length; predicate gets
    one scalar per array. Returns the kept elements (a tuple for a tuple);
    their length is `result.shape[0]`."""
    ctx = current()
    single = not isinstance(xs, (tuple, list))
    xs = [wrap(x) for x in ([xs] if single else xs)]
    if not xs:
        raise ValueError("fuse.filter: needs at least one array")
    for i, x in enumerate(xs):
        if x.ndim != 1:
            raise ValueError("fuse.filter: array %d must have rank 1, got "
                             "rank %d" % (i, x.ndim))
    for x in xs[1:]:
        ctx.unify(xs[0].dims[0], x.dims[0])
    if not callable(predicate):
        raise TypeError("fuse.filter: predicate must be a function")
    leaves = materialize_many(xs) if len({x.dims for x in xs}) == 1 else [
        materialize(x) for x in xs]
    flags = wrap(predicate(*leaves))
    if flags.dtype != np.bool_:
        raise TypeError("fuse.filter: the predicate must return booleans, got "
                        "%s" % flags.dtype)
    # Inline the predicate when it reads only the filtered arrays.
    found, seen = [], set()
    _collect_leaves(flags, found, seen)
    inline = all(f.op == "leaf" and any(f.tv is lf.tv and f.dims ==
                                        lf.dims for lf in leaves)
                 for f in found) and flags.dims == leaves[0].dims
    ins = list(leaves)
    if not inline:
        ins.append(materialize(flags))
    ins_unique = []
    for lf in ins:
        if lf.tv not in [u.tv for u in ins_unique]:
            ins_unique.append(lf)
    count = Sym("tensor", None)
    results = [ctx.fresh("f") for _ in ins_unique]
    types = [lf.tv.type for lf in ins_unique]
    rtypes = [T.tensor_type(lf.tv.storage, 1) for lf in ins_unique]
    args = ["%%q%d_%d" % (ctx.n + 1, i) for i in range(len(ins_unique))]
    ctx.n += 1
    ctx.emit("%s = fuse.filter %s : %s -> %s {" % (
        ", ".join(results), ", ".join(lf.tv.ssa for lf in ins_unique),
        ", ".join(types), ", ".join(rtypes)))
    ctx.emit("^bb0(%s):" % ", ".join("%s: %s" % (a, lf.tv.elem)
                                     for a, lf in zip(args, ins_unique)))
    env = {}
    body = BodyEmitter(ctx, env)
    for lf, a in zip(ins_unique, args):
        env[("leaf", id(lf.tv), lf.dims)] = load_elem(body, a, lf.dtype,
                                                      lf.tv.storage)
    v = body.value(flags) if inline else env[("leaf", id(ins[-1].tv),
                                              ins[-1].dims)]
    ctx.emit("  fuse.yield %s : i1" % v)
    ctx.emit("}")
    tvs = {}
    for lf, r in zip(ins_unique, results):
        tvs[id(lf.tv)] = TensorVal(r, lf.dtype, [count])
    count.src = (tvs[id(ins_unique[0].tv)], 0)
    outs = [leaf(tvs[id(lf.tv)]) for lf in leaves]
    return outs[0] if single else tuple(outs)


def prefix(x, n):
    """The first n elements of a rank-1 array, where n is a 0-d int64 array:
    a count in memory (on the GPU a device word, such as the count a filter
    of an earlier call left there: fuse.compute's select writes one to
    d_num_selected_out, whose `.reshape(())` is such an array), so the
    count never comes to the host. n is clamped to [0, len(x)]."""
    ctx = current()
    if isinstance(n, (numbers.Number, np.generic)):
        raise TypeError("fuse.prefix: n must be an array (a count in "
                        "memory), not the number %r" % (n,))
    x, n = wrap(x), wrap(n)
    if x.ndim != 1:
        raise ValueError("fuse.prefix: x must have rank 1, got rank %d"
                         % x.ndim)
    if n.ndim != 0 or n.dtype != np.dtype(np.int64):
        raise TypeError("fuse.prefix: n must be a 0-d int64 array (a count "
                        "in memory), got %s of rank %d" % (n.dtype, n.ndim))
    s, c = materialize(x), materialize(n)
    if c.tv.scalar:
        raise TypeError("fuse.prefix: n must be an array (a count in "
                        "memory); on the GPU a 0-d device array, not a "
                        "number passed by value")
    count = Sym("tensor", None)
    r = ctx.fresh("p")
    ctx.emit("%s = fuse.prefix %s, %s : %s, %s -> %s" % (
        r, s.tv.ssa, c.tv.ssa, s.tv.type, c.tv.type,
        T.tensor_type(s.tv.storage, 1)))
    tv = TensorVal(r, x.dtype, [count])
    count.src = (tv, 0)
    return leaf(tv)


def gather(source, indices):
    """y[i...] = source[indices[i...]] (rank-1 source; indices int32/int64).
    Indices outside [0, len(source)) read 0."""
    ctx = current()
    source, indices = wrap(source), wrap(indices)
    if source.ndim != 1:
        raise ValueError("fuse.gather: source must have rank 1, got rank %d"
                         % source.ndim)
    if indices.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        if T.kind(indices.dtype) in "sub":
            indices = cast(indices, np.int64)
        else:
            raise TypeError("fuse.gather: indices must be integers, got %s"
                            % indices.dtype)
    s = materialize(source)
    i = materialize(indices)
    r = ctx.fresh("g")
    rt = T.tensor_type(s.tv.storage, len(i.tv.syms))
    ctx.emit("%s = fuse.gather %s[%s] : %s, %s -> %s" % (
        r, s.tv.ssa, i.tv.ssa, s.tv.type, i.tv.type, rt))
    return leaf(TensorVal(r, source.dtype, i.tv.syms), i.dims)


def broadcast_1d(v, sym):
    """A 0-d value repeated `sym` times (a rank-1 array)."""
    ctx = current()
    lf = materialize(wrap(v))
    if lf.ndim != 0:
        raise ValueError("broadcast_1d: expected a 0-d value")
    if lf.tv.scalar:
        # No fuse.broadcast of a scalar: a map over an iota that yields it.
        i, r = ctx.fresh("i"), ctx.fresh("b")
        ctx.n += 1
        a = "%%a%d_0" % ctx.n
        ctx.emit("%s = fuse.iota %s : tensor<?xi64>" % (i, ctx.index_of(sym)))
        st = storage_dtype(lf.dtype)
        ctx.emit("%s = fuse.map %s : tensor<?xi64> -> %s {" % (
            r, i, T.tensor_type(st, 1)))
        ctx.emit("^bb0(%s: i64):" % a)
        body = BodyEmitter(ctx, {})
        ctx.emit("  fuse.yield %s : %s" % (
            store_elem(body, lf.tv.ssa, lf.dtype, st), T.mlir(st)))
        ctx.emit("}")
        return leaf(TensorVal(r, lf.dtype, [sym]))
    r = ctx.fresh("b")
    rt = T.tensor_type(lf.tv.storage, 1)
    ctx.emit("%s = fuse.broadcast %s dims [0] (%s) : %s -> %s" % (
        r, lf.tv.ssa, ctx.index_of(sym), lf.tv.type, rt))
    return leaf(TensorVal(r, lf.dtype, [sym]))


def iota(n, dtype=np.int64):
    """[0, 1, ..., n-1] with n an int, x.shape[i] or a 0-d integer."""
    ctx = current()
    dtype = T.check_supported(dtype, "fuse.iota dtype")
    if dtype == np.bool_:
        raise TypeError("fuse.iota: dtype bool is not supported")
    sym = as_sym(n, "fuse.iota n")
    idx = ctx.index_of(sym)
    r = ctx.fresh("i")
    rt = T.tensor_type(dtype, 1)
    ctx.emit("%s = fuse.iota %s : %s" % (r, idx, rt))
    return leaf(TensorVal(r, dtype, [sym]))


def map_(fn, *xs):
    """Applies a Python function elementwise: fn gets one scalar per array
    (broadcast together) and returns one value or a tuple."""
    if not callable(fn):
        raise TypeError("fuse.map: the first argument must be a function")
    xs = [wrap(x) for x in xs]
    res = fn(*xs)
    if isinstance(res, (tuple, list)):
        return tuple(wrap(r) for r in res)
    return wrap(res)
