"""GPU execution through fuse's runtime (libfuse_runtime.so) and AOT code.

Design (docs/python.md, "GPU path"): a pipeline traced by @fuse.jit is
compiled on a machine with fuse's tools by `fuse-compile` (fuse-opt
--fuse-to-cubin, then an object file and a C header) and linked with the
runtime into a shared library; the cache stores it under a key that also
names the GPU target (sm_90). The GPU machine needs only the runtime and a
cache directory copied from the build machine (FUSE_CACHE_DIR). The
generated entry is

    fuse_status_t main(const T *in0, int64_t in0_d0, ..., T *out0, ...,
                       fuse_stream_t stream);

with device pointers; outputs are allocated by the caller with the sizes
the trace derives from the input sizes. Arrays come from CuPy, PyTorch or
any producer of __cuda_array_interface__ (version >= 2) or DLPack
(kDLCUDA). This module never touches CUDA at import: `import fuse` works on
machines without a GPU, and every entry point raises GPUUnavailableError
with the reason when the runtime cannot be loaded or finds no device.

Implemented here: runtime discovery and loading, status/error reporting,
device-array introspection (both protocols, with dtype/contiguity/device
checks), and output-size derivation. Running a pipeline needs fuse-compile's
objects, which are still being written: `run` says so clearly.
"""

import ctypes
import ctypes.util
import os

import numpy as np

from . import _types as T


class GPUUnavailableError(RuntimeError):
    """The fuse runtime or a CUDA device is not available."""


class RuntimeErrorFromFuse(RuntimeError):
    """A fuse runtime call failed; .status is the fuse_status_t value."""

    def __init__(self, status, message):
        super().__init__("fuse runtime: %s (status %d: %s)" % (
            message, status, _STATUS.get(status, "unknown")))
        self.status = status


_STATUS = {0: "FUSE_SUCCESS", 1: "FUSE_ERROR_INVALID_ARGUMENT",
           2: "FUSE_ERROR_NO_DEVICE", 3: "FUSE_ERROR_UNSUPPORTED_DEVICE",
           4: "FUSE_ERROR_OUT_OF_MEMORY", 5: "FUSE_ERROR_LAUNCH",
           6: "FUSE_ERROR_POISONED", 7: "FUSE_ERROR_NOT_PERMITTED",
           8: "FUSE_ERROR_INTERNAL"}

# fuse_dtype_t of runtime/include/fuse_runtime.h
FUSE_DTYPE = {np.dtype(np.float32): 2, np.dtype(np.float64): 3,
              np.dtype(np.int32): 4, np.dtype(np.int64): 5,
              np.dtype(np.uint32): 6, np.dtype(np.uint64): 7,
              np.dtype(np.int8): 8, np.dtype(np.uint8): 9,
              np.dtype(np.int16): 10, np.dtype(np.bool_): 11}

_runtime = None
_runtime_error = None


def _candidates():
    env = os.environ.get("FUSE_RUNTIME_LIB")
    if env:
        yield env
    for var in ("FUSE_BUILD_DIR",):
        d = os.environ.get(var)
        if d:
            for sub in ("lib", "runtime", "."):
                yield os.path.join(d, sub, "libfuse_runtime.so")
    found = ctypes.util.find_library("fuse_runtime")
    if found:
        yield found
    yield "libfuse_runtime.so"


def runtime():
    """The loaded and initialised runtime (ctypes.CDLL)."""
    global _runtime, _runtime_error
    if _runtime is not None:
        return _runtime
    if _runtime_error is not None:
        raise GPUUnavailableError(_runtime_error)
    tried, lib = [], None
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    if lib is None:
        _runtime_error = (
            "GPU execution needs the fuse runtime (libfuse_runtime.so), which "
            "was not found; build it (runtime/) and set FUSE_RUNTIME_LIB to "
            "its path. Tried: " + "; ".join(tried))
        raise GPUUnavailableError(_runtime_error)
    lib.fuse_last_error_message.restype = ctypes.c_char_p
    lib.fuse_init.restype = ctypes.c_int
    st = lib.fuse_init()
    if st != 0:
        msg = lib.fuse_last_error_message().decode(errors="replace")
        _runtime_error = "the fuse runtime found no usable GPU: %s (%s)" % (
            msg, _STATUS.get(st, st))
        raise GPUUnavailableError(_runtime_error)
    _runtime = lib
    return lib


def available():
    """True when the runtime loads and finds a GPU (never raises)."""
    try:
        runtime()
        return True
    except GPUUnavailableError:
        return False


def check(status):
    if status != 0:
        msg = runtime().fuse_last_error_message().decode(errors="replace")
        raise RuntimeErrorFromFuse(status, msg)


class DeviceArray:
    """What fuse needs to know about a GPU array: pointer, shape, dtype."""

    __slots__ = ("ptr", "shape", "dtype", "owner")

    def __init__(self, ptr, shape, dtype, owner):
        self.ptr, self.shape, self.dtype, self.owner = ptr, shape, dtype, \
            owner

    @property
    def ndim(self):
        return len(self.shape)


def _contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n > 1 and s != expect:
            return False
        expect *= n
    return True


def device_array(a, name="argument"):
    """Introspects a GPU array (CuPy, PyTorch, ...).

    Raises TypeError for host arrays, unsupported dtypes and non-contiguous
    arrays (call .contiguous() / cupy.ascontiguousarray first: fuse does not
    copy device arrays behind your back)."""
    if isinstance(a, np.ndarray):
        raise TypeError("%s: a NumPy array lives on the host; GPU execution "
                        "takes CuPy or PyTorch CUDA arrays" % name)
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        dtype = np.dtype(cai["typestr"])
        T.check_supported(dtype, name)
        shape = tuple(int(s) for s in cai["shape"])
        strides = cai.get("strides")
        if not _contiguous(shape, strides, dtype.itemsize):
            raise TypeError("%s: the array is not C-contiguous" % name)
        if cai.get("mask") is not None:
            raise TypeError("%s: masked arrays are not supported" % name)
        ptr = int(cai["data"][0] or 0)
        return DeviceArray(ptr, shape, dtype, a)
    if hasattr(a, "__dlpack__") and hasattr(a, "__dlpack_device__"):
        dev_type, _ = a.__dlpack_device__()
        if int(dev_type) != 2:     # kDLCUDA
            raise TypeError("%s: DLPack device type %d is not CUDA; GPU "
                            "execution takes CUDA arrays" % (name, dev_type))
        return _from_dlpack(a, name)
    raise TypeError("%s: expected a CUDA array (CuPy, PyTorch, or any object "
                    "with __cuda_array_interface__ or __dlpack__), got %s"
                    % (name, type(a).__name__))


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def _from_dlpack(a, name):
    cap = a.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # DLManagedTensor starts with its DLTensor.
    t = _DLTensor.from_address(get(cap, b"dltensor"))
    code = {0: "i", 1: "u", 2: "f", 6: "b"}.get(t.dtype.code)
    if code is None or t.dtype.lanes != 1:
        raise TypeError("%s: unsupported DLPack dtype (code %d, lanes %d)"
                        % (name, t.dtype.code, t.dtype.lanes))
    dtype = np.dtype(np.bool_) if code == "b" else np.dtype(
        "%s%d" % (code, t.dtype.bits // 8))
    T.check_supported(dtype, name)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None if not t.strides else tuple(
        t.strides[i] * dtype.itemsize for i in range(t.ndim))
    if not _contiguous(shape, strides, dtype.itemsize):
        raise TypeError("%s: the array is not C-contiguous" % name)
    # Keep the capsule (and so the producer's buffer) alive with the view.
    return DeviceArray((t.data or 0) + t.byte_offset, shape, dtype, (a, cap))


def output_shapes(pipeline, inputs):
    """The shapes of a traced pipeline's results, derived from its inputs'
    shapes before launch (GPU outputs are allocated by the caller)."""
    shapes = []
    for dt, rank, view, kind in pipeline.result_specs:
        shape = []
        for s in view:
            if not hasattr(s, "find"):
                continue
            r = s.find()
            size = pipeline._size(r, inputs)
            if size is None:
                raise NotImplementedError(
                    "GPU execution of pipelines with data-dependent result "
                    "sizes (fuse.filter) needs a device-side count from the "
                    "runtime; not available yet")
            shape.append(size)
        shapes.append(tuple(shape))
    return shapes


def run(jit_function, *arrays):
    """Runs a @fuse.jit function on GPU arrays (CuPy / PyTorch).

    Checks every argument first (device, dtype, contiguity, sizes)."""
    devs = [device_array(a, name) for a, name in zip(
        arrays, jit_function.signature.parameters)]
    runtime()
    raise GPUUnavailableError(
        "GPU pipelines need objects from fuse-compile (AOT), which this "
        "build of fuse does not provide yet; %d argument(s) checked" %
        len(devs))
