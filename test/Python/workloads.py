"""Every pipeline of shared/WORKLOADS.md, written both ways."""

import numpy as np

import fuse
import fuse.compute as fc
from fuse import OpKind

# ---- @fuse.jit -----------------------------------------------------------


@fuse.jit
def jit_sumsq(x):
    return (x * x).sum()


@fuse.jit
def jit_dot(x, y):
    return (x * y).sum()


@fuse.jit
def jit_chain(x):
    return fuse.relu(1.5 * x + 0.25) * 0.5 + x


@fuse.jit
def jit_scan(x):
    return fuse.scan(x * x, op="add")


@fuse.jit
def jit_select(x):
    y = fuse.filter(x, lambda a: a > 0)
    return y, y.shape[0]


@fuse.jit
def jit_softmax_rows(X):
    e = fuse.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@fuse.jit
def jit_variance(x):
    return ((x - x.mean()) ** 2).mean()


@fuse.jit
def jit_logsumexp_rows(X):
    m = X.max(axis=1)
    return fuse.log(fuse.exp(X - m[:, None]).sum(axis=1)) + m


# ---- explicit (cuda.compute style) ---------------------------------------


def cc_sumsq(x):
    out = np.empty(1, x.dtype)
    fc.reduce_into(fc.TransformIterator(x, lambda a: a * a), out,
                   OpKind.PLUS, x.size, x.dtype.type(0))
    return out[0]


def cc_dot(x, y):
    out = np.empty(1, x.dtype)
    fc.reduce_into(fc.TransformIterator(fc.ZipIterator(x, y),
                                        lambda t: t[0] * t[1]),
                   out, OpKind.PLUS, x.size, x.dtype.type(0))
    return out[0]


def cc_chain(x):
    y = np.empty_like(x)
    fc.unary_transform(x, y, lambda a: fuse.relu(1.5 * a + 0.25) * 0.5 + a,
                       x.size)
    return y


def cc_scan(x):
    y = np.empty_like(x)
    fc.inclusive_scan(fc.TransformIterator(x, lambda a: a * a), y,
                      OpKind.PLUS, None, x.size)
    return y


def cc_select(x):
    y = np.empty_like(x)
    count = np.empty(1, np.int64)
    fc.select(x, y, count, lambda a: a > 0, x.size)
    return y[:count[0]], int(count[0])


def cc_softmax_rows(X):
    R, C = X.shape
    m = np.empty(R, X.dtype)
    fc.segmented_reduce(X, m, OpKind.MAXIMUM, -np.inf, R, C)
    e = np.empty(X.size, X.dtype)
    fc.binary_transform(X, fc.RowIterator(m, max(C, 1)), e,
                        lambda a, b: fuse.exp(a - b), X.size)
    s = np.empty(R, X.dtype)
    fc.segmented_reduce(e, s, OpKind.PLUS, 0, R, C)
    y = np.empty(X.size, X.dtype)
    fc.binary_transform(e, fc.RowIterator(s, max(C, 1)), y, OpKind.DIVIDES,
                        X.size)
    return y.reshape(R, C)


def cc_variance(x):
    n = x.size
    s = np.empty(1, x.dtype)
    fc.reduce_into(x, s, OpKind.PLUS, n, x.dtype.type(0))
    mean = s[0] / x.dtype.type(n) if n else x.dtype.type(np.nan)
    fc.reduce_into(fc.TransformIterator(
        fc.ZipIterator(x, fc.ConstantIterator(mean)),
        lambda t: (t[0] - t[1]) ** 2), s, OpKind.PLUS, n, x.dtype.type(0))
    return s[0] / x.dtype.type(n) if n else x.dtype.type(np.nan)


def cc_logsumexp_rows(X):
    R, C = X.shape
    m = np.empty(R, X.dtype)
    fc.segmented_reduce(X, m, OpKind.MAXIMUM, -np.inf, R, C)
    e = np.empty(X.size, X.dtype)
    fc.binary_transform(X, fc.RowIterator(m, max(C, 1)), e,
                        lambda a, b: fuse.exp(a - b), X.size)
    s = np.empty(R, X.dtype)
    fc.segmented_reduce(e, s, OpKind.PLUS, 0, R, C)
    y = np.empty(R, X.dtype)
    fc.binary_transform(s, m, y, lambda a, b: fuse.log(a) + b, R)
    return y


# ---- float64 references ---------------------------------------------------


def ref_sumsq(x):
    return (x.astype(np.float64) ** 2).sum()


def ref_dot(x, y):
    return (x.astype(np.float64) * y).sum()


def ref_chain(x):
    x = x.astype(np.float64)
    return np.maximum(1.5 * x + 0.25, 0) * 0.5 + x


def ref_scan(x):
    return np.cumsum(x.astype(np.float64) ** 2)


def ref_select(x):
    y = x[x > 0]
    return y, y.size


def ref_softmax_rows(X):
    X = X.astype(np.float64)
    e = np.exp(X - X.max(axis=1, keepdims=True)) if X.size else X
    return e / e.sum(axis=1, keepdims=True) if X.size else X


def ref_variance(x):
    return np.var(x.astype(np.float64)) if x.size else np.nan


def ref_logsumexp_rows(X):
    X = X.astype(np.float64)
    if X.shape[0] == 0:
        return np.zeros(0)
    m = X.max(axis=1)
    return np.log(np.exp(X - m[:, None]).sum(axis=1)) + m
