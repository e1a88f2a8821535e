"""A pipeline's entry in a shared library that fuse-compile --emit=shared
made, called through its packed C wrapper on torch's device buffers and
stream (the sweep's fuse side, bench/random_sweep.py): results allocated
from the manifest's size expressions (docs/aot.md), errors raised with the
runtime's message."""
import ctypes
import json
import os
import re

TORCH_DT = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
            "f64": "float64", "i1": "bool", "i8": "int8", "i16": "int16",
            "i32": "int32", "i64": "int64"}


def _div(a, b):  # C's truncating division, as fuse-run-aot evaluates it
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


SIZE_FUNCS = {"min": min, "max": max, "div": _div,
              "rem": lambda a, b: a - b * _div(a, b),
              "ceildiv": lambda a, b: -((-a) // b),
              "floordiv": lambda a, b: a // b}


def size_of(exprs, env):
    """A manifest result's `size` (docs/aot.md: integers, inK_dD, inK,
    + - * and min max div ceildiv floordiv rem) for the inputs in env."""
    dims = []
    for e in exprs:
        if not re.fullmatch(r"[\w\s+\-*(),]*", e):
            raise ValueError(f"size expression {e!r}")
        e = re.sub(r"\bin\d+(?:_d\d+)?\b", lambda m: str(env[m.group(0)]), e)
        dims.append(int(eval(e, {"__builtins__": {}}, SIZE_FUNCS)))
    return dims


def size_env(entry, shapes):
    """inK_dD / inK of the arguments: shapes[i] a tensor's shape, or an
    index scalar's value."""
    env = {}
    for i, (a, s) in enumerate(zip(entry["args"], shapes)):
        if a["kind"] == "scalar":
            env[f"in{i}"] = int(s)
        else:
            env.update({f"in{i}_d{k}": int(n) for k, n in enumerate(s)})
    return env


class FuseEntry:
    """prog.so's entry called through its packed wrapper (each C parameter
    through a pointer, as scripts/gpu/differential.py's c-abi-call does)
    on device buffers torch allocated, on torch's stream; results are
    allocated once from the manifest's sizes."""

    def __init__(self, d, targs, torch, stream, rt, device="cuda"):
        with open(os.path.join(d, "prog.json")) as f:
            entry = json.load(f)["entries"][0]
        self.rt, self.lib = rt, ctypes.CDLL(os.path.join(d, "prog.so"))
        self.fn = getattr(self.lib, entry["packed"])
        self.fn.restype = ctypes.c_int32
        self.fn.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        env = size_env(entry, [t if isinstance(t, int) else t.shape
                               for t in targs])
        self.outs = [torch.empty(size_of(r["size"], env), device=device,
                                 dtype=getattr(torch, TORCH_DT[r["dtype"]]))
                     for r in entry["results"]]
        self.counts = [ctypes.c_int64(-1) if r.get("filter") else None
                       for r in entry["results"]]
        cells = []
        for t in targs:
            if isinstance(t, int):
                cells.append(ctypes.c_int64(t))
            else:
                cells.append(ctypes.c_void_p(t.data_ptr() or None))
                cells += [ctypes.c_int64(n) for n in t.shape]
        cells += [ctypes.c_void_p(o.data_ptr() or None) for o in self.outs]
        cells += [ctypes.c_void_p(ctypes.addressof(c)) for c in self.counts
                  if c is not None]
        cells.append(ctypes.c_void_p(stream and stream.cuda_stream or None))
        self.cells = cells  # the values the pointers point at stay alive
        self.argv = (ctypes.c_void_p * len(cells))(
            *[ctypes.cast(ctypes.pointer(c), ctypes.c_void_p) for c in cells])

    def __call__(self):
        st = self.fn(self.argv)
        if st != 0:
            msg = (self.rt.fuse_last_error_message() or b"").decode()
            raise RuntimeError(f"fuse entry: "
                               f"{self.rt.fuse_status_name(st).decode()}: "
                               f"{msg}")

    def results(self):
        return [o if c is None else o[:c.value]
                for o, c in zip(self.outs, self.counts)]


def load_runtime(path):
    rt = ctypes.CDLL(os.path.abspath(path), mode=ctypes.RTLD_GLOBAL)
    rt.fuse_last_error_message.restype = ctypes.c_char_p
    rt.fuse_status_name.restype = ctypes.c_char_p
    rt.fuse_status_name.argtypes = [ctypes.c_int]
    return rt
