"""fuse.topk, fuse.partition and fuse.compute.three_way_partition (and
make_three_way_partition) on NumPy arrays (the CPU backend) against
NumPy references (partition_check.py's, which the GPU checks share),
themselves checked here against plain Python loops: sizes 0, 1, 31 and
1000003, float32/float64 with NaN of both signs, infinities and both
zeros, signed and unsigned integers at the ends of their ranges, ties,
k = 0, 1, 5 and n, both orders, the inputs left as they were, the
errors; then the GPU path on the PyTorch stand-in of test_launch.py (the
checks a cache hit runs, what the entry writes straight into d_out)."""

import math

import numpy as np
import pytest

import fuse
import fuse.compute as fc
from fuse import OpKind
import gpu_check
import partition_check as P
from partition_check import (DTYPES, SIZES, check_partition,
                             check_three_way, check_topk, data, three_way_into,
                             top5, top_largest, top_smallest)
from test_gpu_check_edges import NumpyBackend
from test_launch import dev, host, torch  # noqa: F401 (fixture)

CPU = NumpyBackend()


def ks(n):
    return sorted({0, min(1, n), min(5, n), n})


def loop_order(x, largest):
    """The positions topk orders x by, from Python's sorted() with an
    explicit key: NaN (any sign) larger than every number, -0.0 equal to
    +0.0, equal elements by position."""
    def key(i):
        v = x[i].item()
        nan = isinstance(v, float) and math.isnan(v)
        if largest:
            return (0 if nan else 1, 0 if nan else -v, i)
        return (1 if nan else 0, 0 if nan else v, i)
    return np.array(sorted(range(len(x)), key=key), np.int64)


# ---- topk -------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_topk_matches_numpy(dt, n):
    x = data(dt, n)
    keep = x.copy()
    for k in ks(n):
        check_topk(top_largest(x, k), x, k, True)
        check_topk(top_smallest(x, k), x, k, False)
    if n >= 5:
        check_topk(top5(x), x, 5, True)
    assert x.tobytes() == keep.tobytes()


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_topk_reference_is_the_loop(dt):
    """The NumPy reference, and fuse.topk, give the positions of a Python
    sort by an explicit key."""
    for seed in range(4):
        x = data(dt, 31, seed=seed)
        for largest, f in ((True, top_largest), (False, top_smallest)):
            want = loop_order(x, largest)
            np.testing.assert_array_equal(P.topk_reference(x, 31, largest)[1],
                                          want)
            np.testing.assert_array_equal(f(x, 31)[1], want)


def test_topk_nan_zeros_and_ties():
    neg_nan = -np.abs(np.float32(np.nan))
    x = np.array([1, np.nan, neg_nan, np.inf, 0.0, -0.0, 1], np.float32)
    v, i = top_largest(x, 7)
    np.testing.assert_array_equal(i, [1, 2, 3, 0, 6, 4, 5])
    assert v.tobytes() == x[i].tobytes()          # -NaN and -0.0 kept
    v, i = top_smallest(x, 7)
    np.testing.assert_array_equal(i, [4, 5, 0, 6, 3, 1, 2])
    assert v.tobytes() == x[i].tobytes()
    v, i = top_largest(x, 2)
    assert np.isnan(v).all() and list(i) == [1, 2]


def test_topk_torch_conventions():
    x = np.array([3, 9, 1, 9, 4], np.int32)
    f = fuse.jit(lambda a: fuse.topk(a, 3, sorted=False) +
                 fuse.topk(a * 2, 2, largest=False))
    v, i, w, j = f(x)
    assert v.dtype == np.int32 and i.dtype == np.int64 and len(v) == 3
    np.testing.assert_array_equal(v, [9, 9, 4])
    np.testing.assert_array_equal(i, [1, 3, 4])
    np.testing.assert_array_equal(w, [2, 6])
    np.testing.assert_array_equal(j, [2, 0])
    b = np.array([False, True, False, True])
    v, i = fuse.jit(lambda a: fuse.topk(a, 3))(b)
    np.testing.assert_array_equal(v, [True, True, False])
    np.testing.assert_array_equal(i, [1, 3, 0])
    v, i = fuse.jit(lambda a: fuse.topk(a, a.shape[0]))(x)
    np.testing.assert_array_equal(i, [1, 3, 4, 0, 2])


@pytest.mark.parametrize("fn, arg, exc, msg", [
    (lambda a: fuse.topk(a, 4), np.ones(3, np.float32), ValueError,
     "fuse.topk: k is 4 but the input has only 3 elements"),
    (lambda a: fuse.topk(fuse.iota(3), 4), np.ones(3), ValueError,
     "fuse.topk: k is 4 but the input has only 3 elements"),
    (lambda a: fuse.topk(a, -1), np.ones(3), ValueError,
     "k must be >= 0, got -1"),
    (lambda a: fuse.topk(a, True), np.ones(3), TypeError,
     "k must be an integer, got a bool"),
    (lambda a: fuse.topk(a, 1.0), np.ones(3), TypeError,
     "k must be an integer, got float"),
    (lambda a: fuse.topk(a, a), np.ones(3, np.int64), TypeError,
     "got a 1-d int64 array"),
    (lambda a: fuse.topk(a, 1), np.ones((2, 3)), ValueError,
     "fuse.topk: the input must have rank 1, got rank 2"),
    (lambda a: fuse.topk(a, 1, largest="yes"), np.ones(3), TypeError,
     "largest must be True or False"),
    (lambda a: fuse.topk(a, 1, sorted=None), np.ones(3), TypeError,
     "sorted must be True or False"),
    (lambda a: fuse.topk(fuse.filter(a, lambda v: v > 0), 1), np.ones(3),
     ValueError, "known only while running"),
    (lambda a: fuse.topk(a, (a > 0).sum()), np.ones(3), ValueError,
     "k is computed while running"),
])
def test_topk_errors(fn, arg, exc, msg):
    with pytest.raises(exc, match=msg):
        fuse.jit(fn)(arg)


def test_topk_runtime_k_is_checked_before_each_run():
    x = np.arange(6, dtype=np.float64)
    np.testing.assert_array_equal(top_largest(x, 6)[1], [5, 4, 3, 2, 1, 0])
    with pytest.raises(ValueError, match="k is 7 but the input has only 6"):
        top_largest(x, 7)
    with pytest.raises(ValueError, match="k must be at least 0, got -2"):
        top_largest(x, -2)
    assert top_largest(x, 0)[0].shape == (0,)


# ---- partition --------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_partition_matches_numpy(dt, n):
    x = data(dt, n, seed=2)
    keep = x.copy()
    check_partition(P.part_above_one(x), x, x > 1)
    check_partition(P.part_pairs(x), x, x > 1)
    assert x.tobytes() == keep.tobytes()


def test_partition_reference_is_the_loop():
    for dt in DTYPES:
        x = data(dt, 31, seed=5)
        kept = [v for v in x if v > 1]
        rest = [v for v in x if not v > 1]     # NaN among the rest
        want = np.array(kept + rest, x.dtype)
        got, count = P.part_above_one(x)
        ref, rc = P.partition_reference(x, x > 1)
        assert got.tobytes() == want.tobytes() == ref.tobytes()
        assert count == rc == len(kept) and count.dtype == np.int64


def test_partition_predicates():
    x = np.array([5, -2, 7, 0, -9, 3], np.int64)
    mean_split = fuse.jit(lambda a: fuse.partition(a, lambda v: v > v.mean()))
    got, c = mean_split(x)
    np.testing.assert_array_equal(got, [5, 7, 3, -2, 0, -9])
    assert c == 3
    both = fuse.jit(lambda a, b: fuse.partition((a, b), lambda u, w: w))
    y = np.array([1, 2, 3, 4, 5, 6], np.float32)
    s = np.array([False, True, True, False, False, True])
    ga, gb, c = both(y, s)
    np.testing.assert_array_equal(ga, [2, 3, 6, 1, 4, 5])
    np.testing.assert_array_equal(gb, [True] * 3 + [False] * 3)
    assert c == 3
    by_other = fuse.jit(lambda a, b: fuse.partition(a, lambda v: v > b))
    got, c = by_other(x, np.array([0, 0, 9, 9, 9, 0], np.int64))
    np.testing.assert_array_equal(got, [5, 3, -2, 7, 0, -9])
    assert c == 2
    none = fuse.jit(lambda a: fuse.partition(a, lambda v: v > 100))
    got, c = none(x)
    np.testing.assert_array_equal(got, x)
    assert c == 0


@pytest.mark.parametrize("fn, args, exc, msg", [
    (lambda a: fuse.partition(a, lambda v: v * 2), (np.ones(3),), TypeError,
     "fuse.partition: the predicate must return booleans, got float64"),
    (lambda a: fuse.partition(a, 3), (np.ones(3),), TypeError,
     "pred must be a function"),
    (lambda a: fuse.partition(a, lambda v: True), (np.ones(3),), ValueError,
     "one boolean per element \\(elementwise\\), got 0-d booleans"),
    (lambda a: fuse.partition(a, lambda v: v > 0), (np.ones((2, 2)),),
     ValueError, "rank 1, got rank 2"),
    (lambda a: fuse.partition((), lambda: 0), (np.ones(3),), ValueError,
     "needs at least one array"),
    (lambda a, b: fuse.partition((a, b), lambda u, w: u > w),
     (np.ones(3), np.ones(4)), ValueError, "size mismatch"),
])
def test_partition_errors(fn, args, exc, msg):
    with pytest.raises(exc, match=msg):
        fuse.jit(fn)(*args)


# ---- compute.three_way_partition --------------------------------------------

FIRST, SECOND = P.below(2), P.below(10)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64,
                                np.uint32], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", SIZES)
def test_three_way_matches_numpy(dt, n):
    x = data(dt, n, seed=3)
    keep = x.copy()
    check_three_way(three_way_into(CPU, x, FIRST, SECOND), x, FIRST, SECOND)
    assert x.tobytes() == keep.tobytes()


def test_three_way_reference_is_the_loop():
    for dt in (np.float32, np.int32, np.uint64):
        x = data(dt, 31, seed=6)
        parts = ([], [], [])
        for v in x:
            parts[0 if v < 2 else 1 if v < 10 else 2].append(v)
        ref = P.three_way_reference(x, FIRST, SECOND)
        for part, want in zip(parts, ref[:3]):
            assert np.array(part, x.dtype).tobytes() == want.tobytes()
        assert ref[3:] == (len(parts[0]), len(parts[1]))


def test_three_way_cub_example():
    """CUB's example: the large items, the small ones, and the others in
    input order (not reversed)."""
    x = np.array([0, 2, 3, 9, 5, 2, 81, 8], np.int32)
    outs = [np.full(8, -1, np.int32) for _ in range(3)]
    c = np.zeros(2, np.int64)
    fc.three_way_partition(x, *outs, c, lambda a: a > 50, lambda a: a < 7, 8)
    assert list(c) == [1, 5]
    np.testing.assert_array_equal(outs[0], [81] + [-1] * 7)
    np.testing.assert_array_equal(outs[1], [0, 2, 3, 5, 2, -1, -1, -1])
    np.testing.assert_array_equal(outs[2], [9, 8] + [-1] * 6)


def test_three_way_forms_and_operators():
    x = np.array([True, False, False, True, True, False])
    outs = [np.zeros(6, bool) for _ in range(3)]
    c = np.zeros(2, np.int32)
    fc.three_way_partition(
        d_in=x, d_first_part_out=outs[0], d_second_part_out=outs[1],
        d_unselected_out=outs[2], d_num_selected_out=c,
        select_first_part_op=OpKind.LOGICAL_NOT,
        select_second_part_op=OpKind.IDENTITY, num_items=6)
    assert list(c) == [3, 3]
    assert not outs[0][:3].any() and outs[1][:3].all()
    y = np.arange(10, dtype=np.int64)
    outs = [np.full(10, -1, np.int64) for _ in range(3)]
    c = np.zeros(2, np.uint64)
    fc.three_way_partition(fc.TransformIterator(y, lambda a: a * 3), *outs,
                           c, lambda a: a % 2, lambda a: a % 3, 8)
    assert list(c) == [4, 0]                 # odd, then none of 0 mod 3
    np.testing.assert_array_equal(outs[0][:4], [3, 9, 15, 21])
    np.testing.assert_array_equal(outs[2][:5], [0, 6, 12, 18, -1])


def test_three_way_outputs_and_counts():
    """Parts converted to their outputs' dtype; outputs just large
    enough for their part, whose elements past it stay as they were."""
    x = data(np.float32, 31, seed=8)
    got = three_way_into(CPU, x, FIRST, SECOND, dtype=np.float64)
    assert got[0].dtype == np.float64
    check_three_way(got, x, FIRST, SECOND, dtype=np.float64)
    ref = P.three_way_reference(x, FIRST, SECOND)
    small = [np.full(len(r) + 2, 7, np.float32) for r in ref[:3]]
    c = np.zeros(2, np.int64)
    fc.three_way_partition(x, *small, c, FIRST, SECOND, len(x))
    for s, r in zip(small, ref[:3]):
        np.testing.assert_array_equal(s[:len(r)], r)
        np.testing.assert_array_equal(s[len(r):], [7, 7])


@pytest.mark.parametrize("change, exc, msg", [
    ({"d_num_selected_out": np.zeros(1, np.int64)}, ValueError,
     "d_num_selected_out: has 1 elements but 2 are needed"),
    ({"d_unselected_out": np.zeros(1, np.float32)}, ValueError,
     "d_unselected_out: has 1 elements but 2 were selected"),
    ({"select_first_part_op": lambda a: a * 2}, TypeError,
     "select_first_part_op must return booleans or integers"),
    ({"select_second_part_op": OpKind.PLUS}, ValueError,
     "not a unary operator"),
    ({"select_first_part_op": 3}, TypeError, "must be a fuse.OpKind or a "
     "function"),
    ({"num_items": -1}, ValueError, "num_items: must be >= 0"),
    ({"d_in": np.ones(2, np.float32)}, ValueError,
     "d_in: has 2 elements but num_items is 4"),
    ({"stream": 1}, ValueError, "stream= is for calls on CUDA arrays"),
])
def test_three_way_errors(change, exc, msg):
    kw = dict(d_in=np.array([1, 5, 20, 30], np.float32),
              d_first_part_out=np.zeros(4, np.float32),
              d_second_part_out=np.zeros(4, np.float32),
              d_unselected_out=np.zeros(4, np.float32),
              d_num_selected_out=np.zeros(2, np.int64),
              select_first_part_op=FIRST, select_second_part_op=SECOND,
              num_items=4)
    kw.update(change)
    with pytest.raises(exc, match=msg):
        fc.three_way_partition(**kw)


def test_make_three_way_partition_on_the_cpu():
    """The object form on NumPy arrays: the query answers 1, the call runs
    as the plain one (the storage unused) with the call's operators."""
    x = data(np.int64, 1000, seed=9)
    outs = [np.zeros(1000, np.int64) for _ in range(3)]
    c = np.zeros(2, np.int64)
    p = fc.make_three_way_partition(x, *outs, c, FIRST, SECOND)
    assert p(None, x, *outs, c, FIRST, SECOND, 1000) == 1
    assert p(np.empty(1, np.uint8), x, *outs, c, FIRST, SECOND, 1000) is None
    check_three_way((*outs, c), x, FIRST, SECOND)
    p(temp_storage=np.empty(1, np.uint8), d_in=x, d_first_part_out=outs[0],
      d_second_part_out=outs[1], d_unselected_out=outs[2],
      d_num_selected_out=c, select_first_part_op=SECOND,
      select_second_part_op=FIRST, num_items=1000)
    check_three_way((*outs, c), x, SECOND, FIRST)
    with pytest.raises(TypeError, match="must be a fuse.OpKind or a func"):
        fc.make_three_way_partition(x, *outs, c, "less", SECOND)


# ---- the GPU check's sections on the CPU ------------------------------------

def _cpu_run(section):
    passed, failed = gpu_check.passed, gpu_check.failed
    section()
    return gpu_check.passed - passed, gpu_check.failed - failed


def test_gpu_check_sections_pass_on_the_cpu(capsys):
    """partition_check's checks as gpu_check runs them, on NumPy arrays
    (sizes 0 and 31; the tests above take every size)."""
    ok, bad = _cpu_run(lambda: P.partition_checks(CPU, True, gpu_check,
                                                  sizes=[0, 31]))
    out = capsys.readouterr().out
    per_dtype = 2 * (len(ks(0)) + len(ks(31))) + 1 + 2 * 2
    assert bad == 0 and ok == len(DTYPES) * per_dtype, out
    ok, bad = _cpu_run(lambda: P.compute_checks(CPU, True, gpu_check))
    out = capsys.readouterr().out
    assert bad == 0 and ok == 3 * len(SIZES) + 3 + 1, out


# ---- the GPU path on the PyTorch stand-in -----------------------------------

def test_topk_and_partition_on_the_stand_in(torch):   # noqa: F811
    """Cache hits give the CPU results; a k beyond the length raises
    before any launch (the checks a hit runs); partition's count is a 0-d
    array computed by the entry."""
    x = data(np.float32, 1000, seed=11)
    dx = dev(torch, x)
    for k in (0, 3, 1000):
        v, i = top_largest(dx, k)
        check_topk((host(v), host(i)), x, k, True)
    n = len(torch.launches)
    with pytest.raises(ValueError, match="k is 1001 but the input has only"):
        top_largest(dx, 1001)
    with pytest.raises(ValueError, match="k must be at least 0, got -1"):
        top_largest(dx, -1)
    assert len(torch.launches) == n
    got = P.part_above_one(dx)
    check_partition(got, x, x > 1, host)
    assert tuple(got[1].shape) == ()


def test_three_way_writes_into_the_outputs_on_the_stand_in(torch):  # noqa
    """All three parts go straight into their d_out (the entry gets their
    pointers); a d_out of another dtype takes the copy path."""
    x = data(np.int32, 1000, seed=12)
    dx = dev(torch, x)
    outs = [dev(torch, np.zeros(1000, np.int32)) for _ in range(3)]
    c = dev(torch, np.zeros(2, np.int64))
    fc.three_way_partition(dx, *outs, c, FIRST, SECOND, 1000)
    assert torch.launches[-1]["outs"] == [o.data_ptr() for o in outs]
    check_three_way([host(o) for o in outs + [c]], x, FIRST, SECOND)
    wide = dev(torch, np.zeros(1000, np.int64))
    fc.three_way_partition(dx, outs[0], outs[1], wide, c, FIRST, SECOND,
                           1000)
    assert torch.launches[-1]["outs"][:2] == [o.data_ptr() for o in outs[:2]]
    assert torch.launches[-1]["outs"][2] != wide.data_ptr()
    ref = P.three_way_reference(x, FIRST, SECOND)[2]
    np.testing.assert_array_equal(host(wide)[:len(ref)], ref)


def test_three_way_takes_a_stream_on_the_stand_in(torch):  # noqa: F811
    """stream= is the launch's stream."""
    x = data(np.float32, 100, seed=13)
    dx = dev(torch, x)
    outs = [dev(torch, np.zeros(100, np.float32)) for _ in range(3)]
    c = dev(torch, np.zeros(2, np.int64))
    s = torch.cuda.Stream(0)
    fc.three_way_partition(dx, *outs, c, FIRST, SECOND, 100, stream=s)
    assert torch.launches[-1]["stream"] == s.cuda_stream
    check_three_way([host(o) for o in outs + [c]], x, FIRST, SECOND)
