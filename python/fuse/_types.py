"""dtypes: NumPy <-> MLIR element types and NumPy-style promotion."""

import numpy as np

try:
    # NumPy has no bfloat16; ml_dtypes (JAX's) registers one, which is what
    # NumPy arrays and PyTorch/DLPack bfloat16 data map to. Without it,
    # bfloat16 arrays are refused like any other unsupported dtype.
    import ml_dtypes as _ml_dtypes
    BFLOAT16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:
    BFLOAT16 = None

# numpy dtype -> (MLIR type, kind): kind is 'f' float, 's' signed int,
# 'u' unsigned int, 'b' bool.
_TABLE = {
    np.dtype(np.float16): ("f16", "f"),
    np.dtype(np.float32): ("f32", "f"),
    np.dtype(np.float64): ("f64", "f"),
    np.dtype(np.int8): ("i8", "s"),
    np.dtype(np.int16): ("i16", "s"),
    np.dtype(np.int32): ("i32", "s"),
    np.dtype(np.int64): ("i64", "s"),
    np.dtype(np.uint8): ("i8", "u"),
    np.dtype(np.uint16): ("i16", "u"),
    np.dtype(np.uint32): ("i32", "u"),
    np.dtype(np.uint64): ("i64", "u"),
    np.dtype(np.bool_): ("i1", "b"),
}
if BFLOAT16 is not None:
    _TABLE[BFLOAT16] = ("bf16", "f")

SUPPORTED = tuple(_TABLE)
SUPPORTED_NAMES = ", ".join(str(d) for d in SUPPORTED)


def is_half(dt):
    """float16 or bfloat16: sums and means accumulate in float32."""
    return _TABLE.get(np.dtype(dt), ("",))[0] in ("f16", "bf16")


def is_supported(dt):
    return np.dtype(dt) in _TABLE


def mlir(dt):
    return _TABLE[np.dtype(dt)][0]


def kind(dt):
    return _TABLE[np.dtype(dt)][1]


def bits(dt):
    dt = np.dtype(dt)
    return 1 if dt == np.bool_ else dt.itemsize * 8


def tensor_type(dt, rank):
    return "tensor<%s%s>" % ("?x" * rank, mlir(dt))


def check_supported(dt, what):
    try:
        d = np.dtype(dt)
    except TypeError:
        raise TypeError("%s: %r is not a dtype" % (what, dt))
    if d not in _TABLE:
        raise TypeError("%s: dtype %s is not supported (expected one of %s)"
                        % (what, d, SUPPORTED_NAMES))
    return d


def promote(a, a_weak, b, b_weak):
    """NumPy 2 (NEP 50) promotion where weak operands are Python scalars.

    Returns (dtype, weak)."""
    a, b = np.dtype(a), np.dtype(b)
    if a_weak and b_weak:
        return np.promote_types(a, b), True
    if a_weak:
        a, b, a_weak, b_weak = b, a, b_weak, a_weak
    if b_weak:
        ka, kb = kind(a), kind(b)
        if kb == "f" and ka != "f":
            return np.dtype(np.float64), False
        if kb in "su" and ka == "b":
            return np.dtype(np.int64), False
        return a, False
    return np.promote_types(a, b), False


def float_of(dt):
    """The float type an operation such as exp gives for `dt`."""
    dt = np.dtype(dt)
    if kind(dt) == "f":
        return dt
    return np.dtype(np.float64)


def sum_dtype(dt):
    """NumPy's accumulator type for sum/prod/cumsum."""
    dt = np.dtype(dt)
    k = kind(dt)
    if k in "sb" and bits(dt) < 64:
        return np.dtype(np.int64)
    if k == "u" and bits(dt) < 64:
        return np.dtype(np.uint64)
    return dt
