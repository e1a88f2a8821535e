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

Compilation: `fuse-compile --emit=shared` (a shared library whose fuse_*
symbols resolve against the runtime, plus its signature manifest), stored in
the package's cache under a key made of the IR text, the pipeline name, the
GPU chip and the ABI version only: nothing that differs between machines,
so a cache filled on a machine with fuse's tools (prepare-python.sh) is hit
as is on a machine with only the runtime. Without fuse-compile, a miss is a
GPUCacheMissError naming the key.

Tiling options (FUSE_GPU_TILE_OPTIONS, e.g. "long-row-items=4"): fuse-tile's
options for every GPU compile (fuse-compile --tile-options; `fuse-opt
--help` lists them under --fuse-tile). They are part of the cache key when
set, so pipelines compiled with and without them never share an entry;
unset, the key is the same as before the variable existed.

Compile-only mode (FUSE_GPU_COMPILE_ONLY=1 when fuse.gpu is imported, or
set_compile_only(True)): everything up to the launch (argument checks, tracing, compiling, caching,
allocating the outputs), without loading the runtime or touching a GPU; the
outputs are left unwritten and filter counts read 0. It fills the cache for
another machine by running the same code that machine runs.
"""

import contextlib
import ctypes
import ctypes.util
import json
import os
import shutil
import subprocess
import tempfile
import threading
import weakref

import numpy as np

from . import _cache, _launch, _tools
from . import _types as T


class GPUUnavailableError(RuntimeError):
    """The fuse runtime or a CUDA device is not available."""


class GPUCacheMissError(GPUUnavailableError):
    """A GPU pipeline is not in the cache and cannot be compiled here."""


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
              np.dtype(np.int16): 10, np.dtype(np.bool_): 11,
              np.dtype(np.uint16): 12}

_runtime = None
_runtime_error = None


def _candidates():
    env = os.environ.get("FUSE_RUNTIME_LIB")
    if env:
        yield env
    for var in ("FUSE_BUILD_DIR",):
        d = os.environ.get(var)
        if d:
            for sub in ("lib", "runtime/lib", "runtime", "."):
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
            # RTLD_GLOBAL: the pipelines' shared libraries leave the
            # runtime's fuse_* symbols undefined and bind them to this copy.
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
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


_runtime_device = None


def runtime_device():
    """The CUDA ordinal of the device the runtime runs on (the device
    current when it was initialised), or None where the runtime is a
    test's stand-in."""
    global _runtime_device
    lib = runtime()
    if lib is None:
        return None
    if _runtime_device is None:
        d = ctypes.c_int(-1)
        check(lib.fuse_device_ordinal(ctypes.byref(d)))
        _runtime_device = d.value
    return _runtime_device


def _array_device(a, ptr, name):
    """The device ordinal array `a` (data at `ptr`) lives on: its library's
    attribute, or else the runtime's answer about the pointer."""
    m = _launch.mode_of(type(a))
    if m is _launch.TORCH:
        return a.get_device()
    if m is _launch.CUPY:
        return a.device.id
    d = ctypes.c_int(-1)
    st = runtime().fuse_pointer_device(ctypes.c_void_p(ptr), ctypes.byref(d))
    if st != 0:
        raise TypeError("%s: %s" % (name, runtime().fuse_last_error_message()
                                    .decode(errors="replace")))
    return d.value


def checked_device_array(a, name):
    """device_array(a, name) of an array that kernels will touch; raises
    TypeError when it is not on the device the runtime runs on: kernels
    and their memory must share one device. Nothing to check in
    compile-only mode, for stand-ins and for empty arrays (no memory)."""
    d = device_array(a, name)
    if compile_only() or not d.ptr or \
            _launch.mode_of(type(a)) is _launch.STANDIN:
        return d
    want = runtime_device()
    if want is None:
        return d
    got = _array_device(a, d.ptr, name)
    if got != want:
        raise TypeError(
            "%s is on CUDA device %d, but the fuse runtime runs on device %d "
            "(the device current when it started): pass arrays of device %d, "
            "or make device %d current (torch.cuda.set_device, "
            "cupy.cuda.Device(...).use()) before the process's first GPU "
            "call" % (name, got, want, want, got))
    return d


def available():
    """True when the runtime loads and finds a GPU (never raises)."""
    try:
        runtime()
        return True
    except GPUUnavailableError:
        return False


class InvalidArgumentFromFuse(RuntimeErrorFromFuse, ValueError):
    """FUSE_ERROR_INVALID_ARGUMENT: the call's arguments were rejected
    before any work (sizes that do not match, overlapping buffers); a
    ValueError like the checks the trace makes itself."""


def check(status):
    if status != 0:
        msg = runtime().fuse_last_error_message().decode(errors="replace")
        if status == 1:
            raise InvalidArgumentFromFuse(status, msg)
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


def _known_device_array(a):
    """The DeviceArray of a CUDA torch tensor or a CuPy array, read through
    their own attributes (about 1 us, where torch's
    __cuda_array_interface__ costs about 4), or None where device_array's
    generic path must look: other types, host tensors, dtypes fuse does not
    take, non-contiguous, empty or grad-requiring arrays (it raises or
    decides as before)."""
    m = _launch.mode_of(type(a))
    if m is _launch.TORCH:
        if not a.is_cuda or a.requires_grad or not a.is_contiguous():
            return None
        dt = _launch._TORCH_DTYPES.get(a.dtype)
        if dt is None or 0 in a.shape:
            return None
        return DeviceArray(a.data_ptr(), tuple(a.shape), dt, a)
    if m is _launch.CUPY:
        if not a.flags.c_contiguous or a.size == 0 or \
                not T.is_supported(a.dtype):
            return None
        return DeviceArray(a.data.ptr, tuple(a.shape), a.dtype, a)
    if m is _launch.STANDIN:
        # Its own dtype: __cuda_array_interface__ writes bfloat16 as "V2"
        # (the pointer is the interface's, empty arrays included).
        h = a.a
        if not T.is_supported(h.dtype):
            return None
        return DeviceArray(h.ctypes.data, tuple(h.shape), h.dtype, a)
    return None


def device_array(a, name="argument"):
    """Introspects a GPU array (CuPy, PyTorch, ...).

    Raises TypeError for host arrays, unsupported dtypes and non-contiguous
    arrays (call .contiguous() / cupy.ascontiguousarray first: fuse does not
    copy device arrays behind your back)."""
    d = _known_device_array(a)
    if d is not None:
        return d
    if isinstance(a, np.ndarray):
        raise TypeError("%s: a NumPy array lives on the host; GPU execution "
                        "takes CuPy or PyTorch CUDA arrays" % name)
    if getattr(a, "requires_grad", False) is True:
        raise TypeError("%s: the tensor requires grad; fuse computes no "
                        "gradients: pass x.detach()" % name)
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
    code = {0: "i", 1: "u", 2: "f", 4: "bf", 6: "b"}.get(t.dtype.code)
    if code is None or t.dtype.lanes != 1 or \
            (code == "bf" and t.dtype.bits != 16):
        raise TypeError("%s: unsupported DLPack dtype (code %d, bits %d, "
                        "lanes %d)" % (name, t.dtype.code, t.dtype.bits,
                                       t.dtype.lanes))
    if code == "bf":
        if T.BFLOAT16 is None:
            raise TypeError("%s: bfloat16 arrays need the ml_dtypes package "
                            "(pip install ml_dtypes)" % name)
        dtype = T.BFLOAT16
    elif code == "b":
        dtype = np.dtype(np.bool_)
    else:
        dtype = np.dtype("%s%d" % (code, t.dtype.bits // 8))
    T.check_supported(dtype, name)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None if not t.strides else tuple(
        t.strides[i] * dtype.itemsize for i in range(t.ndim))
    if not _contiguous(shape, strides, dtype.itemsize):
        raise TypeError("%s: the array is not C-contiguous" % name)
    # Keep the capsule (and so the producer's buffer) alive with the view.
    return DeviceArray((t.data or 0) + t.byte_offset, shape, dtype, (a, cap))



# ---- compile-only mode ---------------------------------------------------

def _compile_only_env():
    return os.environ.get("FUSE_GPU_COMPILE_ONLY", "") not in ("", "0")


# FUSE_GPU_COMPILE_ONLY is read at import and by set_compile_only(None),
# not at every call (a cache hit asks compile_only() once).
_compile_only = None
_compile_only_from_env = _compile_only_env()


def compile_only():
    """Whether GPU calls stop before the launch (see the module doc)."""
    if _compile_only is not None:
        return _compile_only
    return _compile_only_from_env


def set_compile_only(flag):
    """Overrides FUSE_GPU_COMPILE_ONLY (None: back to the environment,
    read again)."""
    global _compile_only, _compile_only_from_env
    _compile_only = None if flag is None else bool(flag)
    if flag is None:
        _compile_only_from_env = _compile_only_env()


# ---- compiling and the cache ---------------------------------------------

PIPELINE = "fuse-compile-shared"
# v2: results computed from a filter's kept elements also get a count.
ABI = "fuse-aot-shared-v2/prefix=fx_"
ENTRY = "main"

stats = {"compiles": 0, "disk_hits": 0, "memory_hits": 0}
_memory = {}
_lock = threading.RLock()


def chip():
    return os.environ.get("FUSE_GPU_CHIP") or "sm_90"


def tile_options():
    """fuse-tile's options for GPU compiles (FUSE_GPU_TILE_OPTIONS), or ""."""
    return os.environ.get("FUSE_GPU_TILE_OPTIONS", "").strip()


def cache_key(ir_text):
    """The cache key of a GPU pipeline: IR, pipeline, chip and ABI only (no
    tool digests or paths), so every machine computes the same key; with
    tiling options set, those too."""
    opts = tile_options()
    if opts:
        return _cache.make_key(ir_text, PIPELINE, chip(), ABI,
                               "tile-options=" + opts)
    return _cache.make_key(ir_text, PIPELINE, chip(), ABI)


def find_fuse_compile():
    """fuse-compile, looked up like fuse-opt (FUSE_BIN_DIR,
    FUSE_BUILD_DIR/bin, PATH, the repository's build/bin), or None.
    FUSE_GPU_NO_COMPILE=1 hides it (cache look-ups only, as on a machine
    without fuse's tools)."""
    if os.environ.get("FUSE_GPU_NO_COMPILE", "") not in ("", "0"):
        return None
    for var, sub in (("FUSE_BIN_DIR", ""), ("FUSE_BUILD_DIR", "bin")):
        d = os.environ.get(var)
        if d and _tools._executable(os.path.join(d, sub, "fuse-compile")):
            return os.path.join(d, sub, "fuse-compile")
    p = shutil.which("fuse-compile")
    if p:
        return p
    return _tools._executable(os.path.join(_tools._REPO_ROOT, "build", "bin",
                                           "fuse-compile"))


def _compile(fc, ir_text):
    from ._cpu import CompileError
    env = dict(os.environ)
    if not shutil.which("ptxas"):
        for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
            if d and os.path.exists(os.path.join(d, "bin", "ptxas")):
                env["PATH"] = env.get("PATH", "") + os.pathsep + \
                    os.path.join(d, "bin")
                break
    with tempfile.TemporaryDirectory(prefix="fuse-gpu-build-") as d:
        src = os.path.join(d, "module.mlir")
        with open(src, "w") as f:
            f.write(ir_text)
        cmd = [fc, src, "--emit=shared", "--prefix=fx_", "--chip=" + chip(),
               "-o", os.path.join(d, "m")]
        opts = tile_options()
        if opts:
            cmd.append("--tile-options=" + opts)
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=600, env=env)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise CompileError("fuse-compile: could not run %s: %s" % (fc, e))
        if r.returncode != 0:
            raise CompileError("fuse-compile failed (exit %d): %s\ncommand: %s"
                               % (r.returncode,
                                  r.stderr.decode(errors="replace").strip(),
                                  " ".join(cmd)))
        with open(os.path.join(d, "m.so"), "rb") as f:
            lib = f.read()
        with open(os.path.join(d, "m.json")) as f:
            manifest = f.read()
    return lib, manifest


class Compiled:
    """A GPU pipeline from the cache: its signature manifest and, once
    loaded, the packed entry point."""

    def __init__(self, key, path, manifest):
        self.key, self.path = key, path
        entries = [e for e in manifest["entries"] if e["name"] == ENTRY]
        if not entries:
            raise GPUUnavailableError("fuse GPU: cache entry %s has no entry "
                                      "%r" % (key, ENTRY))
        self.entry = entries[0]
        self._lib = None

    def library(self):
        """The loaded shared library (the runtime is loaded first: the
        library binds its fuse_* symbols to it)."""
        if self._lib is None:
            runtime()
            try:
                self._lib = ctypes.CDLL(self.path)
            except OSError as e:
                raise GPUUnavailableError(
                    "fuse GPU: cannot load %s: %s" % (self.path, e))
        return self._lib


def _entry_manifest(key):
    with open(os.path.join(_cache.entry_dir(key), "entry.json")) as f:
        return json.load(f)


def load(ir_text):
    """The Compiled pipeline for `ir_text`: from memory, the cache, or (with
    fuse-compile here) a fresh compile, published in the cache."""
    key = cache_key(ir_text)
    with _lock:
        c = _memory.get(key)
        if c is not None:
            stats["memory_hits"] += 1
            return c
        fc = find_fuse_compile()
        path = _cache.lookup(key)
        if path is not None:
            try:
                m = _entry_manifest(key)
                # With fuse-compile here, an entry that another build of it
                # made is rebuilt; without (the GPU machine), it is used.
                if fc is not None and m.get("fuse_compile_sha256") != \
                        _tools.file_digest(fc):
                    _cache.discard(key)
                    path = None
            except (OSError, ValueError):
                _cache.discard(key)
                path = None
        if path is None:
            if fc is None:
                raise GPUCacheMissError(
                    "fuse GPU: pipeline %s (key %s) is not in the prebuilt "
                    "cache %s, and no fuse-compile here to compile it; fill "
                    "the cache on a machine with fuse's tools "
                    "(scripts/gpu/prepare-python.sh, FUSE_GPU_COMPILE_ONLY=1) "
                    "and point FUSE_CACHE_DIR at a copy" % (
                        ENTRY, key, _cache.cache_root()))
            lib, manifest = _compile(fc, ir_text)
            m = json.loads(manifest)
            m["fuse_compile_sha256"] = _tools.file_digest(fc)
            stats["compiles"] += 1
            path = _cache.publish(key, lib, {"module.mlir": ir_text,
                                             "entry.json": json.dumps(m)})
        else:
            stats["disk_hits"] += 1
        c = Compiled(key, path, m)
        _memory[key] = c
        return c


def clear_memory_cache():
    """Forgets the loaded pipelines, and the launchers @fuse.jit functions
    keep per argument signature (the next call looks the cache up again)."""
    with _lock:
        _memory.clear()
        for f in list(_jit_functions):
            f._launchers.clear()
            for p in list(f._specs.values()):
                p._launcher = None


# @fuse.jit functions (weakly), whose launchers clear_memory_cache drops.
_jit_functions = weakref.WeakSet()


# ---- allocation and streams through the caller's library -------------------

def _library(a):
    mod = type(a).__module__.split(".")[0]
    if mod in ("torch", "cupy"):
        return mod
    if hasattr(a, "__fuse_empty__"):
        return "custom"
    return None


def allocator_like(a):
    """empty(shape, numpy dtype) making arrays of `a`'s kind on its device
    (PyTorch, CuPy, or an object with __fuse_empty__(shape, dtype))."""
    lib = _library(a)
    if lib == "torch":
        import torch
        dev = a.device

        def empty(shape, dtype):
            return torch.empty(tuple(shape), dtype=_torch_dtype(dtype),
                               device=dev)
        return empty
    if lib == "cupy":
        import cupy

        def empty(shape, dtype):
            with a.device:
                return cupy.empty(tuple(shape), dtype=dtype)
        return empty
    if lib == "custom":
        return a.__fuse_empty__
    raise TypeError("fuse GPU: cannot allocate results like a %s (PyTorch "
                    "and CuPy arrays, or objects with __fuse_empty__)"
                    % type(a).__name__)


def _torch_dtype(dtype):
    import torch
    dtype = np.dtype(dtype)
    # torch.uint16/32/64 exist from PyTorch 2.3 on: looked up by name, so
    # that older versions still allocate the other dtypes.
    name = {np.dtype(np.bool_): "bool"}.get(dtype, dtype.name)
    t = getattr(torch, name, None)
    if t is None:
        raise TypeError("fuse GPU: this PyTorch (%s) has no torch.%s for a "
                        "%s result; PyTorch 2.3 or later has the unsigned "
                        "dtypes" % (torch.__version__, name, dtype))
    return t


def owner_stream(a):
    """The current stream of `a`'s library (a CUstream as an int; 0 for the
    legacy default stream, passed as NULL: the runtime's per-thread default
    stream, which synchronizes with it)."""
    lib = _library(a)
    if lib == "torch":
        return _launch.current_stream(_launch.TORCH, a.device.index)
    if lib == "cupy":
        return _launch.current_stream(_launch.CUPY, a.device.id)
    return 0


def owner_mode(a):
    """(mode, device) of `a`'s library for stream= (_launch.TORCH or CUPY,
    or None for other arrays)."""
    lib = _library(a)
    if lib == "torch":
        return _launch.TORCH, a.device.index
    if lib == "cupy":
        return _launch.CUPY, a.device.id
    return None, None


def is_device_array(v):
    """True for objects that GPU execution takes (or rejects with a clear
    error): anything with __cuda_array_interface__ or __dlpack__ that is not
    a NumPy array."""
    if isinstance(v, (np.ndarray, np.generic)):
        return False
    if _launch.mode_of(type(v)) in (_launch.TORCH, _launch.CUPY):
        return True
    try:
        if getattr(v, "__cuda_array_interface__", None) is not None:
            return True
    except Exception:
        # It has the interface but refuses it (a tensor that requires
        # grad): device_array says why.
        return True
    return hasattr(v, "__dlpack__")


# ---- running -----------------------------------------------------------------

def run_pipeline(pipeline, names, values, like=None, stream=None,
                 out=None, workspace=None):
    """Runs a GPU-traced Pipeline. values: DeviceArray per array argument,
    0-d NumPy arrays for scalars. Returns the results as arrays of the
    inputs' kind (or `like`'s), shaped and sliced as the CPU backend's.
    stream: None (the library's current stream), a stream object or an
    integer handle (_launch.resolve_stream). out: {result index:
    DeviceArray}, caller buffers for array results (fuse.compute's d_out):
    the entry writes such a result straight into its buffer where the
    buffer has the result's dtype, at least its elements and overlaps no
    argument (Launcher._direct), and the result is then
    _launch.WRITTEN; otherwise it is a new array as without `out`. The
    Launcher is kept on the pipeline: a second run of it loads
    nothing. workspace: (storage, counts) to run the entry's capture-safe
    form instead (Launcher.call_workspace: every array result into `out`,
    counts {result index: DeviceArray} of the filter results on the
    device, storage a DeviceArray or None to ask its bytes); returns the
    bytes or None."""
    pipeline.check(values)
    launcher = getattr(pipeline, "_launcher", None)
    hit = launcher is not None
    if launcher is None:
        c = load(pipeline.ir)
        modes = [_launch.DEV if isinstance(v, DeviceArray) else _launch.SCALAR
                 for v in values]
        launcher = _launch.Launcher(pipeline, c, names, modes)
        pipeline._launcher = launcher
    devs = [v for v in values if isinstance(v, DeviceArray)]
    owner = like if like is not None else (devs[0].owner if devs else None)
    if isinstance(owner, tuple):
        owner = owner[0]
    if owner is None:
        raise TypeError("fuse GPU: no device array among the arguments")
    def by_output(given):
        mapped = {}
        for r, d in (given or {}).items():
            g = pipeline.gpu_results[r]
            if g[0] == "ir":
                mapped[g[1]] = d
        return mapped
    if workspace is not None:
        storage, counts = workspace
        h, ctx = None, None
        if stream is not None:
            h, ctx = launcher.resolve_stream(stream, owner)
        with ctx if ctx is not None else contextlib.nullcontext():
            return launcher.call_workspace(values, by_output(out),
                                           by_output(counts), storage, owner,
                                           h)
    return launcher.run(values, stream, owner=owner, hit=hit, check=False,
                        out=by_output(out) if out else None)


def gpu_arguments(names, values):
    """DeviceArray per device array, 0-d NumPy arrays for numbers; raises
    TypeError for host arrays and unsupported values before any launch."""
    from ._jit import as_input_array
    out, weaks = [], []
    for name, v in zip(names, values):
        if isinstance(v, np.ndarray):
            raise TypeError("argument %r: a NumPy array lives on the host; "
                            "a GPU pipeline takes CUDA arrays (CuPy, PyTorch)"
                            " for all its array arguments" % name)
        if is_device_array(v):
            out.append(checked_device_array(v, "argument %r" % name))
            weaks.append(False)
        else:
            a, w = as_input_array(v, name)
            out.append(a)
            weaks.append(w)
    return out, weaks


def run(jit_function, *arrays, **kwargs):
    """Runs a @fuse.jit function on GPU arrays (CuPy / PyTorch); the same
    as calling it with them. Checks every argument first (device, dtype,
    contiguity, sizes)."""
    return jit_function.run_gpu(*arrays, **kwargs)


class StandIn:
    """A host NumPy array posing as a CUDA array (it exports
    __cuda_array_interface__ with its host pointer), for compile-only mode:
    it lets code written for CuPy/PyTorch arrays run through fuse's checks,
    tracing and compiling on a machine without a GPU, so that the cache gets
    exactly the entries that code needs. Never launched."""

    __slots__ = ("a",)

    def __init__(self, a):
        a = np.asarray(a)
        self.a = a if a.flags.c_contiguous else a.copy()

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.a.shape, "typestr": self.a.dtype.str,
                "data": (self.a.ctypes.data, False), "strides": None,
                "version": 3}

    shape = property(lambda self: self.a.shape)
    dtype = property(lambda self: self.a.dtype)
    ndim = property(lambda self: self.a.ndim)

    def __len__(self):
        return len(self.a)

    def reshape(self, *shape):
        return StandIn(self.a.reshape(*shape))

    def __getitem__(self, k):
        return StandIn(self.a[k])

    def __setitem__(self, k, v):
        self.a[k] = v.a if isinstance(v, StandIn) else v

    def __fuse_empty__(self, shape, dtype):
        return StandIn(np.zeros(tuple(shape), dtype))

    def numpy(self):
        return self.a.copy()
