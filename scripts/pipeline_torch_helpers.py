"""The helper functions scripts/pipeline_torch.py emits with a translated
program (only those it uses, and those they use): plain Python over the
namespace T (torch, or the NumPy stand-in of test/Python/
test_pipeline_torch.py)."""

# -- helpers emitted with the program (only those it uses) --------------------
# Each is plain Python over T, so that a NumPy stand-in can run it too.
HELPERS = {
    "_k": ((), '''
def _k(v, dt, dev):
    # a constant as a 0-d tensor: every value of a body is a tensor, so
    # torch functions without scalar overloads (maximum, where) take it
    return T.full((), v, dtype=dt, device=dev)
'''),
    "_rto": ((), '''
def _rto(x, dt):
    # f64 to f16/bf16 rounded once (torch converts through f32, rounding
    # twice): round to odd in f32 keeps the lost bits' sticky bit, so the
    # rounding to dt is the only one that counts
    y = x.to(T.float32)
    back = y.to(T.float64)
    inexact = back != x
    b = y.view(T.int32) - ((T.abs(back) > T.abs(x)) & inexact).to(T.int32)
    return (b | inexact.to(T.int32)).view(T.float32).to(dt)
'''),
    "_u64f": ((), '''
def _u64f(x):
    # unsigned 64-bit to f64: two exact 32-bit halves, rounded once
    hi = ((x >> 32) & 4294967295).to(T.float64)
    return hi * 4294967296.0 + (x & 4294967295).to(T.float64)
'''),
    "_shru": ((), '''
def _shru(a, k, smax):
    # logical shift right on signed storage: one step with the sign bit
    # cleared, then arithmetic steps on a value >= 0
    s = ((a >> 1) & smax) >> T.clamp(k - 1, min=0)
    return T.where(k == 0, a, s)
'''),
    "_divu": ((), '''
def _divu(a, b, mask, rem):
    # unsigned division of 8..32-bit values, exact in int64
    x, y = a.to(T.int64) & mask, b.to(T.int64) & mask
    return (x % y if rem else x // y).to(a.dtype)
'''),
    "_divu64": ((), '''
def _divu64(a, b, rem):
    # unsigned 64-bit division on int64 storage (Hacker's Delight 9-3): a
    # divisor >= 2^63 gives 0 or 1; else the halved dividend's quotient,
    # doubled, is the quotient or one less
    m = -9223372036854775808
    big = b < 0
    d = T.where(big, 1, b)
    q = (((a >> 1) & 9223372036854775807) // d) << 1
    q = q + (((a - q * d) ^ m) >= (d ^ m)).to(a.dtype)
    q = T.where(big, ((a ^ m) >= (b ^ m)).to(a.dtype), q)
    return a - q * b if rem else q
'''),
    "_mm": ((), '''
def _mm(x, dims, big, init):
    # min or max over dims, combined with init (amax/amin refuse an empty
    # input, whose reduction is the init)
    if x.numel() == 0:
        shp = [n for d, n in enumerate(x.shape) if d not in dims]
        return T.broadcast_to(init, shp).contiguous()
    if big:
        return T.maximum(T.amax(x, dim=dims), init)
    return T.minimum(T.amin(x, dim=dims), init)
'''),
    "_flat": ((), '''
def _flat(x, dims):
    # the reduced dims moved last and made one (prod and the bitwise folds
    # reduce one dimension)
    kept = [d for d in range(len(x.shape)) if d not in dims]
    n = 1
    for d in dims:
        n *= x.shape[d]
    y = T.permute(x, kept + list(dims))
    return T.reshape(y, [x.shape[d] for d in kept] + [n])
'''),
    "_bit": ((), '''
def _bit(a, b, kind):
    if kind == "and":
        return a & b
    return a | b if kind == "or" else a ^ b
'''),
    "_fold": (("_flat", "_bit"), '''
def _fold(x, dims, kind, init):
    # and/or/xor over dims: torch has no bitwise reduction, so halves are
    # combined pairwise (log2(n) steps, about two passes over x)
    y = _flat(x, dims)
    if y.shape[-1] == 0:
        return T.broadcast_to(init, y.shape[:-1]).contiguous()
    while y.shape[-1] > 1:
        h = y.shape[-1] // 2
        z = _bit(T.narrow(y, -1, 0, h), T.narrow(y, -1, h, h), kind)
        if y.shape[-1] % 2:
            z = T.cat([z, T.narrow(y, -1, 2 * h, 1)], -1)
        y = z
    return _bit(T.reshape(y, y.shape[:-1]), init, kind)
'''),
    "_argext": ((), '''
def _argext(key, x, idx, kinit, init, iinit):
    # the argmax-style combiner: the first element whose key beats every
    # earlier one and the init's (argmax gives the first maximum)
    if key.numel() == 0:
        return init, iinit
    k = T.argmax(T.reshape(key, (-1,)))
    win = T.reshape(key, (-1,))[k] > kinit
    return (T.where(win, T.reshape(x, (-1,))[k], init),
            T.where(win, T.reshape(idx, (-1,))[k], iinit))
'''),
    "_excl": ((), '''
def _excl(y, init, d):
    # an exclusive scan from the inclusive one: init, then all but the last
    n = y.shape[d]
    if n == 0:
        return y
    shp = list(y.shape)
    shp[d] = 1
    return T.cat([T.broadcast_to(init, shp), T.narrow(y, d, 0, n - 1)], d)
'''),
    "_fkey": ((), '''
def _fkey(x, it, m):
    # float bits as a signed integer in CUB's radix order: -0.0 and +0.0
    # one key, NaN by its sign bit (before -inf or after +inf)
    s = x.view(it)
    k = T.where(s < 0, (~s) ^ m, s)
    return T.where((s & ~m) == 0, 0, k)
'''),
    "_skey": (("_fkey",), '''
def _skey(x, it, m):
    # searchsorted's order: fuse's binary search puts NaN after every number
    return T.where(T.isnan(x), -m - 1, _fkey(x, it, m))
'''),
    "_sort": ((), '''
def _sort(key, desc, *xs):
    p = T.sort(key, stable=True, descending=desc).indices
    return tuple(x[p] for x in xs)
'''),
    "_argsort": ((), '''
def _argsort(key, desc, x):
    # a positions sort: the keys and each one's input position (int64)
    p = T.sort(key, stable=True, descending=desc).indices
    return x[p], p
'''),
    "_hist": ((), '''
def _hist(x, bins, dt):
    # values read as signed; those outside [0, bins) go to an extra bin
    v = T.reshape(x, (-1,)).to(T.int64)
    v = T.where((v >= 0) & (v < bins), v, bins)
    return T.narrow(T.bincount(v, minlength=bins + 1), 0, 0, bins).to(dt)
'''),
    "_gather": ((), '''
def _gather(s, idx):
    # out-of-range indices (compared as signed 64-bit) read 0
    n = s.shape[0]
    i = idx.to(T.int64)
    zero = T.full((), 0, dtype=s.dtype, device=s.device)
    if n == 0:
        return T.broadcast_to(zero, i.shape).contiguous()
    return T.where((i >= 0) & (i < n), s[T.clamp(i, 0, n - 1)], zero)
'''),
    "_seg": (("_fold",), '''
def _seg(x, st, en, kind, ident, acc):
    # segment s reduces x[lo:hi], lo = clamp(st, 0, n), hi = clamp(en, lo,
    # n) (segments may overlap or come in any order): its elements are
    # gathered into a window as wide as the longest segment, the rest of
    # the window holding the identity ("last": the init)
    n = x.shape[0]
    lo = T.clamp(st.to(T.int64), 0, n)
    hi = T.clamp(T.maximum(en.to(T.int64), lo), max=n)
    if n == 0:
        return T.broadcast_to(ident, lo.shape).contiguous()
    if kind == "last":
        return T.where(hi > lo, x[T.clamp(hi - 1, 0, n - 1)], ident)
    w = max(int(T.amax(hi - lo)) if lo.numel() else 0, 1)
    pos = T.reshape(lo, (-1, 1)) + T.reshape(T.arange(w, device=x.device),
                                             (1, -1))
    v = T.where(pos < T.reshape(hi, (-1, 1)), x[T.clamp(pos, 0, n - 1)],
                ident)
    if kind == "add":
        return T.sum(v.to(acc), dim=1).to(x.dtype)
    if kind in ("min", "max"):
        return T.amax(v, dim=1) if kind == "max" else T.amin(v, dim=1)
    return _fold(v, (1,), kind, ident)
'''),
}


def helper_source(names):
    """The helpers `names` and those they use, each once, in a fixed
    order."""
    todo, seen = list(names), set()
    while todo:
        h = todo.pop()
        if h not in seen:
            seen.add(h)
            todo.extend(HELPERS[h][0])
    return "".join(HELPERS[h][1] for h in HELPERS if h in seen)
