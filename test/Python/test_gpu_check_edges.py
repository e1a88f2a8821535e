"""The GPU check's value-edge section (gpu_check.edge_checks) on the CPU
backend: NumPy arrays in, so the same calls run the CPU pipelines, held to
the same expectations. The CPU backend follows the documented semantics
that the GPU check holds the GPU to, so this keeps the check's references
and tolerances honest on machines without a GPU (a wrong reference would
otherwise only show as a FAIL on the GPU machine)."""

import numpy as np

import gpu_check


class NumpyBackend:
    name = "numpy"

    def dev(self, a):
        return np.array(a)

    def host(self, a):
        return np.asarray(a)


def test_edge_checks_pass_on_the_cpu(capsys):
    passed, failed = gpu_check.passed, gpu_check.failed
    gpu_check.edge_checks(NumpyBackend(), numeric=True)
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    assert gpu_check.passed - passed == 30, out


def test_unsigned_checks_pass_on_the_cpu(capsys):
    """The unsigned and bool section (values above the signed range, exact
    NumPy results) on the CPU backend."""
    passed, failed = gpu_check.passed, gpu_check.failed
    gpu_check.unsigned_checks(NumpyBackend(), numeric=True)
    out = capsys.readouterr().out
    assert gpu_check.failed == failed, out
    assert gpu_check.passed - passed == 41, out
