#!/usr/bin/env python3
"""Random pipeline generator and differential tester for fuse.

Generates well-typed random fuse programs (chains of maps with random
arith/math bodies, reductions over all or some dims with built-in kinds or
custom combiners, inclusive/exclusive scans (in the wide flavor also
with combiner regions: an integer kind written as a region, a pair of
them over (x, x), or keeping the last element), filters, broadcasts of
reduction results into maps, iota, gathers with in- and out-of-range
indices, sorts of keys alone, with values or with their positions (in
the wide flavor sometimes by a comparator region), searchsorted, histograms and
segmented reductions in the wide flavor; prefixes of a rank-1 value by a
count the program sums, which may be negative or past the end, as an
extra result) over random rank-1 and rank-2
shapes (rank 3 too in the wide flavor; 0 and 1 sizes included), avoiding
undefined behaviour (integer division only unsigned and by `y | 1`,
shifts by less than the width, no float-to-int conversion; integer
add/mul wrap, which arith defines). The generator evaluates each program
itself with NumPy while it builds it, so it knows the expected results.

Each seed draws a flavor from its own random stream:
  * classic (a third of the seeds, all of them with --classic): dtypes
    f32, f64, i32, i64; exactly the programs this generator made before
    the wide flavor existed (same seed, same text);
  * wide: also f16 and bf16 (data in [-1, 1], sometimes times 4; NumPy
    float16 and ml_dtypes.bfloat16 in the reference), i8, i16, unsigned
    u8..u64 (i8..i64 tensors whose NumPy reference computes with np.uint*:
    cmpi u*, maxui/minui, divui/remui, shrui, shli, uitofp, extui,
    umin/umax reductions and scans, with values above the signed range)
    and i1 (maps yielding compares, selects on them, i1 arguments,
    reductions and scans of i1, filters of i1); arguments static, dynamic
    or mixed; a vector argument broadcast along the rows or columns of a
    matrix (of a rank-3 tensor: along the two dimensions it lacks, e.g.
    a per-column scale); the rows pattern of softmax and layernorm (a
    built-in reduction over the last dimension broadcast back along it
    into a map with its input: x - max(x, axis=-1); the GPU pipeline's
    fuse-collapse-rows turns rank 3 into a matrix's rows); iotas and
    broadcasts sized by `index` scalar arguments; map bodies that read the
    leading size of a tensor argument from above (tensor.dim in the body:
    on shards, the whole array's size). A quarter of the wide
    seeds take rank-3 data (sizes such as 3x5x7, 2x1x33, 4x3x0; in the
    mixed mode static or dynamic dimension by dimension): maps, zips,
    iotas, histograms and searchsorted needles of rank 3, reductions over
    any nonempty subset of the three dimensions (built-in kinds or a
    combiner region), broadcasts of their results back along the reduced
    dimensions, scans along any dimension; filters, sorts, gathers and
    segmented reductions (rank 1 only) take the rank-1 values among the
    results. A third of the wide seeds of rank 2 or 3 take tall data
    (600 or 1500 rows of 7 to 37 columns; 1 or 2 x 600 or 1500 x 7 or
    16), whose reductions along a leading dimension take the GPU's tile
    kernel (a block a run of rows; at least 16 x 256 elements a slice).
Half precision follows fuse's semantics: each arith op on f16 or bf16 is
rounded to the type (the backends compute in f32 and round: the same
bits), math functions are computed in f32 and rounded once, built-in add
and mul reductions and scans accumulate in f32 and round each result once
(the reference: float64, rounded once); combiner regions (which compute in
the type) are not drawn over them. f16 and bf16 convert to each other
through f32 (arith has no direct cast), 32- and 64-bit integers to bf16
through f64 (fuse's CPU backend rounds their direct conversion twice,
through f32).
Unsigned data go to fuse-run as the signed dtype of the same width (the bit
pattern: fuse-run takes bool, int8..int64, float16..float64, and bfloat16
as the '<V2' items np.save writes for ml_dtypes.bfloat16) and results
come back the same way.

A quarter of the seeds (drawn from the same separate stream) also run a
mismatched-size case: the program's arguments with one dynamic size (a
tensor dimension or an `index` scalar) changed so that an equality the
program's live ops imply (zipped operands, a broadcast vector against the
matrix, an iota's size against what it is zipped with, a static type)
breaks, or an `index` size made negative. fuse-run (fused and
--no-fusion) must then exit non-zero with `size mismatch` naming the
changed argument and one it must equal, with both sizes (or `invalid
size` for a negative one), and no stack dump, LLVM error or signal.
Equalities that hold only through a filter's kept count cannot be checked
before the call (fuse warns about them at compile time) and are not
broken there; --late-mismatch breaks only those, in every seed that has
one: the entry checks them once the filter has run, and both runs must
fail with `size mismatch: X is N but the filter keeps M elements`, X the
changed size and N its value.

For each seed:
  1. `fuse-opt` must verify the program;
  2. `fuse-run` (fusion on) and `fuse-run --no-fusion` run it on the same
     inputs (written as .npy by the generator);
  3. both must agree with each other and with the NumPy evaluation:
     integers and i1 exactly, floats exactly where the computation is
     exactly rounded in every order (+ - * / sqrt min max select casts),
     else within a tolerance scaled by the magnitudes involved
     (reassociated reductions, exp/log/tanh from different libms). A float
     is judged by the least precise float type a rounding step on its way
     used (bf16, then f16, f32, f64; float ops, reductions, conversions to
     a float; not an argument's own dtype): an f32 result widened to f64
     carries f32 rounding and gets f32's tolerance, a bf16 one widened to
     f32 bf16's;
  4. the mismatched-size case, where the seed has one, must be rejected;
  5. with --shards N, `fuse-run --shards=N` (the program rewritten by
     fuse-shard, on N shards) must match fuse-run's unsharded run and the
     reference; a program fuse-shard refuses ("cannot run sharded") is
     counted, not failed.

usage:
  gen-pipelines.py --emit SEED             print program SEED and exit
  gen-pipelines.py --seeds A:B|S,S,... [--fuse-opt P] [--fuse-run P]
                   [--workdir DIR] [--keep] [--classic] [--late-mismatch]
                   [--shards N]
Exits 1 when any seed fails; prints one line per failure and a summary
`seeds: N passed, N failed (...)`.
"""
import argparse
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
try:
    import ml_dtypes
except ImportError:
    # the comparison and rejection helpers (scripts/gpu/differential.py on
    # the GPU machine) need no bfloat16; the wide flavor's programs do
    ml_dtypes = None

FLOATS = ("f32", "f64")          # the classic flavor's float dtypes
HALFS = ("f16", "bf16")          # half precision: the wide flavor only
ALL_FLOATS = FLOATS + HALFS
INTS = ("i32", "i64")            # the classic flavor's integer dtypes
SINTS = ("i8", "i16", "i32", "i64")
UINTS = ("u8", "u16", "u32", "u64")
ALL_INTS = SINTS + UINTS
# the wide flavor's data dtypes (and i1)
WIDE = FLOATS + HALFS + SINTS + UINTS
BF16 = np.dtype(ml_dtypes.bfloat16) if ml_dtypes else None
NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
      "bf16": ml_dtypes.bfloat16 if ml_dtypes else None, "i8": np.int8,
      "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
      "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "i1": np.bool_}
# The MLIR element type: integers are signless, unsignedness is in the ops.
MLIR = {"u8": "i8", "u16": "i16", "u32": "i32", "u64": "i64"}
WIDTH = {"i1": 1, "i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32,
         "u32": 32, "i64": 64, "u64": 64, "f16": 16, "bf16": 16, "f32": 32,
         "f64": 64}
# Float types by precision, least precise first (bf16 has 8 significant
# bits, f16 11, f32 24, f64 53).
PRECISION = ("bf16", "f16", "f32", "f64")
EPS = {"bf16": np.float32(2.0**-7), "f16": np.finfo(np.float16).eps,
       "f32": np.finfo(np.float32).eps, "f64": np.finfo(np.float64).eps}
FMAX = {"bf16": np.float32(3.3895313892515355e38),
        "f16": np.finfo(np.float16).max, "f32": np.finfo(np.float32).max,
        "f64": np.finfo(np.float64).max}
# -inf as MLIR hex literals (a decimal -inf is not accepted)
NEG_INF = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000",
           "f64": "0xFFF0000000000000"}
UNS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SGN = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
SIZES = (0, 1, 1, 2, 3, 5, 8, 17, 64, 100, 257, 1000)
SIZES2 = (0, 1, 2, 3, 7, 16, 33)
SIZES3 = (0, 1, 2, 3, 4, 5, 7, 17, 33)   # rank 3: the wide flavor only
# Tall data (the wide flavor): rows and columns of rank 2, the columns of
# rank 3 the first three.
TALL_ROWS = (600, 1500)
TALL_COLS = (7, 16, 37)
# f32's tolerance scaled to the precision of the others (f16: eps 2^-10,
# bf16: eps 2^-7, both rounded once from f32 sums and libm results)
RTOL = {"bf16": 1e-1, "f16": 2e-2, "f32": 2e-4, "f64": 1e-9}
# i1 under each kind: true is 1 unsigned and -1 signed, add wraps (xor).
BOOL_KIND = {"add": "xor", "mul": "and", "and": "and", "or": "or",
             "xor": "xor", "min": "or", "max": "and", "umin": "and",
             "umax": "or"}
CRASH_MARKS = ("Stack dump", "LLVM ERROR", "Segmentation fault",
               "Assertion", "PLEASE submit a bug report", "AddressSanitizer",
               "Aborted", "core dumped")


def isfloat(dt):
    return dt in ALL_FLOATS


def isint(dt):
    return dt in ALL_INTS


def mlir(dt):
    return MLIR.get(dt, dt)


def narrowest(*precs):
    """The narrowest float precision among precs (None: no float)."""
    ps = [p for p in precs if p]
    return min(ps, key=PRECISION.index) if ps else None


def fprec(prec, dt):
    """prec after a step that rounds to dt (a float op in dt)."""
    return narrowest(prec, dt if isfloat(dt) else None)


def exact_cast(src, dst):
    """Whether every value of float type src is one of float type dst (bf16
    and f16 hold values the other does not)."""
    return src == dst or (PRECISION.index(dst) > PRECISION.index(src) and
                          (src, dst) != ("bf16", "f16"))


def f32(a, dt):
    """Values of dt as the backends compute on them: f16 and bf16 as f32
    (each op's result is then rounded back to dt, one rounding of the
    exact result since f32 has over twice their precision); others as they
    are."""
    return np.asarray(a, np.float32) if dt in HALFS else a


def as_uns(a, dt):
    """The bit pattern of integer array a (dtype dt) as unsigned."""
    return np.asarray(a, NP[dt]).view(UNS[WIDTH[dt]])


def as_sgn(a, dt):
    return np.asarray(a, NP[dt]).view(SGN[WIDTH[dt]])


def back(a, dt):
    """An array of the same width reinterpreted as dt."""
    return np.asarray(a).view(NP[dt])


def cval(c, dt):
    """The constant c as a value of dt (integers wrap to the width)."""
    if dt == "i1":
        return np.bool_(int(c) & 1)
    if isint(dt):
        return np.asarray(int(c) % (1 << WIDTH[dt]), np.uint64).astype(
            UNS[WIDTH[dt]]).view(NP[dt])[()]
    return NP[dt](c)


def sort_order(a, dt, descending):
    """The permutation fuse.sort applies to keys a of dt: stable, in CUB's
    radix order (floats by their bits made order-preserving, -0.0 equal to
    +0.0, NaN by its sign bit; i1 false first; integers by dt's sign)."""
    a = np.asarray(a)
    if isfloat(dt):
        w = WIDTH[dt]
        u = a.view(UNS[w])
        sign = UNS[w](1 << (w - 1))
        key = np.where(u & sign, ~u, u | sign)
        key = np.where((u & ~sign) == 0, sign, key)
    else:
        key = a.astype(np.uint8) if dt == "i1" else a
    if not descending:
        return np.argsort(key, kind="stable")
    return (len(key) - 1 - np.argsort(key[::-1], kind="stable"))[::-1]


def comparator_order(a, dt, descending):
    """The permutation of a sort by Gen.emit_comparator's region: stable,
    floats by (NaN last, |x|), integers by their low three bits; descending
    by the reversed comparator (NaN first), ties still in input order."""
    a = np.asarray(a)
    if isfloat(dt):
        f = a.astype(np.float64)
        mag, nan = np.abs(f), np.isnan(f)
        return np.lexsort((-mag, ~nan)) if descending else \
            np.lexsort((mag, nan))
    key = a.astype(np.int64) & 7
    return np.argsort(7 - key if descending else key, kind="stable")


def search_positions(a, v, right):
    """fuse.searchsorted's positions, by its own binary search (lo = 0,
    hi = n; mid = (lo + hi) // 2; lo = mid + 1 when sorted[mid] goes left
    of the needle, else hi = mid), so that an unsorted array gives the same
    positions as the backends; on a sorted one this is np.searchsorted.
    Floats order NaN after every number; unsigned dtypes are unsigned
    arrays here."""
    a, v = np.asarray(a), np.asarray(v)
    if a.dtype.name in ("float16", "bfloat16"):  # exactly, in NumPy's f64
        a, v = a.astype(np.float64), v.astype(np.float64)

    def less(x, y):
        if a.dtype.kind == "f":
            return (x < y) | (np.isnan(y) & ~np.isnan(x))
        return x < y
    lo = np.zeros(v.shape, np.int64)
    hi = np.full(v.shape, len(a), np.int64)
    while True:
        live = lo < hi
        if not live.any():
            return lo
        mid = (lo + hi) >> 1
        x = a[np.where(live, mid, 0)]
        go = ~less(v, x) if right else less(x, v)
        lo = np.where(live & go, mid + 1, lo)
        hi = np.where(live & ~go, mid, hi)


def file_array(v):
    """What fuse-run reads for argument v: unsigned data as the signed
    dtype of the same width (fuse-run has no unsigned dtypes); bf16 data
    np.save writes as '<V2', which fuse-run reads as bf16."""
    a = np.asarray(v.arr)
    return a.view(SGN[WIDTH[v.dt]]) if v.dt in UINTS else a


def from_file(a, dt):
    """A result as fuse-run wrote it, read back as dt."""
    if dt in UINTS and a.dtype == SGN[WIDTH[dt]]:
        return a.view(NP[dt])
    if dt == "bf16" and a.dtype.kind == "V" and a.dtype.itemsize == 2:
        return a.view(BF16)  # np.load gives bf16 as raw V2 items
    return a


class Val:
    """An SSA tensor value: its name, dtype, type-level shape (None =
    dynamic), the NumPy value, whether every element is computed exactly
    (bitwise reproducible in any evaluation order), an error scale (the
    largest magnitude that went into it, for float tolerances), the
    narrowest float precision of the steps that rounded on its way (float
    ops, reductions, conversions to a float type; not the arguments' own
    dtype: data widened as they are carry no rounding; None: no such
    step), and for
    the size checks: each dimension's size symbol ('in1 dimension 0', 'in2'
    for an index scalar, 'const 4' for a static size, 'filter 3' for a
    kept count), the size equalities its computation implies (pairs of
    symbols) and every symbol it depends on."""

    def __init__(self, name, dt, tshape, arr, exact, scale, prec=None,
                 syms=None, eqs=frozenset(), touched=frozenset()):
        self.name, self.dt, self.tshape = name, dt, tuple(tshape)
        self.arr, self.exact, self.scale = arr, exact, scale
        self.prec = prec
        self.syms = tuple(syms) if syms is not None else \
            tuple(f"anon {i}" for i in range(len(self.tshape)))
        self.eqs = frozenset(eqs)
        self.touched = frozenset(touched) | frozenset(self.syms)
        self.kind = "tensor"

    @property
    def shape(self):
        return self.arr.shape

    @property
    def ttype(self):
        return ttype(self.dt, self.tshape)


def ttype(dt, tshape):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in tshape)
    return f"tensor<{dims}{mlir(dt)}>"


def fconst(x, dt):
    if isfloat(dt):
        return f"{float(x)!r}".replace("inf", "0x7F800000")
    if dt == "i1":
        return str(int(bool(x)))
    return str(int(cval(x, dt)))


def maxabs(a):
    a = np.asarray(a)
    if a.size == 0:
        return 0.0
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all NaN: 1e300
        m = np.nanmax(np.abs(a.astype(np.float64)))
    return float(m) if np.isfinite(m) else 1e300


def derive(ins, syms, pairs=()):
    """Size bookkeeping of a value computed from `ins`: (syms, eqs,
    touched)."""
    eqs = set(pairs)
    touched = set(syms)
    for v in ins:
        eqs |= v.eqs
        touched |= v.touched
    return tuple(syms), frozenset(eqs), frozenset(touched)


def zip_syms(ins):
    """Symbols of elementwise operands zipped together: the merged
    per-dimension symbol (a static size wins) and the equalities."""
    syms, pairs = [], []
    for d in range(len(ins[0].syms)):
        ss = [v.syms[d] for v in ins]
        pairs += [(ss[0], s) for s in ss[1:] if s != ss[0]]
        consts = [s for s in ss if s.startswith("const ")]
        syms.append(consts[0] if consts else ss[0])
    return syms, pairs


def merge_tshape(ins):
    return tuple(next((v.tshape[d] for v in ins if v.tshape[d] is not None),
                      None) for d in range(len(ins[0].tshape)))


class Gen:
    def __init__(self, seed, classic=False, gpu=False, sizes=None):
        self.r = random.Random(seed)
        self.seed = seed
        # The flavor and the mismatched-size case come from a stream of
        # their own, so a classic seed's program is the one this generator
        # made before the wide flavor and the mismatched cases existed.
        self.x = random.Random(f"gen-pipelines flavor {seed}")
        # Tall shapes from a stream of their own: the program stream is
        # the same as without them.
        self.tall = random.Random(f"gen-pipelines tall {seed}")
        # Prefixes too: appended after the program's own results.
        self.pre = random.Random(f"gen-pipelines prefix {seed}")
        # Sizes read inside map bodies: a stream of their own too.
        self.cap = random.Random(f"gen-pipelines captured size {seed}")
        self.wide = self.x.random() < 2 / 3 and not classic
        if self.wide and ml_dtypes is None:
            sys.exit("gen-pipelines.py: the wide flavor needs the ml_dtypes "
                     "package (bfloat16); pip install ml_dtypes")
        self.want_mismatch = self.x.random() < 0.25
        self.gpu = gpu          # no i1 searchsorted tables
        # data inputs' sizes forced, by rank: (n, (r, c), (b, r, c))
        self.sizes = sizes
        self.lines = []     # function body
        self.args = []      # Vals of the arguments (tensors and scalars)
        self.pool = []      # Vals usable as operands
        self.all_eqs = set()  # every op's size equalities, dead ones too
        self.n = 0
        self.nfilter = 0
        self.consts = {}    # index constants

    def fresh(self, p="v"):
        self.n += 1
        return f"%{p}{self.n}"

    def emit(self, s):
        self.lines.append("    " + s)

    def kpool(self):
        """Operands for ops other than maps (every value: the GPU takes i1
        tensors at group boundaries as bytes, fuse-bool-bytes)."""
        return list(self.pool)

    def note(self, vals):
        for v in vals:
            self.all_eqs |= v.eqs
        return vals

    def index_const(self, k):
        if k not in self.consts:
            name = f"%c{k}"
            self.consts[k] = name
            self.emit(f"{name} = arith.constant {k} : index")
        return self.consts[k]

    def dim_of(self, v, d):
        """An index SSA value holding size d of v (for dynamic types)."""
        c = self.index_const(d)
        name = self.fresh("d")
        self.emit(f"{name} = tensor.dim {v.name}, {c} : {v.ttype}")
        return name

    def size_of(self, v, d):
        """(index SSA value, its size symbol) for dynamic size d of v: a
        tensor.dim of v, or in the wide flavor sometimes a new `index`
        scalar argument holding the same number."""
        if self.wide and self.r.random() < 0.4:
            s = self.make_scalar(v.shape[d])
            return s.name, s.syms[0]
        return self.dim_of(v, d), v.syms[d]

    # -- inputs -----------------------------------------------------------
    def make_scalar(self, value):
        name = f"%arg{len(self.args)}"
        s = Val(name, "i64", (), np.asarray(value, np.int64), True, 0,
                syms=())
        s.kind = "scalar"
        s.syms = (f"in{len(self.args)}",)
        s.touched = frozenset(s.syms)
        self.args.append(s)
        return s

    def make_input(self, dt, shape, static, kind="data"):
        """A new tensor argument of dt: data of `shape` (kind "data":
        self.sizes' shape of its rank where given; "shaped": as given), or
        gather indices (kind "index", shape (n, source size)); `static`:
        every dimension static or dynamic, or one flag per dimension."""
        r = self.r
        if kind == "data" and self.sizes is not None:
            forced = self.sizes[len(shape) - 1]
            shape = tuple(forced) if len(shape) > 1 else (forced,)
        rng = np.random.default_rng(r.randrange(1 << 30))
        if kind == "index":
            src_n = shape[1]
            arr = rng.integers(-3, src_n + 3, size=shape[0]).astype(NP[dt])
            if r.random() < 0.3 and shape[0] > 0:  # extreme indices
                arr[0] = np.iinfo(NP[dt]).max
                arr[-1] = np.iinfo(NP[dt]).min
            shape = shape[:1]
        elif isfloat(dt):
            arr = rng.uniform(-1, 1, size=shape)
            # bf16 through f32: ml_dtypes versions round f64 to bf16
            # directly or through f32 (the two differ at f32 values
            # halfway between bf16 ones), and the sweep draws the inputs
            # again on the GPU machine, whose ml_dtypes may be another.
            arr = (arr.astype(np.float32) if dt == "bf16" else arr).astype(
                NP[dt])
            arr[arr == 0] = NP[dt](0.5)
            if r.random() < 0.3:
                # half precision: moderate values keep chains finite
                k = 4.0 if dt in HALFS else r.choice([4.0, 100.0])
                arr = (arr * k).astype(NP[dt])
        elif dt == "i1":
            arr = rng.random(size=shape) < r.choice([0.5, 0.1, 0.9])
        elif dt in UINTS:
            w = WIDTH[dt]
            u = r.random()
            if u < 0.4:  # the full range
                arr = rng.integers(0, 2**w - 1, size=shape, dtype=NP[dt],
                                   endpoint=True)
            elif u < 0.7:  # around the signed boundary
                arr = (rng.integers(-100, 101, size=shape).astype(
                    np.uint64) + np.uint64(2**(w - 1))).astype(NP[dt])
            else:
                arr = rng.integers(0, 101, size=shape).astype(NP[dt])
            if arr.size:  # above the signed range, whatever was drawn
                arr.flat[0] = NP[dt](2**(w - 1) + 5 if w > 8 else 200)
        else:
            if r.random() < 0.2:  # large magnitudes: wrap-around paths
                info = np.iinfo(NP[dt])
                arr = rng.integers(info.min, info.max, size=shape,
                                   dtype=NP[dt], endpoint=True)
            else:
                arr = rng.integers(-100, 101, size=shape).astype(NP[dt])
        k = len(self.args)
        st = list(static) if isinstance(static, (tuple, list)) else \
            [static] * arr.ndim
        tshape = [n if s else None for n, s in zip(arr.shape, st)]
        syms = [f"const {n}" if s else f"in{k} dimension {d}"
                for d, (n, s) in enumerate(zip(arr.shape, st))]
        name = f"%arg{k}"
        v = Val(name, dt, tshape, arr, True, maxabs(arr), syms=syms)
        self.args.append(v)
        return v

    def data_dtype(self):
        r = self.r
        if not self.wide:
            return r.choice(FLOATS + INTS)
        return r.choice(WIDE + ("i1",))

    # -- scalar expression bodies ------------------------------------------
    def const_leaf(self, dt, ctx):
        r = self.r
        if isfloat(dt):
            c = r.choice([0.5, 1.5, -2.0, 3.0, 0.25])
        elif dt in UINTS:
            w = WIDTH[dt]
            c = r.choice([1, 3, 200, 2**(w - 1) + 5, 2**w - 1])
        elif dt == "i1":
            c = r.choice([0, 1])
        else:
            c = r.choice([1, 2, 3, -7, 255])
        name = self.fresh("k")
        ctx.append(f"{name} = arith.constant {fconst(c, dt)} : {mlir(dt)}")
        return name, cval(c, dt), True, None

    def expr(self, dt, leaves, depth, ctx, conds=()):
        """Returns (ssa, numpy array, exact, prec) for a random expression
        in dt over `leaves` [(ssa, arr, exact, prec)], emitting into ctx
        (list); `conds` are i1 leaves a select may test."""
        r = self.r
        if depth == 0 or r.random() < 0.25:
            if r.random() < 0.15:
                return self.const_leaf(dt, ctx)
            return r.choice(leaves)
        a = self.expr(dt, leaves, depth - 1, ctx, conds)
        b = self.expr(dt, leaves, depth - 1, ctx, conds)
        name = self.fresh("t")
        T = NP[dt]
        pr = narrowest(a[3], b[3], dt if isfloat(dt) else None)
        with np.errstate(all="ignore"):
            if isfloat(dt):
                W = (lambda x: f32(x, dt))
                op = r.choice(["addf", "subf", "mulf", "divf", "maximumf",
                               "minimumf", "negf", "absf", "sqrt", "exp",
                               "tanh", "log", "select"])
                if op in ("addf", "subf", "mulf", "maximumf", "minimumf"):
                    ctx.append(f"{name} = arith.{op} {a[0]}, {b[0]} : {dt}")
                    f = {"addf": np.add, "subf": np.subtract,
                         "mulf": np.multiply, "maximumf": np.maximum,
                         "minimumf": np.minimum}[op]
                    y = f(W(a[1]), W(b[1]))
                    return name, T(y) if np.ndim(y) == 0 else y.astype(T), \
                        a[2] and b[2], pr
                if op == "divf":  # a / (|b| + 1): never a division by 0
                    ab, one, den = self.fresh("t"), self.fresh("k"), \
                        self.fresh("t")
                    ctx.append(f"{ab} = math.absf {b[0]} : {dt}")
                    ctx.append(f"{one} = arith.constant 1.0 : {dt}")
                    ctx.append(f"{den} = arith.addf {ab}, {one} : {dt}")
                    ctx.append(f"{name} = arith.divf {a[0]}, {den} : {dt}")
                    d = (np.abs(W(b[1])) + W(T(1))).astype(T)
                    return name, (W(a[1]) / W(d)).astype(T), a[2] and b[2], \
                        pr
                if op in ("negf", "absf"):
                    dialect = "arith" if op == "negf" else "math"
                    ctx.append(f"{name} = {dialect}.{op} {a[0]} : {dt}")
                    f = np.negative if op == "negf" else np.abs
                    return name, f(W(a[1])).astype(T), a[2], \
                        narrowest(a[3], dt)
                if op in ("sqrt", "log"):  # of |a| (+1 for log)
                    ab = self.fresh("t")
                    ctx.append(f"{ab} = math.absf {a[0]} : {dt}")
                    arg = ab
                    x = np.abs(W(a[1])).astype(T)
                    if op == "log":
                        one, s = self.fresh("k"), self.fresh("t")
                        ctx.append(f"{one} = arith.constant 1.0 : {dt}")
                        ctx.append(f"{s} = arith.addf {ab}, {one} : {dt}")
                        arg, x = s, (W(x) + W(T(1))).astype(T)
                    ctx.append(f"{name} = math.{op} {arg} : {dt}")
                    f = np.sqrt if op == "sqrt" else np.log
                    return name, f(W(x)).astype(T), a[2] and op == "sqrt", \
                        narrowest(a[3], dt)
                if op in ("exp", "tanh"):  # exp of tanh: bounded
                    t = self.fresh("t")
                    ctx.append(f"{t} = math.tanh {a[0]} : {dt}")
                    x = np.tanh(W(a[1])).astype(T)
                    if op == "exp":
                        ctx.append(f"{name} = math.exp {t} : {dt}")
                        return name, np.exp(W(x)).astype(T), False, \
                            narrowest(a[3], dt)
                    ctx.append(f"{name} = arith.addf {t}, {t} : {dt}")
                    return name, (W(x) + W(x)).astype(T), False, \
                        narrowest(a[3], dt)
                if conds and r.random() < 0.5:  # select on an i1 operand
                    p = r.choice(conds)
                    ctx.append(f"{name} = arith.select {p[0]}, {a[0]}, "
                               f"{b[0]} : {dt}")
                    return name, np.where(p[1], W(a[1]), W(b[1])).astype(T), \
                        a[2] and b[2], pr
                # select on a comparison of exact values only
                if not (a[2] and b[2]):
                    ctx.append(f"{name} = arith.addf {a[0]}, {b[0]} : {dt}")
                    return name, (W(a[1]) + W(b[1])).astype(T), False, pr
                p = self.fresh("p")
                pred = r.choice(["olt", "ogt", "oge"])
                ctx.append(f"{p} = arith.cmpf {pred}, {a[0]}, {b[0]} : {dt}")
                ctx.append(f"{name} = arith.select {p}, {a[0]}, {b[0]} : {dt}")
                f = {"olt": np.less, "ogt": np.greater,
                     "oge": np.greater_equal}[pred]
                fa, fb = W(a[1]), W(b[1])
                return name, np.where(f(fa, fb), fa, fb).astype(T), True, pr
            if dt == "i1":
                return self.expr_bool(name, a, b, ctx, conds)
            if self.wide:
                return self.expr_int(dt, name, a, b, ctx, conds)
            op = r.choice(["addi", "subi", "muli", "andi", "ori", "xori",
                           "maxsi", "minsi", "shrsi", "select"])
            if op == "shrsi":
                k = r.randint(1, 5)
                c = self.fresh("k")
                ctx.append(f"{c} = arith.constant {k} : {dt}")
                ctx.append(f"{name} = arith.shrsi {a[0]}, {c} : {dt}")
                return name, np.right_shift(a[1], T(k)).astype(T), True, None
            if op == "select":
                p = self.fresh("p")
                pred = r.choice(["slt", "sgt", "eq", "ne"])
                ctx.append(f"{p} = arith.cmpi {pred}, {a[0]}, {b[0]} : {dt}")
                ctx.append(f"{name} = arith.select {p}, {a[0]}, {b[0]} : {dt}")
                f = {"slt": np.less, "sgt": np.greater, "eq": np.equal,
                     "ne": np.not_equal}[pred]
                return name, np.where(f(a[1], b[1]), a[1], b[1]).astype(T), \
                    True, None
            f = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
                 "andi": np.bitwise_and, "ori": np.bitwise_or,
                 "xori": np.bitwise_xor, "maxsi": np.maximum,
                 "minsi": np.minimum}[op]
            ctx.append(f"{name} = arith.{op} {a[0]}, {b[0]} : {dt}")
            return name, np.asarray(f(a[1], b[1])).astype(T), True, None

    def expr_int(self, dt, name, a, b, ctx, conds):
        """A wide-flavor integer op of a and b (signless: signed and
        unsigned ops on any integer dtype, the reference working on the
        bit pattern viewed as signed or unsigned as the op does)."""
        r = self.r
        T, w, m = NP[dt], WIDTH[dt], mlir(dt)
        common = ["addi", "subi", "muli", "andi", "ori", "xori", "select",
                  "select", "shrui", "shrsi", "shli", "divui", "remui"]
        if dt in UINTS:
            ops = common + ["maxui", "minui", "maxui", "minui", "shrui",
                            "divui", "remui", "maxsi", "minsi"]
        else:
            ops = common + ["maxsi", "minsi", "maxsi", "minsi", "maxui",
                            "minui", "shrsi"]
        op = r.choice(ops)
        ua, ub = as_uns(a[1], dt), as_uns(b[1], dt)
        if op in ("shrui", "shrsi", "shli"):
            if r.random() < 0.5:  # a constant amount below the width
                k = r.choice(sorted({1, 2, w // 2, w - 1}))
                c = self.fresh("k")
                ctx.append(f"{c} = arith.constant {k} : {m}")
                amt = np.asarray(k, UNS[w])
            else:  # b's low bits: below the width whatever b is
                c, mk = self.fresh("t"), self.fresh("k")
                ctx.append(f"{mk} = arith.constant {w - 1} : {m}")
                ctx.append(f"{c} = arith.andi {b[0]}, {mk} : {m}")
                amt = (ub & UNS[w](w - 1)).astype(UNS[w])
            ctx.append(f"{name} = arith.{op} {a[0]}, {c} : {m}")
            if op == "shrsi":
                res = np.right_shift(as_sgn(a[1], dt), amt.astype(SGN[w]))
            elif op == "shrui":
                res = np.right_shift(ua, amt)
            else:
                res = np.left_shift(ua, amt)
            return name, back(np.asarray(res), dt), True, None
        if op in ("divui", "remui"):  # by b | 1: never by zero
            d, one = self.fresh("t"), self.fresh("k")
            ctx.append(f"{one} = arith.constant 1 : {m}")
            ctx.append(f"{d} = arith.ori {b[0]}, {one} : {m}")
            ctx.append(f"{name} = arith.{op} {a[0]}, {d} : {m}")
            den = ub | UNS[w](1)
            res = ua // den if op == "divui" else ua % den
            return name, back(np.asarray(res, UNS[w]), dt), True, None
        if op == "select":
            if conds and r.random() < 0.4:
                p = r.choice(conds)
                ctx.append(f"{name} = arith.select {p[0]}, {a[0]}, {b[0]} "
                           f": {m}")
                return name, np.asarray(np.where(p[1], a[1], b[1]), T), \
                    True, None
            p = self.fresh("p")
            pred = r.choice(["slt", "sle", "sgt", "sge", "ult", "ule", "ugt",
                             "uge", "eq", "ne"])
            ctx.append(f"{p} = arith.cmpi {pred}, {a[0]}, {b[0]} : {m}")
            ctx.append(f"{name} = arith.select {p}, {a[0]}, {b[0]} : {m}")
            mask = cmp_ref(pred, a[1], b[1], dt)
            return name, np.asarray(np.where(mask, a[1], b[1]), T), True, \
                None
        ctx.append(f"{name} = arith.{op} {a[0]}, {b[0]} : {m}")
        return name, int_binop(op, a[1], b[1], dt), True, None

    def expr_bool(self, name, a, b, ctx, conds):
        r = self.r
        op = r.choice(["andi", "ori", "xori", "select"])
        if op == "select":
            p = r.choice(conds) if conds else a
            ctx.append(f"{name} = arith.select {p[0]}, {a[0]}, {b[0]} : i1")
            return name, np.asarray(np.where(p[1], a[1], b[1]), np.bool_), \
                True, None
        ctx.append(f"{name} = arith.{op} {a[0]}, {b[0]} : i1")
        return name, int_binop(op, a[1], b[1], "i1"), True, None

    def cmp_leaf(self, cleaves, ctx):
        """An i1 leaf: a comparison of two exact leaves of one dtype (or
        of one and a constant); cleaves maps dtype -> leaves."""
        r = self.r
        dt = r.choice(sorted(cleaves))
        a = r.choice(cleaves[dt])
        others = [x for x in cleaves[dt] if x[0] != a[0]]
        b = r.choice(others) if others and r.random() < 0.6 else \
            self.const_leaf(dt, ctx)
        p = self.fresh("p")
        if isfloat(dt):
            pred = r.choice(["olt", "ole", "ogt", "oge", "oeq", "one"])
            ctx.append(f"{p} = arith.cmpf {pred}, {a[0]}, {b[0]} : {dt}")
        else:
            pred = r.choice(["slt", "sle", "sgt", "sge", "ult", "ule", "ugt",
                             "uge", "eq", "ne"])
            ctx.append(f"{p} = arith.cmpi {pred}, {a[0]}, {b[0]} : "
                       f"{mlir(dt)}")
        return p, cmp_ref(pred, a[1], b[1], dt), True, None

    def bool_expr(self, bleaves, cleaves, depth, ctx):
        """An i1 expression over i1 leaves and comparisons."""
        r = self.r
        if depth == 0 or r.random() < 0.3:
            if bleaves and (not cleaves or r.random() < 0.4):
                return r.choice(bleaves)
            if cleaves:
                return self.cmp_leaf(cleaves, ctx)
            return self.const_leaf("i1", ctx)
        a = self.bool_expr(bleaves, cleaves, depth - 1, ctx)
        b = self.bool_expr(bleaves, cleaves, depth - 1, ctx)
        name = self.fresh("t")
        if r.random() < 0.25:
            c = self.bool_expr(bleaves, cleaves, depth - 1, ctx)
            return self.expr_bool(name, a, b, ctx, [c])
        return self.expr_bool(name, a, b, ctx, [])

    def convert(self, ssa, arr, src, dst, ctx):
        """Converts a scalar from src to dst dtype (exactly as NumPy's
        astype does for these pairs: every conversion to a float type is
        rounded once to nearest even); no float->int conversions. Integers
        of one width are one MLIR type: nothing to emit. f16 and bf16
        convert to each other through f32 (arith has no cast between types
        of one width)."""
        if src == dst or (not isfloat(src) and not isfloat(dst) and
                          mlir(src) == mlir(dst)):
            return ssa, np.asarray(arr).astype(NP[dst])
        name = self.fresh("t")
        ms, md = mlir(src), mlir(dst)
        with np.errstate(over="ignore"):  # f16 overflows to inf, as in MLIR
            ref = np.asarray(arr).astype(NP[dst])
        if not isfloat(src) and isfloat(dst):
            op = "uitofp" if src in UINTS or src == "i1" else "sitofp"
            if dst == "bf16" and WIDTH[src] == 64:
                # through f64: the reference has no exact int64 -> bf16 to
                # hold a direct conversion to (32-bit integers go direct,
                # their reference exact through f64)
                mid = self.fresh("t")
                ctx.append(f"{mid} = arith.{op} {ssa} : {ms} to f64")
                ctx.append(f"{name} = arith.truncf {mid} : f64 to {md}")
                ref = np.asarray(arr).astype(np.float64).astype(NP[dst])
            else:
                ctx.append(f"{name} = arith.{op} {ssa} : {ms} to {md}")
                if dst == "bf16":
                    ref = np.asarray(arr).astype(np.float64).astype(NP[dst])
        elif {src, dst} == set(HALFS):
            mid = self.fresh("t")
            ctx.append(f"{mid} = arith.extf {ssa} : {ms} to f32")
            ctx.append(f"{name} = arith.truncf {mid} : f32 to {md}")
            ref = np.asarray(arr).astype(np.float32).astype(NP[dst])
        elif isfloat(src) and isfloat(dst):
            op = "extf" if WIDTH[dst] > WIDTH[src] else "truncf"
            ctx.append(f"{name} = arith.{op} {ssa} : {ms} to {md}")
        elif WIDTH[dst] > WIDTH[src]:
            op = "extui" if src in UINTS else "extsi"
            if src == "i1":  # extsi makes true -1, extui 1
                op = "extsi" if self.r.random() < 0.3 else "extui"
                ref = np.where(np.asarray(arr), cval(-1 if op == "extsi"
                                                     else 1, dst),
                               cval(0, dst)).astype(NP[dst])
            ctx.append(f"{name} = arith.{op} {ssa} : {ms} to {md}")
        else:
            ctx.append(f"{name} = arith.trunci {ssa} : {ms} to {md}")
        return name, ref

    # -- ops ----------------------------------------------------------------
    def same_shape(self, v):
        if not self.wide:
            return [w for w in self.pool if w.tshape == v.tshape and
                    w.shape == v.shape]
        # static and dynamic sizes mix: an operand's static size types
        # the result
        return [w for w in self.pool if w.shape == v.shape and all(
            a is None or b is None or a == b
            for a, b in zip(w.tshape, v.tshape))]

    def gen_map(self, ins=None):
        r = self.r
        if ins is None:
            base = r.choice(self.pool)
            cands = self.same_shape(base)
            ins = [base] + [r.choice(cands) for _ in range(r.randint(0, 2))]
        base = ins[0]
        nres = 2 if r.random() < 0.2 else 1
        blk = [self.fresh("a") for _ in ins]
        ctx = []
        res_dts, res_vals = [], []
        for _ in range(nres):
            if not self.wide:
                dt = r.choice([base.dt] * 3 + list(FLOATS + INTS))
                if dt in INTS and base.dt in FLOATS:
                    dt = base.dt  # no float -> int conversion
            else:
                dt = r.choice([base.dt] * 3 + list(WIDE) + ["i1"] * 2)
                if isint(dt) and all(isfloat(v.dt) for v in ins):
                    dt = base.dt  # no float -> int conversion
            if dt == "i1":
                bleaves = [(b, v.arr, True, None) for b, v in zip(blk, ins)
                           if v.dt == "i1"]
                cleaves = {}
                for b, v in zip(blk, ins):
                    if v.dt != "i1" and v.exact:
                        cleaves.setdefault(v.dt, []).append(
                            (b, v.arr, True, v.prec))
                if bleaves or cleaves:
                    name, arr, exact, pr = self.bool_expr(
                        bleaves, cleaves, r.randint(1, 3), ctx)
                    arr = np.broadcast_to(np.asarray(arr, np.bool_),
                                          base.shape).copy()
                    res_dts.append(dt)
                    res_vals.append((name, arr, exact, None))
                    continue
                dt = base.dt
            leaves, conds = [], []
            for b, v in zip(blk, ins):
                if v.dt == "i1":
                    conds.append((b, v.arr, True, None))
                if isfloat(v.dt) and not isfloat(dt):
                    continue
                s, a = self.convert(b, v.arr, v.dt, dt, ctx)
                rounds = isfloat(dt) and not (isfloat(v.dt) and
                                              exact_cast(v.dt, dt))
                leaves.append((s, a, v.exact, narrowest(
                    v.prec, dt if rounds else None)))
            if not leaves:
                dt = ins[0].dt
                leaves = [(blk[0], ins[0].arr, ins[0].exact, ins[0].prec)]
            leaves += self.captured_size(dt, ctx)
            name, arr, exact, pr = self.expr(dt, leaves, r.randint(1, 3),
                                             ctx, conds if self.wide else ())
            arr = np.broadcast_to(np.asarray(arr, dtype=NP[dt]),
                                  base.shape).copy()
            res_dts.append(dt)
            res_vals.append((name, arr, exact, pr))
        names = [self.fresh() for _ in range(nres)]
        tshape = merge_tshape(ins) if self.wide else base.tshape
        in_types = ", ".join(v.ttype for v in ins)
        out_types = ", ".join(ttype(dt, tshape) for dt in res_dts)
        self.emit(f"{', '.join(names)} = fuse.map "
                  f"{', '.join(v.name for v in ins)} : {in_types} -> "
                  f"{out_types} {{")
        self.emit("^bb0(" + ", ".join(f"{b}: {mlir(v.dt)}" for b, v in
                                      zip(blk, ins)) + "):")
        for line in ctx:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {', '.join(x[0] for x in res_vals)} : "
                  f"{', '.join(mlir(dt) for dt in res_dts)}")
        self.emit("}")
        scale = max(v.scale for v in ins)
        zs, pairs = zip_syms(ins)
        syms, eqs, touched = derive(ins, zs, pairs)
        out = []
        for nm, dt, (_, arr, exact, pr) in zip(names, res_dts, res_vals):
            out.append(Val(nm, dt, tshape, arr, exact,
                           max(scale, maxabs(arr)) * (1 if exact else 4),
                           prec=pr, syms=syms, eqs=eqs, touched=touched))
        return self.note(out)

    def captured_size(self, dt, ctx):
        """Sometimes (wide flavor) a leaf that reads the leading size of a
        tensor argument inside the body (tensor.dim of a value from above:
        on shards, the whole array's size), converted to dt."""
        args = [v for v in self.args if v.kind == "tensor" and
                v.arr.ndim >= 1 and v in self.pool]
        if not self.wide or not args or self.cap.random() >= 0.15:
            return []
        v = self.cap.choice(args)
        c, n, ni = self.fresh("c"), self.fresh("n"), self.fresh("n")
        ctx.append(f"{c} = arith.constant 0 : index")
        ctx.append(f"{n} = tensor.dim {v.name}, {c} : {v.ttype}")
        ctx.append(f"{ni} = arith.index_cast {n} : index to i64")
        s, a = self.convert(ni, np.int64(v.arr.shape[0]), "i64", dt, ctx)
        return [(s, a, True, dt if isfloat(dt) else None)]

    def kind_op(self, kind, dt):
        """(ufunc, view in, view back) computing kind on dt's values."""
        if dt == "i1":
            f = {"and": np.logical_and, "or": np.logical_or,
                 "xor": np.logical_xor}[BOOL_KIND[kind]]
            return f, (lambda a: np.asarray(a, np.bool_)), \
                (lambda a: np.asarray(a, np.bool_))
        f = {"add": np.add, "mul": np.multiply, "min": np.minimum,
             "max": np.maximum, "umin": np.minimum, "umax": np.maximum,
             "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}[kind]
        if kind in ("umin", "umax"):
            return f, (lambda a: as_uns(a, dt)), (lambda a: back(a, dt))
        if kind in ("min", "max") and isint(dt):
            return f, (lambda a: as_sgn(a, dt)), (lambda a: back(a, dt))
        T = NP[dt]
        if dt in HALFS:
            # add and mul accumulate in f32 and round each result once
            # (min and max are exact anyway): here in f64, rounded once
            return f, (lambda a: np.asarray(a).astype(np.float64)), \
                (lambda a: np.asarray(a).astype(T))
        return f, (lambda a: np.asarray(a).astype(T)), \
            (lambda a: np.asarray(a).astype(T))

    def reduce_ref(self, kind, x, axes, init, dt):
        f, vin, vout = self.kind_op(kind, dt)
        with np.errstate(all="ignore"):
            xi = vin(x)
            return vout(np.asarray(f.reduce(
                xi, axis=axes, dtype=xi.dtype,
                initial=vin(cval(init, dt))[()])))

    def identity(self, kind, dt):
        if isfloat(dt):
            return {"add": 0.0, "mul": 1.0, "min": np.inf,
                    "max": -np.inf}[kind]
        w = WIDTH[dt]
        return {"add": 0, "mul": 1, "min": 2**(w - 1) - 1,
                "max": -2**(w - 1), "umin": 2**w - 1, "umax": 0,
                "and": -1, "or": 0, "xor": 0}[kind]

    def scalar_init(self, dt):
        r = self.r
        if isfloat(dt):
            c = r.choice([0.5, -1.0, 2.0, 0.0])
        elif dt in UINTS:
            w = WIDTH[dt]
            c = r.choice([0, 1, 42, 2**(w - 1) + 5, 2**w - 3])
        elif dt == "i1":
            c = r.choice([0, 1])
        else:
            c = r.choice([0, 1, -5, 42])
        name = self.fresh("i")
        self.emit(f"{name} = arith.constant {fconst(c, dt)} : {mlir(dt)}")
        return name, c

    def kinds_for(self, dt):
        if not self.wide or isfloat(dt):
            return ["add", "mul", "min", "max"] + (
                ["and", "or", "xor"] if isint(dt) else [])
        if dt in UINTS:
            return ["add", "mul", "umin", "umax", "umin", "umax", "and",
                    "or", "xor", "min", "max"]
        if dt == "i1":
            return list(BOOL_KIND)
        return ["add", "mul", "min", "max", "and", "or", "xor", "umin",
                "umax"]

    def gen_reduce(self):
        """fuse.reduce of a pool value over all its dimensions or a random
        nonempty subset of them."""
        r = self.r
        x = r.choice(self.kpool())
        rank = x.arr.ndim
        if rank == 0:
            return []
        if r.random() < 0.4 or rank == 1:
            dims = None
        else:
            dims = sorted(r.sample(range(rank), r.randint(1, rank)))
        return self.reduce_over(x, dims)

    def reduce_over(self, x, dims, regions=True):
        """fuse.reduce of x over `dims` (None: all, written without
        `dims`): an argmax-style tuple (rank 1), a sum through a combiner
        region (unless not `regions`), or a built-in kind."""
        r = self.r
        rank = x.arr.ndim
        axes = tuple(range(rank)) if dims is None else tuple(dims)
        kept = [d for d in range(rank) if d not in axes]
        rts = [x.tshape[d] for d in kept]
        dims_txt = f" dims [{', '.join(map(str, dims))}]" if dims else ""
        count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        syms, eqs, touched = derive([x], [x.syms[d] for d in kept])
        name = self.fresh()
        # custom combiner: an argmax-style tuple over x and an iota (in
        # the wide flavor not over NaN: a NaN the tree order combines
        # first holds the accumulator, so the result depends on the order)
        if r.random() < 0.25 and x.exact and rank == 1 and not (
                self.wide and isfloat(x.dt) and
                np.isnan(f32(x.arr, x.dt)).any()):
            return self.note(self.gen_argmax(x))
        if regions and r.random() < 0.2 and x.dt not in HALFS:
            # sum via a combiner region (a user-written add; not over f16
            # or bf16, where a region computes in the type, each step
            # rounded, in an order that differs between backends)
            kind, c = "add", self.emit_sum_region(name, x, dims_txt, rts)
            exact = not isfloat(x.dt)
        else:
            kind, c = self.emit_reduce_kind(name, x, axes, dims_txt, rts)
            exact = x.exact and (not isfloat(x.dt) or
                                 kind in ("min", "max"))
        arr = self.reduce_ref(kind, x.arr, axes, c, x.dt)
        scale = max(x.scale, maxabs(arr))
        if kind == "add":
            scale = scale * max(count, 1) + abs(float(c))
        return self.note([Val(name, x.dt, rts, arr, exact, scale,
                              prec=fprec(x.prec, x.dt), syms=syms, eqs=eqs,
                              touched=touched)])

    def emit_sum_region(self, name, x, dims_txt, rts):
        """`name` = the sum of x through a combiner region from a random
        init; returns the init's value."""
        m = mlir(x.dt)
        init, c = self.scalar_init(x.dt)
        op = "addf" if isfloat(x.dt) else "addi"
        self.emit(f"{name} = fuse.reduce {x.name} init({init} : "
                  f"{m}){dims_txt} : {x.ttype} -> {ttype(x.dt, rts)} {{")
        acc, e, sm = self.fresh("b"), self.fresh("b"), self.fresh("t")
        self.emit(f"^bb0({acc}: {m}, {e}: {m}):")
        self.emit(f"  {sm} = arith.{op} {acc}, {e} : {m}")
        self.emit(f"  fuse.yield {sm} : {m}")
        self.emit("}")
        return c

    def emit_reduce_kind(self, name, x, axes, dims_txt, rts):
        """`name` = x reduced over axes with a random built-in kind, with
        or without an init; returns (kind, the init's value)."""
        r = self.r
        kind = r.choice(self.kinds_for(x.dt))
        if kind == "mul" and isfloat(x.dt) and x.arr.size:
            # A float product that overflows makes the result depend on
            # the association (init 0 * a finite prefix is 0; times an
            # overflowed partial product it is NaN): take max instead (no
            # extra draw, so the seed's later choices stay the same).
            with np.errstate(all="ignore"):
                logs = np.log10(np.maximum(np.abs(x.arr.astype(np.float64)),
                                           1e-300))
            part = np.sum(np.maximum(logs, 0), axis=axes)
            if np.max(part) > 0.9 * np.log10(FMAX[x.dt]):
                kind = "max"
        if r.random() < 0.4:
            init, c = self.scalar_init(x.dt)
            init_txt = f" init({init} : {mlir(x.dt)})"
        else:
            init_txt, c = "", self.identity(kind, x.dt)
        self.emit(f"{name} = fuse.reduce {kind} {x.name}{init_txt}{dims_txt} "
                  f": {x.ttype} -> {ttype(x.dt, rts)}")
        return kind, c

    def gen_argmax(self, x):
        """(max value, first index of it) with a custom tuple combiner;
        exact inputs only (ties are decided by exact comparisons)."""
        n = x.shape[0]
        idx = self.fresh()
        sizes = f"{self.dim_of(x, 0)} " if x.tshape[0] is None else ""
        it = ttype("i64", x.tshape)
        self.emit(f"{idx} = fuse.iota {sizes}: {it}".replace("  :", " :"))
        ninf, c0 = self.fresh("i"), self.fresh("i")
        m = mlir(x.dt)
        lo = NEG_INF.get(x.dt)
        if x.dt in UINTS or x.dt == "i1":
            lo = "0"
        elif isint(x.dt):
            lo = str(np.iinfo(NP[x.dt]).min)
        self.emit(f"{ninf} = arith.constant {lo} : {m}")
        self.emit(f"{c0} = arith.constant -1 : i64")
        v, i = self.fresh(), self.fresh()
        cmp = "arith.cmpf ogt" if isfloat(x.dt) else (
            "arith.cmpi ugt" if x.dt in UINTS or x.dt == "i1" else
            "arith.cmpi sgt")
        self.emit(f"{v}, {i} = fuse.reduce {x.name}, {idx} init({ninf}, {c0} "
                  f": {m}, i64) : {x.ttype}, {it} -> tensor<{m}>, "
                  f"tensor<i64> {{")
        av, ai, bv, bi, gt, v2, i2 = (self.fresh(p) for p in
                                      ("b", "b", "b", "b", "p", "t", "t"))
        self.emit(f"^bb0({av}: {m}, {ai}: i64, {bv}: {m}, {bi}: i64):")
        self.emit(f"  {gt} = {cmp}, {bv}, {av} : {m}")
        self.emit(f"  {v2} = arith.select {gt}, {bv}, {av} : {m}")
        self.emit(f"  {i2} = arith.select {gt}, {bi}, {ai} : i64")
        self.emit(f"  fuse.yield {v2}, {i2} : {m}, i64")
        self.emit("}")
        if n == 0:
            mv = NP[x.dt](-np.inf) if isfloat(x.dt) else cval(lo, x.dt)
            mi = -1
        elif isfloat(x.dt):
            # the -inf init stays unless an element is greater (ogt):
            # -inf never is, nor NaN in order from the init (gen_reduce
            # draws no NaN input in the wide flavor)
            xv = f32(x.arr, x.dt)
            xv = np.where(np.isnan(xv), -np.inf, xv)
            k = int(np.argmax(xv))
            mv, mi = (x.arr[k], k) if xv[k] > -np.inf else \
                (NP[x.dt](-np.inf), -1)
        else:
            k = int(np.argmax(as_uns(x.arr, x.dt) if x.dt in UINTS
                              else x.arr))
            mv, mi = x.arr[k], k
            if mv == cval(lo, x.dt):
                mi = -1  # no element is greater than the init
        syms, eqs, touched = derive([x], [])
        return [Val(v, x.dt, (), np.asarray(mv, NP[x.dt]), True,
                    maxabs(x.arr), prec=x.prec, syms=syms, eqs=eqs,
                    touched=touched),
                Val(i, "i64", (), np.asarray(mi, np.int64), True, 0,
                    syms=syms, eqs=eqs, touched=touched)]

    def gen_scan(self):
        r = self.r
        x = r.choice([v for v in self.kpool() if v.arr.ndim >= 1] or [None])
        if x is None:
            return []
        rank = x.arr.ndim
        dim = r.randrange(rank)
        dim_txt = f" dim {dim}" if (dim != rank - 1 or r.random() < 0.3) \
            else ""
        if not self.wide or isfloat(x.dt):
            kinds = ["add", "min", "max"] + (["mul", "xor"] if isint(x.dt)
                                             else [])
        else:
            kinds = self.kinds_for(x.dt)
        kind = r.choice(kinds)
        excl = r.random() < 0.5
        if r.random() < 0.4:
            init, c = self.scalar_init(x.dt)
            init_txt = f" init({init} : {mlir(x.dt)})"
        else:
            init_txt, c = "", self.identity(kind, x.dt)
        # Wide flavor, integers: sometimes the kind written as a combiner
        # region (the GPU's flagged scan), or a region keeping the last
        # element (any reordering shows).
        region = self.wide and isint(x.dt) and x.dt != "i1" and \
            r.random() < 0.25
        if region:
            if r.random() < 0.3:
                kind = "last"
            if not init_txt:
                init, c = self.scalar_init(x.dt)
                init_txt = f" init({init} : {mlir(x.dt)})"
        name = self.fresh()
        head = "exclusive" if excl else "inclusive"
        if region and kind != "last" and r.random() < 0.3:
            return self.gen_pair_scan(name, head, kind, x, dim, excl,
                                      (init, c), dim_txt)
        if not region:
            self.emit(f"{name} = fuse.scan {head} {kind} {x.name}{init_txt}"
                      f"{dim_txt} : {x.ttype} -> {x.ttype}")
        else:
            self.emit_scan_region(name, head, kind, x, init_txt, dim_txt)
        if kind == "last":
            arr = self.last_scan_ref(x, dim, excl, c)
            syms, eqs, touched = derive([x], x.syms)
            return self.note([Val(name, x.dt, x.tshape, arr, x.exact,
                                  max(x.scale, maxabs(arr)),
                                  prec=fprec(x.prec, x.dt), syms=syms,
                                  eqs=eqs, touched=touched)])
        return self.note([self.scan_val(name, kind, x, dim, excl, c)])

    def scan_val(self, name, kind, x, dim, excl, c):
        """The Val of the scan `name` of x with a built-in kind (or that
        kind written as a region) along dim from init c, computed with
        NumPy."""
        f, vin, vout = self.kind_op(kind, x.dt)
        with np.errstate(all="ignore"):
            xi = vin(x.arr)
            shp = list(x.shape)
            shp[dim] = 1
            initarr = np.full(shp, vin(cval(c, x.dt))[()], dtype=xi.dtype)
            ext = np.concatenate([initarr, xi], axis=dim)
            acc = f.accumulate(ext, axis=dim, dtype=xi.dtype)
            n = x.shape[dim]
            sl = [slice(None)] * x.arr.ndim
            sl[dim] = slice(0, n) if excl else slice(1, n + 1)
            arr = vout(np.ascontiguousarray(acc[tuple(sl)]))
        exact = x.exact and (not isfloat(x.dt) or kind in ("min", "max"))
        scale = max(x.scale, maxabs(arr))
        if kind == "add":
            scale = scale * max(x.shape[dim], 1) + abs(float(c))
        syms, eqs, touched = derive([x], x.syms)
        return Val(name, x.dt, x.tshape, arr, exact, scale,
                   prec=fprec(x.prec, x.dt), syms=syms, eqs=eqs,
                   touched=touched)

    def gen_pair_scan(self, name, head, kind, x, dim, excl, first, dim_txt):
        """A tuple scan of (x, x) with a two-value combiner region: kind on
        the first value, another integer kind on the second, each from
        its own init (the GPU's flagged scan carries both)."""
        r = self.r
        kind2 = r.choice([k for k in self.kinds_for(x.dt)
                          if k in self.REGION_OPS])
        (i1, c1), (i2, c2) = first, self.scalar_init(x.dt)
        name2 = self.fresh()
        m = mlir(x.dt)
        self.emit(f"{name}, {name2} = fuse.scan {head} {x.name}, {x.name} "
                  f"init({i1}, {i2} : {m}, {m}){dim_txt} : {x.ttype}, "
                  f"{x.ttype} -> {x.ttype}, {x.ttype} {{")
        a0, a1, e0, e1 = (self.fresh("b") for _ in range(4))
        t0, t1 = self.fresh("t"), self.fresh("t")
        self.emit(f"^bb0({a0}: {m}, {a1}: {m}, {e0}: {m}, {e1}: {m}):")
        self.emit(f"  {t0} = arith.{self.REGION_OPS[kind]} {a0}, {e0} : {m}")
        self.emit(f"  {t1} = arith.{self.REGION_OPS[kind2]} {a1}, {e1} : {m}")
        self.emit(f"  fuse.yield {t0}, {t1} : {m}, {m}")
        self.emit("}")
        return self.note([self.scan_val(name, kind, x, dim, excl, c1),
                          self.scan_val(name2, kind2, x, dim, excl, c2)])

    REGION_OPS = {"add": "addi", "mul": "muli", "xor": "xori", "and": "andi",
                  "or": "ori", "min": "minsi", "max": "maxsi",
                  "umin": "minui", "umax": "maxui"}

    def emit_scan_region(self, name, head, kind, x, init_txt, dim_txt):
        """fuse.scan of x with a combiner region: kind's arith op, or for
        "last" the element itself."""
        m = mlir(x.dt)
        self.emit(f"{name} = fuse.scan {head} {x.name}{init_txt}{dim_txt} : "
                  f"{x.ttype} -> {x.ttype} {{")
        acc, e, t = self.fresh("b"), self.fresh("b"), self.fresh("t")
        self.emit(f"^bb0({acc}: {m}, {e}: {m}):")
        if kind == "last":
            self.emit(f"  fuse.yield {e} : {m}")
        else:
            self.emit(f"  {t} = arith.{self.REGION_OPS[kind]} {acc}, {e} : "
                      f"{m}")
            self.emit(f"  fuse.yield {t} : {m}")
        self.emit("}")

    def last_scan_ref(self, x, dim, excl, c):
        """The scan keeping the last element: x itself (inclusive), or x
        shifted by one along dim after init (exclusive)."""
        arr = np.array(x.arr, copy=True)
        if not excl:
            return arr
        sl_to = [slice(None)] * arr.ndim
        sl_from = [slice(None)] * arr.ndim
        sl_to[dim], sl_from[dim] = slice(1, None), slice(0, -1)
        out = np.empty_like(arr)
        out[tuple(sl_to)] = arr[tuple(sl_from)]
        first = [slice(None)] * arr.ndim
        first[dim] = slice(0, 1)
        out[tuple(first)] = cval(c, x.dt)
        return out

    def gen_filter(self):
        r = self.r
        cands = [v for v in self.kpool() if v.arr.ndim == 1 and v.exact]
        if not cands:
            return []
        x = r.choice(cands)
        others = [w for w in self.same_shape(x) if w is not x]
        ins = [x] + ([r.choice(others)] if others and r.random() < 0.5 else [])
        blk = [self.fresh("a") for _ in ins]
        t = self.fresh("k")
        p = self.fresh("p")
        m = mlir(x.dt)
        if isfloat(x.dt):
            thr = r.choice([0.0, 0.25, -0.5])
            pred = r.choice(["ogt", "olt"])
            body = [f"{t} = arith.constant {thr!r} : {x.dt}",
                    f"{p} = arith.cmpf {pred}, {blk[0]}, {t} : {x.dt}"]
            xv = f32(x.arr, x.dt)
            mask = xv > thr if pred == "ogt" else xv < thr
        elif x.dt == "i1":
            if r.random() < 0.5:
                body, p = [], blk[0]
                mask = x.arr.copy()
            else:  # keep the false ones
                body = [f"{t} = arith.constant 1 : i1",
                        f"{p} = arith.xori {blk[0]}, {t} : i1"]
                mask = ~x.arr
        elif not self.wide:
            thr = r.choice([0, 10, -20])
            pred = r.choice(["sgt", "slt"])
            body = [f"{t} = arith.constant {thr} : {x.dt}",
                    f"{p} = arith.cmpi {pred}, {blk[0]}, {t} : {x.dt}"]
            mask = x.arr > thr if pred == "sgt" else x.arr < thr
        else:
            w = WIDTH[x.dt]
            if x.dt in UINTS:
                thr = r.choice([0, 10, 200, 2**(w - 1) + 5, 2**w - 100])
                pred = r.choice(["ugt", "ult", "uge", "ule", "sgt"])
            else:
                thr = r.choice([0, 10, -20])
                pred = r.choice(["sgt", "slt", "sge", "ugt", "ult"])
            body = [f"{t} = arith.constant {fconst(thr, x.dt)} : {m}",
                    f"{p} = arith.cmpi {pred}, {blk[0]}, {t} : {m}"]
            mask = cmp_ref(pred, x.arr, cval(thr, x.dt), x.dt)
        names = [self.fresh() for _ in ins]
        self.emit(f"{', '.join(names)} = fuse.filter "
                  f"{', '.join(v.name for v in ins)} : "
                  f"{', '.join(v.ttype for v in ins)} -> "
                  f"{', '.join(ttype(v.dt, [None]) for v in ins)} {{")
        self.emit("^bb0(" + ", ".join(f"{b}: {mlir(v.dt)}" for b, v in
                                      zip(blk, ins)) + "):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {p} : i1")
        self.emit("}")
        self.nfilter += 1
        _, pairs = zip_syms(ins)
        syms, eqs, touched = derive(ins, [f"filter {self.nfilter}"], pairs)
        return self.note([Val(nm, v.dt, [None], v.arr[mask].copy(), v.exact,
                              v.scale, prec=v.prec, syms=syms, eqs=eqs,
                              touched=touched) for nm, v in zip(names, ins)])

    def gen_prefix(self, x, src):
        """fuse.prefix of x by a count the program computes: the sum over
        src of a per element where it is positive (true, for i1) and b
        elsewhere, which may be negative or past x's length (both
        clamped). The count is a rank-0 tensor, on the GPU a device word
        the prefix's steps read there. Drawn from its own stream."""
        rp = self.pre
        a, b = rp.choice([(1, 0), (2, 0), (1, -1), (0, 0), (3, 1)])
        blk, p, t = self.fresh("a"), self.fresh("p"), self.fresh("k")
        ca, cb, s = self.fresh("c"), self.fresh("c"), self.fresh("s")
        if isfloat(src.dt):
            body = [f"{t} = arith.constant 0.0 : {src.dt}",
                    f"{p} = arith.cmpf ogt, {blk}, {t} : {src.dt}"]
            mask = cmp_ref("ogt", src.arr, 0.0, src.dt)
        elif src.dt == "i1":
            body, p = [], blk
            mask = src.arr.astype(bool)
        else:
            m = mlir(src.dt)
            body = [f"{t} = arith.constant 0 : {m}",
                    f"{p} = arith.cmpi sgt, {blk}, {t} : {m}"]
            mask = cmp_ref("sgt", src.arr, 0, src.dt)
        body += [f"{ca} = arith.constant {a} : i64",
                 f"{cb} = arith.constant {b} : i64",
                 f"{s} = arith.select {p}, {ca}, {cb} : i64"]
        per, n, y = self.fresh(), self.fresh(), self.fresh()
        ptype = ttype("i64", src.tshape)
        self.emit(f"{per} = fuse.map {src.name} : {src.ttype} -> {ptype} {{")
        self.emit(f"^bb0({blk}: {mlir(src.dt)}):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {s} : i64")
        self.emit("}")
        self.emit(f"{n} = fuse.reduce add {per} : {ptype} -> tensor<i64>")
        rtype = ttype(x.dt, [None])
        self.emit(f"{y} = fuse.prefix {x.name}, {n} : {x.ttype}, "
                  f"tensor<i64> -> {rtype}")
        count = int(np.where(np.asarray(mask), a, b).astype(np.int64).sum())
        k = max(0, min(count, x.arr.shape[0]))
        self.nfilter += 1
        return Val(y, x.dt, [None], x.arr[:k].copy(), x.exact, x.scale,
                   prec=x.prec, syms=[f"filter {self.nfilter}"],
                   eqs=x.eqs | src.eqs, touched=x.touched | src.touched)

    def gen_sort(self):
        """fuse.sort of a rank-1 value, ascending or descending, with
        another value of its length moved along when the keys are exact
        (an inexact key's order could differ between backends; its sorted
        values differ only within the tolerance)."""
        cands = [v for v in self.kpool() if v.arr.ndim == 1]
        if not cands:
            return []
        return self.gen_sort_of(self.r.choice(cands))

    def gen_sort_of(self, x):
        """gen_sort of the keys x."""
        r = self.r
        ins = [x]
        others = [w for w in self.same_shape(x) if w is not x]
        if x.exact and others and r.random() < 0.5:
            ins.append(r.choice(others))
        desc = r.random() < 0.5
        # Wide flavor: sometimes a comparator region orders exact keys (an
        # inexact key near a tie of |x| could go either way).
        by = self.wide and x.exact and x.dt != "i1" and r.random() < 0.3
        # Exact keys alone: sometimes their positions too (an argsort).
        pos = len(ins) == 1 and x.exact and r.random() < 0.3
        order = ("descending" if desc else "ascending") + \
            (" unsigned" if x.dt in UINTS and not by else "") + \
            (" positions" if pos else "")
        names = [self.fresh() for _ in range(len(ins) + pos)]
        types = ", ".join(v.ttype for v in ins)
        results = types + (", " + ttype("i64", x.tshape) if pos else "")
        self.emit(f"{', '.join(names)} = fuse.sort {order} "
                  f"{', '.join(v.name for v in ins)} : {types} -> {results}"
                  + (" {" if by else ""))
        if by:
            self.emit_comparator(x.dt)
        perm = comparator_order(x.arr, x.dt, desc) if by else \
            sort_order(x.arr, x.dt, desc)
        syms, pairs = zip_syms(ins)
        syms, eqs, touched = derive(ins, syms, pairs)
        vals = [Val(nm, v.dt, v.tshape, v.arr[perm].copy(), v.exact, v.scale,
                    prec=v.prec, syms=syms, eqs=eqs, touched=touched)
                for nm, v in zip(names, ins)]
        if pos:
            p = np.asarray(perm, np.int64)
            vals.append(Val(names[-1], "i64", x.tshape, p, True, maxabs(p),
                            syms=syms, eqs=eqs, touched=touched))
        return self.note(vals)

    def emit_comparator(self, dt):
        """A sort's comparator region and its closing brace: floats by
        |a| < |b| with NaN after every number, integers by their low three
        bits (unsigned); comparator_order is its reference."""
        m = mlir(dt)
        a, b = self.fresh("b"), self.fresh("b")
        t = [self.fresh("t") for _ in range(5)]
        self.emit(f"^bb0({a}: {m}, {b}: {m}):")
        if isfloat(dt):
            self.emit(f"  {t[0]} = math.absf {a} : {m}")
            self.emit(f"  {t[1]} = math.absf {b} : {m}")
            self.emit(f"  {t[2]} = arith.cmpf olt, {t[0]}, {t[1]} : {m}")
            self.emit(f"  {t[3]} = arith.cmpf ord, {a}, {a} : {m}")
            self.emit(f"  {t[4]} = arith.cmpf uno, {b}, {b} : {m}")
            nl, lt = self.fresh("t"), self.fresh("t")
            self.emit(f"  {nl} = arith.andi {t[3]}, {t[4]} : i1")
            self.emit(f"  {lt} = arith.ori {t[2]}, {nl} : i1")
        else:
            seven = self.fresh("k")
            self.emit(f"  {seven} = arith.constant 7 : {m}")
            self.emit(f"  {t[0]} = arith.andi {a}, {seven} : {m}")
            self.emit(f"  {t[1]} = arith.andi {b}, {seven} : {m}")
            lt = t[2]
            self.emit(f"  {lt} = arith.cmpi ult, {t[0]}, {t[1]} : {m}")
        self.emit(f"  fuse.yield {lt} : i1")
        self.emit("}")

    def gen_searchsorted(self):
        """fuse.searchsorted of exact needles of any rank in an exact rank-1
        value of their dtype (sorted first half of the time, else searched
        as it is: both backends run the same binary search)."""
        r = self.r
        pool = [v for v in self.kpool() if v.exact and
                not (self.gpu and v.dt == "i1")]
        srcs = [v for v in pool if v.arr.ndim == 1]
        if not srcs:
            return []
        s = r.choice(srcs)
        needles = [v for v in pool if v.dt == s.dt]
        v = r.choice(needles)
        made = []
        if r.random() < 0.5:
            made = self.gen_sort_of(s)
            s = made[0]
            if made == [s] and s in self.pool:
                made = []  # not sorted after all (see gen_sort_of)
        right = r.random() < 0.5
        side = ("right" if right else "left") + \
            (" unsigned" if s.dt in UINTS else "")
        name = self.fresh()
        self.emit(f"{name} = fuse.searchsorted {side} {s.name}, {v.name} : "
                  f"{s.ttype}, {v.ttype} -> {ttype('i64', v.tshape)}")
        arr = search_positions(s.arr, v.arr, right)
        syms, eqs, touched = derive([s, v], v.syms)
        return made + self.note([Val(name, "i64", v.tshape, arr, True,
                                     maxabs(arr), syms=syms, eqs=eqs,
                                     touched=touched)])

    def gen_histogram(self):
        """fuse.histogram of an exact integer value of any rank (read as
        signed, so unsigned data above the signed range falls outside the
        bins), a static bin count, i64 or i32 counts: the counts of the
        values in [0, bins)."""
        r = self.r
        cands = [v for v in self.kpool() if v.exact and v.arr.ndim >= 1 and
                 v.dt != "i1" and not isfloat(v.dt)]
        if not cands:
            return []
        x = r.choice(cands)
        bins = r.choice([1, 7, 64, 300])
        cdt = r.choice(["i64", "i32"])
        name = self.fresh()
        self.emit(f"{name} = fuse.histogram {x.name} : {x.ttype} -> "
                  f"{ttype(cdt, [bins])}")
        vals = x.arr.reshape(-1)
        if vals.dtype.kind == "u":
            vals = vals.view(vals.dtype.str.replace("u", "i"))
        vals = vals.astype(np.int64)
        kept = vals[(vals >= 0) & (vals < bins)]
        arr = np.bincount(kept, minlength=bins).astype(NP[cdt])
        syms, eqs, touched = derive([x], [f"const {bins}"])
        return self.note([Val(name, cdt, [bins], arr, True, maxabs(arr),
                              syms=syms, eqs=eqs, touched=touched)])

    def gen_segmented(self):
        """fuse.segmented_reduce of an exact rank-1 value: starts drawn like
        gather indices (some before 0 or past n, sometimes the integer
        extremes), ends = starts + a small constant in a map (so empty,
        reversed and clamped segments occur); add for integers, min and max
        (umin and umax for unsigned data), or a region keeping a segment's
        last element from an init (the order of the elements): exact in any
        grouping."""
        r = self.r
        cands = [v for v in self.kpool() if v.exact and v.arr.ndim == 1 and
                 v.dt != "i1"]
        if not cands:
            return []
        x = r.choice(cands)
        n = x.shape[0]
        idt = r.choice(INTS)
        st = self.make_input(idt, (r.choice(SIZES), n), r.random() < 0.2,
                             kind="index")
        c = r.choice([-1, 0, 1, 3, 17, 300])
        en, a, k, b = (self.fresh() for _ in range(4))
        self.emit(f"{en} = fuse.map {st.name} : {st.ttype} -> {st.ttype} {{")
        self.emit(f"^bb0({a}: {idt}):")
        self.emit(f"  {k} = arith.constant {c} : {idt}")
        self.emit(f"  {b} = arith.addi {a}, {k} : {idt}")
        self.emit(f"  fuse.yield {b} : {idt}")
        self.emit("}")
        starts = st.arr.astype(np.int64)
        ends = (st.arr + NP[idt](c)).astype(np.int64)  # wraps like addi
        if isfloat(x.dt):
            kind = r.choice(["min", "max", "last"])
        elif x.dt in UINTS:
            kind = r.choice(["add", "umin", "umax", "last"])
        else:
            kind = r.choice(["add", "min", "max", "last"])
        seg = f"segments({st.name}, {en} : {st.ttype}, {st.ttype})"
        rt = ttype(x.dt, st.tshape)
        name = self.fresh()
        xs = f32(x.arr, x.dt)
        if kind == "last":
            init = 0.5 if isfloat(x.dt) else 7
            ci, pa, pb = self.fresh(), self.fresh(), self.fresh()
            self.emit(f"{ci} = arith.constant {fconst(init, x.dt)} : "
                      f"{mlir(x.dt)}")
            self.emit(f"{name} = fuse.segmented_reduce {x.name} init({ci} : "
                      f"{mlir(x.dt)}) {seg} : {x.ttype} -> {rt} {{")
            self.emit(f"^bb0({pa}: {mlir(x.dt)}, {pb}: {mlir(x.dt)}):")
            self.emit(f"  fuse.yield {pb} : {mlir(x.dt)}")
            self.emit("}")
        else:
            self.emit(f"{name} = fuse.segmented_reduce {kind} {x.name} {seg} "
                      f": {x.ttype} -> {rt}")
        if isfloat(x.dt):
            top, bottom = np.inf, -np.inf
        else:
            top, bottom = np.iinfo(xs.dtype).max, np.iinfo(xs.dtype).min
        arr = np.empty(len(starts), xs.dtype)
        for i, (s0, e0) in enumerate(zip(starts, ends)):
            lo = min(max(s0, 0), n)
            part = xs[lo:min(max(e0, lo), n)]
            if kind == "last":
                arr[i] = part[-1] if part.size else NP[x.dt](init)
            elif kind == "add":
                arr[i] = np.add.reduce(part, dtype=xs.dtype)
            elif kind in ("min", "umin"):
                arr[i] = np.minimum.reduce(part, initial=top)
            else:
                arr[i] = np.maximum.reduce(part, initial=bottom)
        arr = arr.astype(NP[x.dt])
        syms, eqs, touched = derive([x, st], st.syms)
        return self.note([Val(name, x.dt, st.tshape, arr, True, maxabs(arr),
                              syms=syms, eqs=eqs, touched=touched)])

    def gen_broadcast_map(self):
        """Broadcast a reduction result back to a full shape and combine
        it with a value of that shape in a map (softmax/variance style)."""
        r = self.r
        pool = self.kpool()
        reds = [v for v in pool if any(w.arr.ndim > v.arr.ndim
                                       for w in pool)]
        if not reds:
            return []
        s = r.choice(reds)
        # pick a target and new dimensions whose kept dims match s
        opts = []
        for w in pool:
            k = w.arr.ndim - s.arr.ndim
            for dims in (itertools.combinations(range(w.arr.ndim), k)
                         if k > 0 else ()):
                kept = [d for d in range(w.arr.ndim) if d not in dims]
                if [w.shape[d] for d in kept] == list(s.shape) and \
                        [w.tshape[d] for d in kept] == list(s.tshape):
                    opts.append((w, dims))
        if not opts:
            return []
        w, dims = r.choice(opts)
        return self.broadcast_into(s, w, dims)

    def gen_rows(self):
        """The rows pattern of softmax and layernorm: a value of rank >= 2
        reduced over its last dimension, the result broadcast back along
        it and combined with the value in a map (x - max(x, axis=-1));
        built-in kinds, which the GPU's row kernels take (its
        fuse-collapse-rows takes rank 3 to a matrix)."""
        xs = [v for v in self.kpool() if v.arr.ndim >= 2]
        if not xs:
            return []
        x = self.r.choice(xs)
        last = x.arr.ndim - 1
        red = self.reduce_over(x, [last], regions=False)
        return red + self.broadcast_into(red[0], x, [last])

    def broadcast_into(self, s, w, dims):
        """fuse.broadcast of s to w's shape (new dimensions `dims`), then
        a map of the pair."""
        sizes, bsyms = [], {}
        for d in dims:
            if w.tshape[d] is None:
                ssa, sym = self.size_of(w, d)
                sizes.append(ssa)
                bsyms[d] = sym
            else:
                bsyms[d] = f"const {w.tshape[d]}"
        b = self.fresh()
        sz = f" ({', '.join(sizes)})" if sizes else ""
        self.emit(f"{b} = fuse.broadcast {s.name} dims [{', '.join(map(str, dims))}]"
                  f"{sz} : {s.ttype} -> {ttype(s.dt, w.tshape)}")
        arr = np.broadcast_to(np.expand_dims(s.arr, tuple(dims)),
                              w.shape).copy()
        kept = iter(s.syms)
        syms = [bsyms[d] if d in bsyms else next(kept)
                for d in range(w.arr.ndim)]
        syms, eqs, touched = derive([s], syms)
        touched |= frozenset(bsyms.values())
        bv = Val(b, s.dt, w.tshape, arr, s.exact, s.scale, prec=s.prec,
                 syms=syms, eqs=eqs, touched=touched)
        self.pool.append(bv)
        # and a map over the pair
        return self.map_pair(bv, w)

    def map_pair(self, a, b):
        dt = a.dt if a.dt == b.dt or isfloat(a.dt) else b.dt
        if self.wide and b.dt == "i1" and a.dt != "i1":
            dt = a.dt
        if isfloat(a.dt) and not isfloat(dt):
            dt = a.dt
        ctx = []
        x, y = self.fresh("a"), self.fresh("a")
        sa, aa = self.convert(x, a.arr, a.dt, dt, ctx) if not (
            isfloat(a.dt) and not isfloat(dt)) else (x, a.arr)
        if isfloat(b.dt) and not isfloat(dt):
            return []
        sb, ab = self.convert(y, b.arr, b.dt, dt, ctx)
        name = self.fresh()
        if not self.wide:
            op = self.r.choice(["sub", "add", "mul"])
            opn = f"arith.{op}{'f' if isfloat(dt) else 'i'}"
            f = {"sub": np.subtract, "add": np.add, "mul": np.multiply}[op]
        elif isfloat(dt):
            op = self.r.choice(["subf", "addf", "mulf"])
            opn = f"arith.{op}"
            f = {"subf": np.subtract, "addf": np.add, "mulf": np.multiply}[op]
        else:
            op = self.r.choice(["andi", "ori", "xori"] if dt == "i1" else
                               ["subi", "addi", "muli", "maxui", "maxsi",
                                "xori"])
            opn = f"arith.{op}"
            f = (lambda p, q: int_binop(op, p, q, dt))
        res = self.fresh("t")
        ctx.append(f"{res} = {opn} {sb}, {sa} : {mlir(dt)}")
        with np.errstate(all="ignore"):
            arr = np.asarray(f(f32(ab, dt), f32(aa, dt))).astype(NP[dt])
        tshape = merge_tshape([a, b]) if self.wide else a.tshape
        self.emit(f"{name} = fuse.map {a.name}, {b.name} : {a.ttype}, "
                  f"{b.ttype} -> {ttype(dt, tshape)} {{")
        self.emit(f"^bb0({x}: {mlir(a.dt)}, {y}: {mlir(b.dt)}):")
        for line in ctx:
            self.emit("  " + line)
        self.emit(f"  fuse.yield {res} : {mlir(dt)}")
        self.emit("}")
        zs, pairs = zip_syms([a, b])
        syms, eqs, touched = derive([a, b], zs, pairs)
        return self.note([Val(name, dt, tshape, arr, a.exact and b.exact,
                              max(a.scale, b.scale, maxabs(arr)) * 2,
                              prec=fprec(narrowest(a.prec, b.prec), dt),
                              syms=syms,
                              eqs=eqs, touched=touched)])

    def gen_iota(self, zip_it=False):
        r = self.r
        src = [v for v in self.args if v.arr.ndim >= 1]
        if self.wide:
            src = [v for v in self.kpool() if v.arr.ndim >= 1]
        w = r.choice(src or [None])
        if w is None:
            return []
        dt = r.choice(FLOATS + INTS) if not self.wide else r.choice(WIDE)
        dim = r.randrange(w.arr.ndim)
        sizes, syms = [], []
        for d in range(w.arr.ndim):
            if w.tshape[d] is None:
                ssa, sym = self.size_of(w, d)
                sizes.append(ssa)
                syms.append(sym)
            else:
                syms.append(f"const {w.tshape[d]}")
        name = self.fresh()
        dim_txt = f" dim {dim}" if dim or r.random() < 0.3 else ""
        self.emit(f"{name} = fuse.iota {', '.join(sizes)}{dim_txt} : "
                  f"{ttype(dt, w.tshape)}".replace("iota  :", "iota :")
                  .replace("iota  dim", "iota dim"))
        shp = [1] * w.arr.ndim
        shp[dim] = w.shape[dim]
        arr = np.broadcast_to(np.arange(w.shape[dim]).reshape(shp),
                              w.shape).astype(NP[dt])
        iv = Val(name, dt, w.tshape, arr, True, maxabs(arr), syms=syms)
        if zip_it or (self.wide and r.random() < 0.5):
            # and the iota zipped with what gave its size
            self.pool.append(iv)
            return [iv] + self.map_pair(iv, w)
        return [iv]

    def gen_gather(self):
        r = self.r
        srcs = [v for v in self.kpool() if v.arr.ndim == 1]
        if not srcs:
            return []
        s = r.choice(srcs)
        idt = r.choice(INTS)
        nidx = r.choice(SIZES)
        idx = self.make_input(idt, (nidx, s.shape[0]), r.random() < 0.2,
                              kind="index")
        name = self.fresh()
        self.emit(f"{name} = fuse.gather {s.name}[{idx.name}] : {s.ttype}, "
                  f"{idx.ttype} -> {ttype(s.dt, idx.tshape)}")
        n = s.shape[0]
        ii = idx.arr.astype(np.int64)
        ok = (ii >= 0) & (ii < n)
        arr = np.zeros(ii.shape, NP[s.dt])
        arr[ok] = s.arr[ii[ok]]
        syms, eqs, touched = derive([s, idx], idx.syms)
        return self.note([Val(name, s.dt, idx.tshape, arr, s.exact, s.scale,
                              prec=s.prec, syms=syms, eqs=eqs,
                              touched=touched)])

    def gen_vector_broadcast(self):
        """A new vector argument broadcast along all but one dimension of
        a value of rank 2 or 3 and combined with it: its length must equal
        the dimension it keeps (a matrix's columns or rows; of rank 3 the
        last dimension, a per-column scale, or one of the leading ones)."""
        r = self.r
        mats = [v for v in self.kpool() if v.arr.ndim >= 2]
        if not mats:
            return []
        w = r.choice(mats)
        nd = w.arr.ndim
        kept = nd - 1 - r.randrange(nd)    # the vector's dimension
        v = self.make_input(self.data_dtype(), (w.shape[kept],),
                            w.tshape[kept] is not None, kind="shaped")
        return self.broadcast_into(v, w, [d for d in range(nd)
                                          if d != kept])

    def gen_zip_args(self):
        """A map over two arguments of one shape (a second one made if
        needed): the simplest size equality between arguments."""
        args = [v for v in self.args if v.kind == "tensor" and
                v.arr.ndim >= 1 and v in self.pool]
        if not args:
            return []
        a = self.r.choice(args)
        others = [v for v in self.same_shape(a) if v in args and v is not a]
        if not others:
            b = self.make_input(self.data_dtype(), a.shape,
                                self.r.random() < 0.3, kind="shaped")
            self.pool.append(b)
        else:
            b = self.r.choice(others)
        return self.gen_map([a, b])

    # -- program ------------------------------------------------------------
    def build(self):
        r = self.r
        static = r.random() < 0.2
        if self.wide and self.want_mismatch:
            static = False  # some size must be dynamic to be broken
        mixed = self.wide and not static and r.random() < 0.25
        rank = r.choice([1, 1, 2] + [3] * self.wide)  # classic: 1 or 2
        shape = (r.choice(SIZES),) if rank == 1 else \
            tuple(r.choice(SIZES2 if rank == 2 else SIZES3)
                  for _ in range(rank))
        t = self.tall
        if self.wide and rank >= 2 and t.random() < 1 / 3:
            shape = (t.choice(TALL_ROWS), t.choice(TALL_COLS)) if rank == 2 \
                else (t.choice((1, 2)), t.choice(TALL_ROWS),
                      t.choice(TALL_COLS[:2]))
        for i in range(r.randint(1, 3)):
            dt = self.data_dtype()
            self.pool.append(self.make_input(
                dt, shape, self.input_static(static, mixed, rank, i == 0)))
        made = []
        forced = []
        if self.wide and self.want_mismatch:
            # a size equality to break: zipped arguments, a broadcast
            # vector, or an iota sized like what it is zipped with; one of
            # its values is returned, so the equality is live
            gens = [self.gen_zip_args, lambda: self.gen_iota(zip_it=True)]
            if rank >= 2:
                gens.append(self.gen_vector_broadcast)
            forced = r.choice(gens)()
            self.pool.extend(forced)
            made.extend(forced)
        for _ in range(r.randint(2, 6)):
            gens = [self.gen_map] * 4 + [self.gen_reduce] * 3 + \
                [self.gen_scan] * 2 + [self.gen_filter] * 2 + \
                [self.gen_broadcast_map] * 2 + [self.gen_iota,
                                                self.gen_gather]
            if self.wide:
                gens += [self.gen_vector_broadcast, self.gen_zip_args,
                         self.gen_sort, self.gen_searchsorted,
                         self.gen_histogram, self.gen_segmented]
            if self.wide and rank >= 2:
                gens.append(self.gen_rows)
            g = r.choice(gens)
            new = g()
            self.pool.extend(new)
            made.extend(new)
        if not made:
            made = self.gen_map()
            self.pool.extend(made)
        k = r.randint(1, min(3, len(made)))
        outs = [made[-1]] + r.sample(made[:-1], min(k - 1, len(made) - 1))
        forced = [v for v in forced if v in made and v.eqs]
        if forced and not any(v in outs for v in forced):
            outs.append(forced[-1])
        ranked1 = [v for v in made if v.arr.ndim == 1]
        if ranked1 and self.pre.random() < 0.2:
            outs.append(self.gen_prefix(self.pre.choice(ranked1),
                                        self.pre.choice(ranked1)))
        sig = ", ".join(f"{a.name}: "
                        f"{'index' if a.kind == 'scalar' else a.ttype}"
                        for a in self.args)
        res = ", ".join(v.ttype for v in outs)
        text = [f"// gen-pipelines seed {self.seed}",
                f"func.func @main({sig}) -> ({res}) {{"]
        text += self.lines
        text.append(f"    return {', '.join(v.name for v in outs)} : {res}")
        text.append("}")
        self.outs = outs
        return "\n".join(text) + "\n", outs

    def input_static(self, static, mixed, rank, first):
        """Whether a data input's dimensions are static: all of them for
        a static program; in the mixed mode (the wide flavor) each input
        at random, or each dimension of a rank-3 input; the first stays
        dynamic where a size is to be mismatched."""
        r = self.r
        if static or not mixed:
            return static
        if rank < 3:
            return r.random() < 0.5 and not (first and self.want_mismatch)
        dims = tuple(r.random() < 0.5 for _ in range(rank))
        return False if first and self.want_mismatch else dims

    # -- mismatched sizes ---------------------------------------------------
    def plan_mismatch(self, late=False, rng=None):
        """A mismatched-size case for the program built last, or None:
        {"args": [arrays / ints per argument], "member": the changed size
        symbol, "value": its new value, "negative": bool, "class": the
        symbols it must equal (live ops), "allowed": the symbols a message
        may name against it (live or dead ops: fuse may check a dead op's
        equality first), "sizes": every symbol's size as passed}."""
        rng = rng or self.x
        live = set()
        touched = set()
        for v in self.outs:
            live |= v.eqs
            touched |= v.touched

        def early(pairs):
            # fuse checks the arguments before the call: an equality that
            # holds only through a filter's kept count (known after the
            # filter ran) is not one of those it can check
            return {p for p in pairs if not any(
                s.startswith("filter ") for s in p)}

        classes = union_classes(early(live))
        allowed = union_classes(early(set(self.all_eqs) | live))
        cands = []
        for cls in sorted({frozenset(c) for c in classes.values()},
                          key=sorted):
            if len(cls) < 2:
                continue
            for s in sorted(cls):
                if s.startswith("in"):
                    cands.append((s, cls))
        scalars = [s for s in sorted(touched) if re.fullmatch(r"in\d+", s)]
        if late:
            # only sizes tied to the rest through a kept count
            full = union_classes(live)
            cands = [(s, frozenset(full[s])) for s in sorted(full)
                     if s.startswith("in") and len(full[s]) > 1 and
                     len(classes.get(s, ())) < 2]
            scalars = []
            classes, allowed = full, full
        if not cands and not scalars:
            return None
        if cands and (not scalars or rng.random() < 0.8):
            member, cls = rng.choice(cands)
            negative = False
        else:
            member = rng.choice(scalars)
            cls = classes.get(member, {member})
            negative = True
        sizes = {}
        for k, a in enumerate(self.args):
            if a.kind == "scalar":
                sizes[f"in{k}"] = int(a.arr)
            else:
                for d, n in enumerate(a.shape):
                    sizes[f"in{k} dimension {d}"] = n
        cur = sizes[member]
        if negative:
            new = rng.choice([-1, -3, -(cur + 1), -(1 << 40)])
        else:
            opts = {cur + 1, cur + 2, 2 * cur + 3, cur + 17, 1, 0,
                    max(cur - 1, 0), cur // 2}
            if member.count(" ") == 0:  # a scalar
                opts |= {-1}
            opts.discard(cur)
            new = rng.choice(sorted(opts))
            negative = new < 0
        sizes[member] = new
        drng = np.random.default_rng(rng.randrange(1 << 30))
        args = []
        for k, a in enumerate(self.args):
            if a.kind == "scalar":
                args.append(sizes[f"in{k}"])
                continue
            shp = tuple(sizes[f"in{k} dimension {d}"]
                        for d in range(a.arr.ndim))
            if shp == a.shape:
                args.append(a.arr)
                continue
            if isfloat(a.dt):
                arr = drng.uniform(-1, 1, size=shp).astype(NP[a.dt])
            elif a.dt == "i1":
                arr = drng.random(size=shp) < 0.5
            else:
                arr = drng.integers(0, 100, size=shp).astype(NP[a.dt])
            args.append(arr)
        return {"args": args, "member": member, "value": new,
                "negative": negative, "class": sorted(cls),
                "allowed": sorted(allowed.get(member, cls) | set(cls)),
                "sizes": sizes, "late": late}


def union_classes(pairs):
    """Size symbol -> its class (a set) under the equalities `pairs`."""
    parent = {}

    def find(s):
        parent.setdefault(s, s)
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for a, b in pairs:
        parent[find(a)] = find(b)
    groups = {}
    for s in list(parent):
        groups.setdefault(find(s), set()).add(s)
    return {s: groups[find(s)] for s in parent}


def cmp_ref(pred, a, b, dt):
    """arith.cmpi / cmpf `pred` on NumPy values of dtype dt."""
    with np.errstate(all="ignore"):
        if isfloat(dt):
            a, b = f32(a, dt), f32(b, dt)
            f = {"olt": np.less, "ole": np.less_equal, "ogt": np.greater,
                 "oge": np.greater_equal, "oeq": np.equal,
                 "one": lambda p, q: (p != q) & ~np.isnan(p) & ~np.isnan(q)
                 }[pred]
            return np.asarray(f(a, b))
        if pred in ("eq", "ne"):
            f = np.equal if pred == "eq" else np.not_equal
            return np.asarray(f(np.asarray(a, NP[dt]), np.asarray(b, NP[dt])))
        if dt == "i1":  # signed: true is -1
            conv = (lambda v: -np.asarray(v, np.int8)) if pred[0] == "s" \
                else (lambda v: np.asarray(v, np.int8))
        else:
            conv = (lambda v: as_sgn(v, dt)) if pred[0] == "s" else \
                (lambda v: as_uns(v, dt))
        f = {"lt": np.less, "le": np.less_equal, "gt": np.greater,
             "ge": np.greater_equal}[pred[1:]]
        return np.asarray(f(conv(a), conv(b)))


def int_binop(op, a, b, dt):
    """arith integer op `op` (addi, maxui, ...) on dt's values, wrapping."""
    T = NP[dt]
    with np.errstate(all="ignore"):
        if dt == "i1":
            f = {"andi": np.logical_and, "ori": np.logical_or,
                 "xori": np.logical_xor, "addi": np.logical_xor,
                 "subi": np.logical_xor, "muli": np.logical_and}[op]
            return np.asarray(f(a, b), np.bool_)
        if op in ("maxui", "minui"):
            f = np.maximum if op == "maxui" else np.minimum
            return back(np.asarray(f(as_uns(a, dt), as_uns(b, dt))), dt)
        if op in ("maxsi", "minsi"):
            f = np.maximum if op == "maxsi" else np.minimum
            return back(np.asarray(f(as_sgn(a, dt), as_sgn(b, dt))), dt)
        f = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
             "andi": np.bitwise_and, "ori": np.bitwise_or,
             "xori": np.bitwise_xor}[op]
        return np.asarray(f(as_uns(a, dt), as_uns(b, dt))).astype(
            UNS[WIDTH[dt]]).view(T)


def sym_text(s):
    """A size symbol as fuse's messages name it."""
    return s if not s.startswith("const ") else \
        "the pipeline's type says " + s.split()[1]


MSG_RE = re.compile(
    r"(size mismatch|invalid size): (in\d+(?: dimension \d+)?) is (-?\d+)"
    r"(?:, but it sizes a tensor and cannot be negative| but (?:(in\d+"
    r"(?: dimension \d+)?) is (-?\d+)|the pipeline's type says (-?\d+)|"
    r"the (?:filter keeps|prefix takes) (-?\d+) elements))")
# fuse-run-aot's own refusal before the call, when a result's size
# depends on the changed argument (its buffer cannot be allocated)
AOT_PRECHECK_RE = re.compile(r"result #\d+: size '[^']*' is (negative|-?\d+, "
                             r"but tensor<[^>]*> has \d+)")


def judge_rejection(case, rc, text, runner_prechecks=False):
    """None if a run of the mismatched case `case` (plan_mismatch's dict,
    as is or through JSON) was rejected as it must be: a non-zero exit, no
    crash, and a `size mismatch` message naming the changed size and one
    it must equal, with the sizes passed (`invalid size` for a negative
    one). Else the reason."""
    crash = [m for m in CRASH_MARKS if m in text]
    if rc == 0:
        return ("ran and exited 0 (results returned) although "
                f"{case['member']} was set to {case['value']}, breaking "
                f"{' = '.join(case['class'])}")
    if rc < 0 or rc >= 128 or crash:
        return f"crashed (exit {rc}{', ' + crash[0] if crash else ''}): " + \
            text.strip()[-600:]
    m = MSG_RE.search(text)
    if not m:
        if runner_prechecks and AOT_PRECHECK_RE.search(text):
            return None
        return "exit %d without a size-mismatch message: %s" % (
            rc, text.strip()[-600:])
    sizes = case["sizes"]
    what, x, xv = m.group(1), m.group(2), int(m.group(3))
    if m.group(7) is not None:
        # a check against a kept count or a prefix's count, once the
        # filter or prefix ran: only an equality through such a count
        # fails there (the others are checked before the call)
        if not case.get("late"):
            return ("a check against a count failed, but the changed size "
                    f"breaks an equality checked before the call: {m.group(0)}")
        if x != case["member"] or xv != case["value"]:
            return (f"expected the message to give {case['member']} as "
                    f"{case['value']}: {m.group(0)}")
        return None
    if what == "invalid size":
        if not case["negative"] or x != case["member"] or \
                xv != case["value"]:
            return (f"expected 'size mismatch: {case['member']} is "
                    f"{case['value']} but ...' naming one of "
                    f"{', '.join(case['class'])}, got: {m.group(0)}"
                    if not case["negative"] else
                    f"expected 'invalid size: {case['member']} is "
                    f"{case['value']}', got: {m.group(0)}")
        return None
    # a size mismatch (for a negative size too, if the equality is checked
    # first)
    y = m.group(4) if m.group(4) else f"const {m.group(6)}"
    yv = int(m.group(5)) if m.group(4) else int(m.group(6))
    if case["member"] not in (x, y):
        return (f"the message does not name {case['member']} (the changed "
                f"size): {m.group(0)}")
    other = y if x == case["member"] else x
    if other not in case["allowed"]:
        return (f"the message names {sym_text(other)}, which the program "
                f"does not tie to {case['member']} (class "
                f"{', '.join(case['class'])}): {m.group(0)}")
    for s, v in ((x, xv), (y, yv)):
        want = int(s.split()[1]) if s.startswith("const ") else sizes.get(s)
        if want != v:
            return f"the message gives {s} as {v}, but it is {want}: " + \
                m.group(0)
    return None


def compare(got, v, what):
    """None if `got` matches Val v's reference, else a message."""
    ref = v.arr
    np.seterr(all="ignore")
    got = from_file(got, v.dt)
    if got.shape != ref.shape:
        return f"{what}: shape {got.shape} != expected {ref.shape}"
    if got.dtype != ref.dtype:
        return f"{what}: dtype {got.dtype} != expected {ref.dtype}"
    if v.dt in HALFS:  # as float64 (exactly), for NumPy's float routines
        got, ref = got.astype(np.float64), ref.astype(np.float64)
    prec = v.prec or v.dt
    if not isfloat(v.dt) or v.exact:
        ok = np.array_equal(got, ref, equal_nan=isfloat(v.dt))
        if isfloat(v.dt) and not ok:
            # exactly rounded ops agree bitwise; allow one ulp (of the
            # narrowest precision on the way) for libm sqrt / division
            # folding differences
            ok = np.allclose(got, ref, rtol=4 * EPS[prec],
                             atol=0, equal_nan=True)
    else:
        tol = RTOL[prec]
        ok = np.allclose(got, ref, rtol=tol, atol=tol * max(v.scale, 1.0),
                         equal_nan=True)
    if ok:
        return None
    with np.errstate(all="ignore"):
        diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
    if diff.size and not np.all(np.isnan(diff)):
        k = int(np.nanargmax(diff))
    else:
        # NaN against a number (or inf against -inf): the first such place
        bad = ~((got == ref) | (np.isnan(got) & np.isnan(ref))) \
            if isfloat(v.dt) else got != ref
        k = int(np.flatnonzero(bad)[0]) if np.any(bad) else 0
    return (f"{what}: mismatch at flat index {k}: got {got.flat[k]!r}, "
            f"expected {ref.flat[k]!r} (exact={v.exact}, scale={v.scale:.3g}"
            f", precision {prec})")


def arg_flags(g, d, arrays=None, prefix="in"):
    """fuse-run --arg flags for Gen g's arguments (files written to d);
    `arrays` replaces the values (a mismatched case's)."""
    argv = []
    for i, a in enumerate(g.args):
        val = a.arr if arrays is None else arrays[i]
        if a.kind == "scalar":
            argv += ["--arg", f"scalar:{int(val)}"]
            continue
        p = os.path.join(d, f"{prefix}{i}.npy")
        np.save(p, file_array(Val("", a.dt, (), np.asarray(val, NP[a.dt]),
                                  True, 0)))
        argv += ["--arg", p]
    return argv


def run_sharded(tools, prog, argv, d, outs, shards, tally):
    """fuse-run --shards: the program on `shards` shards (fuse-shard), which
    fuse-run checks against its unsharded run, and its results against the
    reference. A program fuse-shard cannot split ("cannot run sharded") is
    tallied as refused; any other failure is an error (returned)."""
    od = os.path.join(d, "sharded")
    shutil.rmtree(od, ignore_errors=True)
    p = subprocess.run([tools["run"], prog, "--entry", "main", "--out", od,
                        f"--shards={shards}"] + argv,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        if "cannot run sharded" in p.stderr:
            tally["refused"] += 1
            return []
        return [f"fuse-run --shards={shards} exit {p.returncode}: "
                + (p.stderr.strip() or p.stdout.strip())[-2000:]]
    tally["sharded"] += 1
    errs = []
    for i, v in enumerate(outs):
        m = compare(np.load(os.path.join(od, f"result{i}.npy")), v,
                    f"sharded result{i} vs numpy")
        if m:
            errs.append(m)
    return errs


def run_seed(seed, tools, workdir, keep, classic=False, late=False,
             shards=0, tally=None):
    g = Gen(seed, classic=classic)
    text, outs = g.build()
    d = os.path.join(workdir, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    prog = os.path.join(d, "prog.mlir")
    with open(prog, "w") as f:
        f.write(text)
    argv = arg_flags(g, d)
    errs = []
    mism = None
    p = subprocess.run([tools["opt"], prog, "-o", os.devnull],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        errs.append("fuse-opt rejects the program: " + p.stderr.strip()[:2000])
    else:
        results = {}
        for mode, extra in (("fused", []), ("unfused", ["--no-fusion"])):
            od = os.path.join(d, mode)
            shutil.rmtree(od, ignore_errors=True)
            p = subprocess.run([tools["run"], prog, "--entry", "main",
                                "--out", od] + extra + argv,
                               capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                errs.append(f"fuse-run ({mode}) exit {p.returncode}: "
                            + (p.stderr.strip() or p.stdout.strip())[-2000:])
                continue
            results[mode] = [np.load(os.path.join(od, f"result{i}.npy"))
                             for i in range(len(outs))]
            for i, (got, v) in enumerate(zip(results[mode], outs)):
                m = compare(got, v, f"{mode} result{i} vs numpy")
                if m:
                    errs.append(m)
        if shards and "fused" in results:
            errs += run_sharded(tools, prog, argv, d, outs, shards, tally)
        if len(results) == 2:
            for i, (a, b) in enumerate(zip(results["fused"],
                                           results["unfused"])):
                v = Val("", outs[i].dt, (), from_file(b, outs[i].dt),
                        outs[i].exact, outs[i].scale, prec=outs[i].prec)
                m = compare(a, v, f"result{i} fused vs unfused")
                if m:
                    errs.append(m)
        mism = g.plan_mismatch(late) if g.want_mismatch or late else None
        if mism:
            margv = arg_flags(g, d, mism["args"], prefix="mm")
            others = [s for s in mism["class"] if s != mism["member"]]
            with open(os.path.join(d, "mismatch.txt"), "w") as f:
                f.write(f"{mism['member']} = {mism['value']}, must equal "
                        f"{', '.join(others)}\n{' '.join(margv)}\n")
            for mode, extra in (("fused", []), ("unfused", ["--no-fusion"])):
                od = os.path.join(d, "mm-" + mode)
                p = subprocess.run([tools["run"], prog, "--entry", "main",
                                    "--out", od] + extra + margv,
                                   capture_output=True, text=True,
                                   timeout=300)
                m = judge_rejection(mism, p.returncode, p.stderr + p.stdout)
                if m:
                    errs.append(f"mismatched sizes ({mism['member']} = "
                                f"{mism['value']}), fuse-run ({mode}): {m}")
    if not errs and not keep:
        shutil.rmtree(d, ignore_errors=True)
    return errs, d, mism is not None


def parse_seeds(text):
    """A:B (B excluded) or a comma-separated list of seeds."""
    if ":" in text:
        a, b = (int(x) for x in text.split(":"))
        return list(range(a, b))
    return [int(x) for x in text.split(",") if x.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--emit", type=int, metavar="SEED")
    ap.add_argument("--seeds", default="0:20",
                    help="A:B (B excluded) or S,S,...")
    ap.add_argument("--fuse-opt", default="fuse-opt")
    ap.add_argument("--fuse-run", default="fuse-run")
    ap.add_argument("--workdir", help="where programs and arrays go "
                    "(default: a temporary directory)")
    ap.add_argument("--keep", action="store_true",
                    help="keep passing seeds' files too")
    ap.add_argument("--classic", action="store_true",
                    help="every seed in the classic flavor (f32 f64 i32 "
                    "i64, the programs made before the wide flavor)")
    ap.add_argument("--shards", type=int, default=0, metavar="N",
                    help="also run each program on N shards (fuse-run "
                    "--shards) against its unsharded run and the reference; "
                    "programs fuse-shard cannot split are counted as "
                    "refused")
    ap.add_argument("--late-mismatch", action="store_true",
                    help="break only equalities that hold through a "
                    "filter's kept count (checked once the filter ran)")
    args = ap.parse_args()
    if args.emit is not None:
        sys.stdout.write(Gen(args.emit, classic=args.classic).build()[0])
        return 0
    tools = {"opt": args.fuse_opt, "run": args.fuse_run}
    workdir = args.workdir or tempfile.mkdtemp(prefix="fuse-gen-")
    os.makedirs(workdir, exist_ok=True)
    passed = failed = mismatched = 0
    tally = {"sharded": 0, "refused": 0}
    t0 = time.time()
    for seed in parse_seeds(args.seeds):
        try:
            errs, d, mm = run_seed(seed, tools, workdir, args.keep,
                                   args.classic, args.late_mismatch,
                                   args.shards, tally)
            mismatched += mm
        except subprocess.TimeoutExpired as e:
            errs, d = [f"timeout: {e}"], os.path.join(workdir, f"seed{seed}")
        if errs:
            failed += 1
            print(f"FAIL seed {seed} ({d}):")
            for e in errs:
                print("  " + e.replace("\n", "\n    "))
        else:
            passed += 1
    if args.shards:
        print(f"sharded: {tally['sharded']} ran on {args.shards} shards, "
              f"{tally['refused']} refused by fuse-shard")
    print(f"seeds: {passed} passed, {failed} failed ({mismatched} with a "
          f"mismatched-size run; {time.time() - t0:.1f} s)")
    if not args.workdir and failed == 0:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
