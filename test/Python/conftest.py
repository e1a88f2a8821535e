"""Shared set-up: one temporary cache for the whole session (compiled
pipelines are shared across tests through it), inputs never zero."""

import os
import sys
import tempfile

# Run from a checkout without installing: the package is python/ of the
# checkout (this folder is test/Python).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "python"))

import numpy as np
import pytest

# Before anything compiles: point the cache at a fresh temporary folder.
_SESSION_CACHE = tempfile.mkdtemp(prefix="fuse-test-cache-")
os.environ["FUSE_CACHE_DIR"] = _SESSION_CACHE


@pytest.fixture(scope="session")
def session_cache():
    return _SESSION_CACHE


def rand(shape, dtype=np.float32, seed=0):
    """Uniform in [-1, 1), with no zeros."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape)
    x[x == 0] = 0.5
    return x.astype(dtype)


def sum_rtol(n):
    """Relative tolerance of a float32 sum of n terms. The CPU backend sums
    in blocks of 1024 (error ~ (n/1024 + 1024) ulp) and carries float32
    scans in float64 (docs/dialect.md, Numerics); the allowance that grows
    with n is kept as headroom for other backends."""
    return 1e-5 + 2e-9 * n
