"""scripts/pipeline_torch.py without torch: its translations of
gen-pipelines programs run on a NumPy stand-in for the few torch functions
they use, against the generator's own NumPy evaluation (its compare, its
tolerance rule); the helpers' integer and rounding tricks on edge values.
CPU torch itself: bench/random_sweep.py check A:B (bench/README.md)."""

import collections
import os
import sys
import types

import ml_dtypes
import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# appended: scripts/doctest.py must not hide the standard library's
sys.path.append(os.path.join(ROOT, "scripts"))
import pipeline_torch as pt  # noqa: E402

GP = pt.load_gen()


# -- the stand-in: torch's semantics for what the translations call -----------
class Tn(np.ndarray):
    """An ndarray with the tensor methods the translations use; 0-d
    results and elements stay arrays (torch gives 0-d tensors)."""

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        return np.asarray(arr).view(Tn)

    def __getitem__(self, idx):
        return np.asarray(super().__getitem__(idx)).view(Tn)

    def to(self, dt):
        return np.asarray(self).astype(dt).view(Tn)

    def contiguous(self):
        return np.array(self, order="C").view(Tn)

    def clone(self):
        return np.array(self).view(Tn)

    def numel(self):
        return self.size


def w(f):
    """f with its results (one or a tuple) as Tn."""
    def g(*a, **k):
        with np.errstate(all="ignore"):
            return np.asarray(f(*a, **k)).view(Tn)
    return g


Sorted = collections.namedtuple("Sorted", "values indices")


def _sort(x, stable=True, descending=False, dim=-1):
    x = np.asarray(x)
    if descending:  # stable: ties keep their order, as torch's
        p = (len(x) - 1 - np.argsort(x[::-1], kind="stable"))[::-1]
    else:
        p = np.argsort(x, kind="stable")
    return Sorted(x[p].view(Tn), p.view(Tn))


def _searchsorted(s, v, right=False):
    """torch's binary search (lower/upper bound from lo = 0, hi = n), which
    also fixes the positions in an unsorted array."""
    s, v = np.asarray(s), np.asarray(v)
    lo, hi = np.zeros(v.shape, np.int64), np.full(v.shape, len(s), np.int64)
    while (lo < hi).any():
        live = lo < hi
        mid = lo + ((hi - lo) >> 1)
        x = s[np.where(live, mid, 0)] if len(s) else v
        go = ~(x > v) if right else ~(x >= v)
        lo, hi = np.where(live & go, mid + 1, lo), np.where(live & ~go, mid,
                                                           hi)
    return lo.view(Tn)


def _cum(f):
    return lambda x, d: Sorted(w(f.accumulate)(x, axis=d), None)


def _axis(f):
    return w(lambda x, dim=None, dtype=None: f(x, axis=dim, dtype=dtype))


T = types.SimpleNamespace(
    float16=np.float16, bfloat16=ml_dtypes.bfloat16, float32=np.float32,
    float64=np.float64, bool=np.bool_, int8=np.int8, int16=np.int16,
    int32=np.int32, int64=np.int64,
    full=w(lambda shape, v, dtype, device=None: np.full(shape, v, dtype)),
    arange=w(lambda n, device=None: np.arange(n)),
    where=w(np.where), maximum=w(np.maximum), minimum=w(np.minimum),
    abs=w(np.abs), sqrt=w(np.sqrt), exp=w(np.exp), log=w(np.log),
    tanh=w(np.tanh), isnan=w(np.isnan),
    clamp=w(lambda x, min=None, max=None: np.clip(x, min, max)),
    narrow=w(lambda x, d, s, n: np.take(x, np.arange(s, s + n), axis=d)),
    reshape=w(np.reshape), permute=w(np.transpose),
    broadcast_to=w(np.broadcast_to),
    cat=w(lambda xs, d: np.concatenate(xs, axis=d)),
    sum=_axis(np.sum), prod=_axis(np.prod),
    cumsum=w(lambda x, d, dtype=None: np.cumsum(x, axis=d, dtype=dtype)),
    cumprod=w(lambda x, d, dtype=None: np.cumprod(x, axis=d, dtype=dtype)),
    amax=w(lambda x, dim=None: np.amax(x, axis=dim)),
    amin=w(lambda x, dim=None: np.amin(x, axis=dim)),
    cummax=_cum(np.maximum), cummin=_cum(np.minimum), sort=_sort,
    searchsorted=_searchsorted, argmax=w(np.argmax),
    bincount=w(lambda x, minlength=0: np.bincount(x, minlength=minlength)))


def host_args(args):
    """The generator's arguments as the stand-in's tensors (unsigned data
    as the signed dtype of its width, as for torch)."""
    return [int(v.arr) if v.kind == "scalar" else
            np.asarray(GP.file_array(v), order="C").view(Tn) for v in args]


def run_seed(g):
    """(translated?, the first difference from the reference or None)."""
    text, outs = g.build()
    tr = pt.translate(text)
    if tr.source is None:
        return False, None
    with np.errstate(all="ignore"):
        res = pt.load(tr.source, T)(*host_args(g.args))
    for i, (r, v) in enumerate(zip(res, outs)):
        m = GP.compare(np.asarray(r), v, f"seed {g.seed} result{i}")
        if m:
            return True, m + "\n" + tr.source
    return True, None


# -- programs -----------------------------------------------------------------
# seeds whose programs a wrong helper fails (gathers out of range, exclusive
# scans, reductions with an init, histograms, bitwise folds of odd
# lengths, unsigned division), then a stride of the rest
SEEDS = [6, 25, 43, 48, 49, 53, 57, 108, 118, 119, 138, 207, 208] + \
    list(range(0, 80, 3))


@pytest.mark.parametrize("gpu", [False, True])
def test_programs_match_the_generator(gpu):
    """Seeds of both modes (i1 arguments and results only without --gpu),
    every flavor: each translation agrees with the NumPy evaluation."""
    done = 0
    for seed in SEEDS:
        translated, err = run_seed(GP.Gen(seed, gpu=gpu))
        assert err is None, err
        done += translated
    assert done >= 0.85 * len(SEEDS), f"{done} of {len(SEEDS)} translated"


def test_tile_boundary_sizes():
    """Larger inputs (differential.py's tile-boundary sizes: 4099, 70001,
    3x1025, ...): sums and scans over thousands of elements."""
    sys.path.append(os.path.join(ROOT, "scripts", "gpu"))
    import differential
    for seed in range(1, 40, 3):
        assert run_seed(differential.sized_gen(GP, seed))[1] is None


def test_untranslatable_and_dead_ops():
    """A bitwise scan of i32 has no torch form; dead, it does not matter."""
    head = "func.func @main(%arg0: tensor<?xi32>) -> (tensor<?xi32>) {\n"
    scan = "%v1 = fuse.scan inclusive xor %arg0 : tensor<?xi32> -> " \
        "tensor<?xi32>\n"
    live = pt.translate(head + scan + "return %v1 : tensor<?xi32>\n}\n")
    assert live.source is None and "bitwise cumulative" in live.reason
    dead = pt.translate(head + scan + "%v2 = fuse.scan inclusive add %arg0 "
                        ": tensor<?xi32> -> tensor<?xi32>\nreturn %v2 : "
                        "tensor<?xi32>\n}\n")
    assert dead.source is not None and "xor" not in dead.source
    x = np.array([5, -3, 7], np.int32).view(Tn)
    assert list(pt.load(dead.source, T)(x)[0]) == [5, 2, 9]


def test_results_are_distinct_tensors():
    """fuse writes every result to a buffer of its own: a result that is an
    argument or an earlier result (identity maps, a value returned twice)
    is cloned, so that torch does the same writes; others only contiguous."""
    src = pt.translate(
        "func.func @main(%arg0: tensor<?xf32>) -> (tensor<?xf32>, "
        "tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {\n"
        "%v1 = fuse.map %arg0 : tensor<?xf32> -> tensor<?xf32> {\n"
        "^bb0(%a: f32):\n%t = arith.addf %a, %a : f32\nfuse.yield %t : f32\n}\n"
        "%v2 = fuse.map %v1 : tensor<?xf32> -> tensor<?xf32> {\n"
        "^bb0(%b: f32):\nfuse.yield %b : f32\n}\n"
        "%v3 = fuse.map %arg0 : tensor<?xf32> -> tensor<?xf32> {\n"
        "^bb0(%c: f32):\nfuse.yield %c : f32\n}\n"
        "return %v1, %v2, %v3, %v1 : tensor<?xf32>, tensor<?xf32>, "
        "tensor<?xf32>, tensor<?xf32>\n}\n").source
    ret = src.strip().splitlines()[-1]
    assert ret.count(".contiguous()") == 1 and ret.count(".clone()") == 3, ret
    x = np.array([1.5, -2.0], np.float32).view(Tn)
    outs = pt.load(src, T)(x)
    assert [list(o) for o in outs] == [[3.0, -4.0], [3.0, -4.0],
                                       [1.5, -2.0], [3.0, -4.0]]
    assert len({id(o) for o in outs} | {id(x)}) == 5


# -- the helpers' tricks on edge values ---------------------------------------
def helpers(*names):
    ns = {"T": T}
    exec(pt.helper_source(names), ns)
    return types.SimpleNamespace(**ns)


def edge_ints(w, n=3000, seed=1):
    """Random w-bit patterns and the edges (0, 1, the sign boundary, all
    ones), as signed storage."""
    rng = np.random.default_rng(seed)
    u = rng.integers(0, 2**w - 1, size=n, dtype=np.uint64, endpoint=True)
    edges = [0, 1, 2, 3, 2**(w - 1) - 1, 2**(w - 1), 2**(w - 1) + 1,
             2**w - 2, 2**w - 1]
    u = np.concatenate([u, np.array(edges, np.uint64)])
    return u.astype(GP.UNS[w]).view(GP.SGN[w])


@pytest.mark.parametrize("w", [8, 16, 32, 64])
def test_unsigned_division_and_shift(w):
    h = helpers("_divu", "_divu64", "_shru")
    a = edge_ints(w)
    b = np.roll(edge_ints(w, seed=2), 5) | GP.SGN[w](1)   # as the generator
    ua, ub = a.view(GP.UNS[w]), b.view(GP.UNS[w])
    A, B = a.view(Tn), b.view(Tn)
    with np.errstate(all="ignore"):
        q = h._divu64(A, B, False) if w == 64 else \
            h._divu(A, B, 2**w - 1, False)
        r = h._divu64(A, B, True) if w == 64 else \
            h._divu(A, B, 2**w - 1, True)
        k = (edge_ints(w, seed=4).view(GP.UNS[w]) % GP.UNS[w](w)).view(
            GP.SGN[w]).view(Tn)   # every amount, 0 included
        s = h._shru(A, k, 2**(w - 1) - 1)
    assert np.array_equal(np.asarray(q).view(GP.UNS[w]), ua // ub)
    assert np.array_equal(np.asarray(r).view(GP.UNS[w]), ua % ub)
    assert np.array_equal(np.asarray(s).view(GP.UNS[w]),
                          ua >> k.view(GP.UNS[w]))


def test_rounding_once():
    """_rto (f64 to f16/bf16 through round-to-odd f32) and _u64f (u64 to
    f64) round once, as NumPy and ml_dtypes do."""
    h = helpers("_rto", "_u64f")
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2**64 - 1, size=20000, dtype=np.uint64,
                     endpoint=True).view(np.float64)
    x = np.concatenate([x[np.isfinite(x) & (np.abs(x) < 1e39)],
                        1 + np.array([2**-8 + 2**-40, 2**-11 + 2**-40, 0.0]),
                        [np.inf, -np.inf, np.nan, 65520.0, 3.4e38, 1e-320]])
    for dt in (np.float16, ml_dtypes.bfloat16):
        with np.errstate(all="ignore"):
            got = np.asarray(h._rto(x.view(Tn), dt))
            want = x.astype(dt)
        assert np.array_equal(got.view(np.uint16)[~np.isnan(want)],
                              want.view(np.uint16)[~np.isnan(want)])
        assert np.isnan(got[np.isnan(want)].astype(np.float32)).all()
    u = edge_ints(64)
    got = np.asarray(h._u64f(u.view(Tn)))
    assert np.array_equal(got, u.view(np.uint64).astype(np.float64))


@pytest.mark.parametrize("dt", ["f16", "bf16", "f32", "f64"])
def test_float_sort_and_search_keys(dt):
    """_fkey orders floats as CUB's radix sort (gen-pipelines'
    sort_order: -0.0 == +0.0, NaN by its sign bit); _skey as fuse's search
    (NaN after every number)."""
    h = helpers("_fkey", "_skey")
    w = GP.WIDTH[dt]
    vals = [0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 0.25, -2.0, 1.5, -0.0]
    x = np.array(vals, np.float64).astype(GP.NP[dt])
    nan = np.array([np.nan], np.float32).astype(GP.NP[dt]).view(GP.UNS[w])
    x = np.concatenate([x, nan.view(GP.NP[dt]),
                        (nan | GP.UNS[w](1 << (w - 1))).view(GP.NP[dt])])
    it, m = getattr(np, f"int{w}"), -2**(w - 1)
    key = np.asarray(h._fkey(x.view(Tn), it, m))
    for desc in (False, True):
        want = GP.sort_order(x, dt, desc)
        assert np.array_equal(np.asarray(_sort(key, descending=desc)[1]),
                              want)
    srt = x[GP.sort_order(x, dt, False)]
    srt = srt[~np.isnan(srt.astype(np.float32))]     # one NaN, at the end
    srt = np.concatenate([srt, x[-2:-1]])
    skey = np.asarray(h._skey(srt.view(Tn), it, m))
    nkey = np.asarray(h._skey(x.view(Tn), it, m))
    for right in (False, True):
        assert np.array_equal(np.asarray(_searchsorted(skey, nkey, right)),
                              GP.search_positions(srt, x, right))


def test_segments_argmax_and_inits():
    """_seg against the dialect's definition (lo = clamp(st, 0, n), hi =
    clamp(en, lo, n); overlapping, reversed, clamped and empty segments);
    _argext's first maximum strictly above the init; _mm's init and empty
    input; _hist's bins."""
    h = helpers("_seg", "_argext", "_mm", "_hist")
    x = np.array([5, -2, 9, 9, -7, 3], np.int32)
    st = np.array([0, 2, -4, 5, 4, 7, -2**31, 3], np.int32)
    en = st + np.array([3, 300, 5, -1, 0, 2, 1, 2], np.int32)
    parts = [x[min(max(s, 0), 6):min(max(e, min(max(s, 0), 6)), 6)]
             for s, e in zip(st.astype(np.int64), en.astype(np.int64))]
    big, small = np.int32(2**31 - 1), np.int32(-2**31)
    for kind, want in (("add", [p.sum() for p in parts]),
                       ("max", [p.max(initial=small) for p in parts]),
                       ("min", [p.min(initial=big) for p in parts]),
                       ("last", [p[-1] if p.size else 42 for p in parts])):
        ident = {"add": 0, "max": small, "min": big, "last": 42}[kind]
        got = h._seg(x.view(Tn), st.view(Tn), en.view(Tn), kind,
                     np.asarray(ident, np.int32).view(Tn), np.int64)
        assert list(np.asarray(got)) == want, kind
    ninf = np.asarray(-np.inf).view(Tn)
    for xs, init, k in (([1.0, 3.0, 3.0, 2.0], ninf, 1),
                        ([-np.inf, -np.inf], ninf, -1), ([], ninf, -1),
                        ([0.5, 0.25], np.asarray(0.5).view(Tn), -1)):
        x = np.array(xs).view(Tn)
        v, i = h._argext(x, x, np.arange(len(xs)).view(Tn), init, init,
                         np.asarray(-1).view(Tn))
        assert int(i) == k and float(v) == (xs[k] if k >= 0 else init)
    m = np.array([[1, 7], [3, -4]]).view(Tn)
    assert list(np.asarray(h._mm(m, (0,), True, np.asarray(5).view(Tn)))) \
        == [5, 7]
    e = np.zeros((0, 3)).view(Tn)
    assert list(np.asarray(h._mm(e, (0,), False, np.asarray(2.0).view(
        Tn)))) == [2.0] * 3
    v = np.array([[-1, 0, 3], [7, 3, 2**20]], np.int64).view(Tn)
    assert list(np.asarray(h._hist(v, 4, np.int32))) == [1, 0, 0, 2]


# -- bench/random_sweep.py's parts that need no GPU ---------------------------
def sweep():
    sys.path.append(os.path.join(ROOT, "bench"))
    import random_sweep
    return random_sweep


def test_sweep_sizes_and_redraw():
    """Manifest size expressions as fuse-run-aot evaluates them; inputs
    drawn again from the recorded random states are the same arrays."""
    rs = sweep()
    env = {"in0_d0": 10, "in0_d1": 3, "in1": 7}
    assert rs.size_of(["in0_d0 * in0_d1", "ceildiv(in1, 2)", "div(-7, 2)",
                       "floordiv(-7, 2)", "rem(-7, 2)", "max(in1, 9) - 1"],
                      env) == [30, 4, -3, -4, -1, 8]
    sizes = (1000, (7, 9), (2, 3, 5))
    for seed in (3, 9, 16, 40):
        g, draws = rs.recording_gen(GP, seed, sizes)
        g.build()
        meta = {"seed": seed, "sizes": [1000, [7, 9], [2, 3, 5]], "args": [
            {"kind": "scalar", "value": int(v.arr)} if v.kind == "scalar"
            else {"kind": "tensor", "draw": draws[v.name], "crc": rs.crc(
                v.arr)} for v in g.args]}
        for a, b in zip(rs.redraw(GP, meta), g.args):
            assert np.array_equal(a.arr, b.arr) and a.dt == b.dt


def test_bf16_draws_round_through_f32():
    """bf16 inputs are the generator's uniform draws rounded to f32, then
    to bf16: the same bits whatever ml_dtypes version rounds f64 directly
    (the sweep draws its inputs again on the GPU machine). 2^20 draws
    include values where the two roundings differ."""
    import random
    g = GP.Gen(5, gpu=True, sizes=(1 << 20, (8, 8), (2, 2, 2)))
    g.r = random.Random(11)
    st = g.r.getstate()
    v = g.make_input("bf16", (1 << 20,), False)
    g.r.setstate(st)
    rng = np.random.default_rng(g.r.randrange(1 << 30))
    u = rng.uniform(-1, 1, size=1 << 20)
    want = u.astype(np.float32).astype(ml_dtypes.bfloat16)
    want[want == 0] = ml_dtypes.bfloat16(0.5)
    direct = u.astype(ml_dtypes.bfloat16)
    assert (direct.view(np.uint16) != want.view(np.uint16)).any()
    got = np.asarray(v.arr)
    if not np.array_equal(got.view(np.uint16), want.view(np.uint16)):
        # scaled by 4 (exact in bf16) on the generator's other branch
        want4 = (want.astype(np.float32) * 4).astype(ml_dtypes.bfloat16)
        assert np.array_equal(got.view(np.uint16), want4.view(np.uint16))


def test_sweep_report(tmp_path, capsys):
    rs = sweep()
    recs = [{"seed": s, "ops": ["map"], "status": "pass", "fuse_us": 100.0,
             "eager_us": 300.0, "compile_us": c, "bytes": 2**28}
            for s, c in ((1, 150.0), (2, 80.0), (3, 130.0))]
    recs.append({"seed": 4, "ops": ["sort"], "status": "fail", "why": "x"})
    # torch.compile wrong, fuse right: passed, outside the ratios
    recs.append({"seed": 5, "ops": ["map"], "status": "compile-wrong",
                 "why": "torch.compile vs torch eager: y", "fuse_us": 1.0,
                 "eager_us": 9.0, "bytes": 2**20})
    (tmp_path / "results-0.jsonl").write_text(
        "".join(rs.json.dumps(r) + "\n" for r in recs))
    rc = rs.report(types.SimpleNamespace(state=str(tmp_path), dir=None,
                                         causes=None))
    out = capsys.readouterr().out
    assert rc == 1 and "median 1.30x" in out and "min 0.80x" in out
    assert "over 3 programs" in out and "PEER seed5: fuse 1.0 us" in out
    assert "(fuse agrees; not in the ratios): seeds [5]" in out
    assert "NOT met: seeds [2]" in out and out.endswith("4 passed, 1 failed\n")


def test_sweep_recompile(tmp_path, capsys):
    """recompile runs the given compiler on every kept program's prog.mlir
    and fails a program whose result count is not meta.json's, or whose
    compile fails (a stand-in compiler: no CUDA toolkit needed)."""
    rs = sweep()
    fc = tmp_path / "fc.py"
    fc.write_text(
        "#!/usr/bin/env python3\nimport json, sys\n"
        "src, out = sys.argv[1], sys.argv[sys.argv.index('-o') + 1]\n"
        "text = open(src).read()\n"
        "if 'bad' in text:\n    sys.exit('error: bad program')\n"
        "n = text.count('result')\n"
        "json.dump({'entries': [{'results': [{}] * n}]}, "
        "open(out + '.json', 'w'))\n")
    fc.chmod(0o755)
    progs = {1: "result result", 2: "result", 3: "bad"}
    for s, text in progs.items():
        d = tmp_path / "f" / f"seed{s}"
        d.mkdir(parents=True)
        (d / "prog.mlir").write_text(text)
        (d / "meta.json").write_text(rs.json.dumps({"results": [{}, {}]}))
    (tmp_path / "f" / "summary.json").write_text(
        rs.json.dumps({"seeds": [1, 2, 3]}))
    args = types.SimpleNamespace(dir=str(tmp_path / "f"), jobs=1,
                                 fuse_compile=str(fc))
    assert rs.recompile(args) == 1
    out = capsys.readouterr().out
    assert "FAIL seed2: 1 results, meta.json has 2" in out
    assert "FAIL seed3: error: bad program" in out
    assert out.endswith("recompiled: 1 passed, 2 failed\n")
