"""The CPU backend: textual fuse IR -> shared library -> ctypes call.

compile:  fuse-opt --fuse-to-cpu | mlir-translate --mlir-to-llvmir
          | llc -O3 -filetype=obj -relocation-model=pic ; cc -shared
call:     _mlir_ciface_<name>(results*, arg0_desc*, arg1_desc*, ...)
          with MLIR memref descriptors {allocated, aligned, offset,
          sizes[r], strides[r]}; all results come packed in one struct
          passed first. Result buffers are malloc'd by the library: they
          are copied into NumPy arrays and freed with libc free.
"""

import ctypes
import ctypes.util
import os
import platform
import subprocess
import tempfile
import threading

import numpy as np

from . import _cache, _tools

PIPELINE = "fuse-to-cpu"
_TARGET = "cpu-%s-%s-llc-O3-generic" % (platform.system(), platform.machine())

stats = {"compiles": 0, "disk_hits": 0, "memory_hits": 0}
_memory = {}
_lock = threading.RLock()


class CompileError(RuntimeError):
    """fuse's tools rejected or failed on a pipeline."""


def _run(cmd, stdin_bytes, what):
    try:
        r = subprocess.run(cmd, input=stdin_bytes, capture_output=True,
                           timeout=600)
    except OSError as e:
        raise CompileError("%s: could not run %s: %s" % (what, cmd[0], e))
    except subprocess.TimeoutExpired:
        raise CompileError("%s: %s timed out" % (what, cmd[0]))
    if r.returncode != 0:
        raise CompileError("%s failed (exit %d): %s\ncommand: %s" % (
            what, r.returncode, r.stderr.decode(errors="replace").strip(),
            " ".join(cmd)))
    return r.stdout


def _build(ir_text):
    fuse_opt = _tools.find_fuse_opt()
    translate = _tools.find_llvm_tool("mlir-translate")
    llc = _tools.find_llvm_tool("llc")
    cc = _tools.find_cc()
    llvm_dialect = _run([fuse_opt, "--" + PIPELINE, "-"], ir_text.encode(),
                        "fuse-opt --" + PIPELINE)
    llvm_ir = _run([translate, "--mlir-to-llvmir", "-"], llvm_dialect,
                   "mlir-translate")
    with tempfile.TemporaryDirectory(prefix="fuse-build-") as d:
        obj = os.path.join(d, "m.o")
        so = os.path.join(d, "m.so")
        _run([llc, "-O3", "-filetype=obj", "-relocation-model=pic", "-",
              "-o", obj], llvm_ir, "llc")
        rt = _tools.find_builtins()
        _run([cc, "-shared", obj, "-o", so, "-lm"] + ([rt] if rt else []),
             b"", "cc -shared")
        with open(so, "rb") as f:
            return f.read()


def cache_key(ir_text):
    fuse_opt = _tools.find_fuse_opt()
    return _cache.make_key(ir_text, PIPELINE, _tools.file_digest(fuse_opt),
                           _TARGET)


def load(ir_text):
    """A ctypes.CDLL for `ir_text`, from memory, disk or a fresh compile."""
    key = cache_key(ir_text)
    with _lock:
        lib = _memory.get(key)
        if lib is not None:
            stats["memory_hits"] += 1
            return lib
        path = _cache.lookup(key)
        lib = None
        if path is not None:
            try:
                lib = ctypes.CDLL(path)
                stats["disk_hits"] += 1
            except OSError:
                _cache.discard(key)
                lib = None
        if lib is None:
            data = _build(ir_text)
            stats["compiles"] += 1
            path = _cache.publish(key, data, {"module.mlir": ir_text})
            lib = ctypes.CDLL(path)
        _memory[key] = lib
        return lib


def clear_memory_cache():
    with _lock:
        _memory.clear()


# ---- memref descriptors ---------------------------------------------------

_desc_types = {}


def descriptor_type(rank):
    t = _desc_types.get(rank)
    if t is None:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank),
                       ("strides", ctypes.c_int64 * rank)]
        t = type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})
        _desc_types[rank] = t
    return t


def make_descriptor(arr):
    """Descriptor of a C-contiguous, aligned NumPy array (kept alive by the
    caller)."""
    d = descriptor_type(arr.ndim)()
    d.allocated = d.aligned = arr.ctypes.data
    d.offset = 0
    if arr.ndim:
        item = arr.itemsize
        for i, (n, s) in enumerate(zip(arr.shape, arr.strides)):
            d.sizes[i] = n
            d.strides[i] = s // item if item else 0
    return d


_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


try:
    _dladdr = _libc.dladdr
except AttributeError:  # older glibc keeps it in libdl
    _dladdr = ctypes.CDLL(ctypes.util.find_library("dl")).dladdr
_dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
_dladdr.restype = ctypes.c_int


def _is_static(ptr):
    """True for addresses inside a loaded object (constant globals)."""
    info = _DlInfo()
    return bool(_dladdr(ptr, ctypes.byref(info)))


def call(lib, name, args, result_specs):
    """Calls _mlir_ciface_<name>.

    args: C-contiguous aligned NumPy arrays. result_specs: (dtype, rank)
    per result. Returns NumPy arrays owning copies of the results.
    """
    fn = getattr(lib, "_mlir_ciface_" + name)
    descs = [make_descriptor(a) for a in args]
    rtypes = [descriptor_type(r) for _, r in result_specs]
    packed = None
    cargs = []
    if len(rtypes) == 1:
        packed = rtypes[0]()
        cargs.append(ctypes.byref(packed))
    elif rtypes:
        packed = type("Results", (ctypes.Structure,), {
            "_fields_": [("r%d" % i, t) for i, t in enumerate(rtypes)]})()
        cargs.append(ctypes.byref(packed))
    cargs += [ctypes.byref(d) for d in descs]
    fn.restype = None
    fn(*cargs)
    if not rtypes:
        return []
    raw = [packed] if len(rtypes) == 1 else [
        getattr(packed, "r%d" % i) for i in range(len(rtypes))]
    spans = []
    for a in args:
        base = a.ctypes.data
        spans.append((base, base + max(a.nbytes, 1)))
    out = []
    to_free = set()
    for d, (dtype, rank) in zip(raw, result_specs):
        dtype = np.dtype(dtype)
        shape = tuple(d.sizes[i] for i in range(rank)) if rank else ()
        strides = tuple(d.strides[i] * dtype.itemsize
                        for i in range(rank)) if rank else ()
        n = int(np.prod(shape)) if rank else 1
        if n == 0:
            res = np.empty(shape, dtype)
        else:
            addr = (d.aligned or 0) + d.offset * dtype.itemsize
            lo = sum((s_ - 1) * st for s_, st in zip(shape, strides)
                     if st < 0)
            hi = sum((s_ - 1) * st for s_, st in zip(shape, strides)
                     if st > 0) + dtype.itemsize
            buf = (ctypes.c_char * (hi - lo)).from_address(addr + lo)
            view = np.ndarray(shape, dtype, buffer=buf, offset=-lo,
                              strides=strides)
            res = view.copy()
        out.append(res)
        p = d.allocated
        if p and not any(lo_ <= p < hi_ for lo_, hi_ in spans) \
                and not _is_static(p):
            to_free.add(p)
    for p in to_free:
        _libc.free(p)
    return out
