"""Sizes the CPU backend cannot allocate: a clear error before the call,
never a crash of the process (the compiled code's malloc is unchecked)."""
import numpy as np
import pytest

import fuse


def _ramp():
    return fuse.jit(lambda n: fuse.iota(n, dtype=np.float32))


def test_sane_size_runs():
    np.testing.assert_array_equal(_ramp()(5), np.arange(5, dtype=np.float32))


@pytest.mark.parametrize("n", [2 ** 40])
def test_more_than_memory_is_memory_error(n):
    with pytest.raises(MemoryError, match="result 0: 1099511627776 elements "
                       "of float32 take 4398046511104 bytes, more than this "
                       "machine's memory"):
        _ramp()(n)


@pytest.mark.parametrize("n", [2 ** 61, 2 ** 62])
def test_byte_count_overflow_is_memory_error(n):
    with pytest.raises(MemoryError, match=r"more than 2\^63 - 1"):
        _ramp()(n)


def test_negative_size_is_value_error():
    with pytest.raises(ValueError, match="result 0: argument 'n' is -3, but "
                       "it sizes the result and cannot be negative"):
        _ramp()(-3)
