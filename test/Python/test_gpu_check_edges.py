"""The GPU check's value-edge section (edge_check.edge_checks, run by
gpu_check.py), the algorithm checks of fuse.compute (sort_check.py,
searchsorted_check.py, histogram_check.py) and the histogram and bincount
checks on the CPU backend: NumPy arrays in, so the same calls run the CPU pipelines, held to
the same expectations. The CPU backend follows the documented semantics
that the GPU check holds the GPU to, so this keeps the check's references
and tolerances honest on machines without a GPU (a wrong reference would
otherwise only show as a FAIL on the GPU machine)."""

import numpy as np

import edge_check
import gpu_check
import histogram_check
import searchsorted_check
import sort_check


class NumpyBackend:
    name = "numpy"

    def dev(self, a):
        return np.array(a)

    def host(self, a):
        return np.asarray(a)

    def empty(self, shape, dtype):
        return np.zeros(shape, dtype)


def test_edge_checks_pass_on_the_cpu(capsys):
    passed, failed = gpu_check.passed, gpu_check.failed
    edge_check.edge_checks(NumpyBackend(), True, gpu_check)
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    assert gpu_check.passed - passed == 30, out


def test_unsigned_checks_pass_on_the_cpu(capsys):
    """The unsigned and bool section (values above the signed range, exact
    NumPy results) on the CPU backend."""
    passed, failed = gpu_check.passed, gpu_check.failed
    edge_check.unsigned_checks(NumpyBackend(), True, gpu_check)
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    assert gpu_check.passed - passed == 41, out


def test_compute_algorithm_checks_pass_on_the_cpu(capsys):
    """lower_bound/upper_bound, radix_sort, unique_by_key and
    histogram_even as the GPU check calls and verifies them, on NumPy
    arrays."""
    passed, failed = gpu_check.passed, gpu_check.failed
    searchsorted_check.compute_checks(NumpyBackend(), True, gpu_check)
    sort_check.compute_sort_checks(NumpyBackend(), True, gpu_check)
    sort_check.compute_unique_checks(NumpyBackend(), True, gpu_check)
    histogram_check.compute_checks(NumpyBackend(), True, gpu_check)
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    assert gpu_check.passed - passed == 8 + 11, out


def test_histogram_checks_pass_on_the_cpu(capsys):
    """The @fuse.jit histogram section (np.histogram on device arrays
    against NumPy), with the even-bin data at sizes 0 and 31 (the GPU runs
    every size; test_histogram.py the same data at every size)."""
    passed, failed = gpu_check.passed, gpu_check.failed
    histogram_check.histogram_checks(NumpyBackend(), True, gpu_check,
                                     sizes=[0, 31])
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    # weights: 4 dtypes x 2 (even, edges) at n = 31.
    assert gpu_check.passed - passed == 80 * 2 + 15 + 9 + 8, out


def test_bincount_checks_pass_on_the_cpu(capsys):
    """The bincount section (np.bincount on device arrays against NumPy,
    and its errors), with the per-dtype data at sizes 0 and 31."""
    passed, failed = gpu_check.passed, gpu_check.failed
    histogram_check.bincount_checks(NumpyBackend(), True, gpu_check,
                                    sizes=[0, 31])
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    # 9 dtypes x 2 sizes, 4 minlengths, 4 weights x 2 sizes, two runs,
    # fuse.bincount, the staged pair, 3 errors.
    assert gpu_check.passed - passed == 18 + 4 + 8 + 1 + 1 + 1 + 3, out


def test_comparator_sort_checks_pass_on_the_cpu(capsys):
    """Sorts by a comparator (sizes around the merge sort's tiles, f16/bf16
    keys, compute.merge_sort; comparators of one function of each key,
    which the GPU sorts by that key, two that keep the merge-sort kernels,
    and one that is no order, whose positions must stay in range) on NumPy
    arrays."""
    passed, failed = gpu_check.passed, gpu_check.failed
    sort_check.comparator_sort_checks(NumpyBackend(), True, gpu_check)
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    assert gpu_check.passed - passed == 59 + 36 + 9, out


def test_check_parts_filter(capsys, monkeypatch):
    """FUSE_GPU_CHECKS keeps the named parts in order and fails on a name
    that is no part (a typo must not run nothing and pass)."""
    B = NumpyBackend()
    every = [name for name, _ in gpu_check.parts(B, True, gpu_check)]
    assert "segments" in every and len(every) == len(set(every))
    monkeypatch.setenv("FUSE_GPU_CHECKS", "segments_compute,segments")
    passed, failed = gpu_check.passed, gpu_check.failed
    got = [n for n, _ in gpu_check.selected_parts(B, True, gpu_check)]
    assert got == ["segments", "segments_compute"]
    assert (gpu_check.passed, gpu_check.failed) == (passed + 2, failed)
    monkeypatch.setenv("FUSE_GPU_CHECKS", "segments,segmnts")
    got = [n for n, _ in gpu_check.selected_parts(B, True, gpu_check)]
    assert got == ["segments"]
    assert gpu_check.failed == failed + 1
    assert "FAIL FUSE_GPU_CHECKS part segmnts" in capsys.readouterr().out
    gpu_check.failed = failed
    monkeypatch.delenv("FUSE_GPU_CHECKS")
    assert len(gpu_check.selected_parts(B, True, gpu_check)) == len(every)
