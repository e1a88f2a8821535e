# Runs every WORKLOADS pipeline of examples/ with and without fusion on
# random inputs and checks both against a float64 NumPy reference.
# RUN: %python %s %fuse_src_root/examples %t
# REQUIRES: numpy
import os
import subprocess
import sys

import numpy as np

examples, tmp = sys.argv[1], sys.argv[2]


def ref_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def ref_lse(x):
    m = x.max(axis=1)
    return np.log(np.exp(x - m[:, None]).sum(axis=1)) + m


CASES = {
    # name: (arg shapes, reference, relative tolerance)
    "sumsq": (["1001"], lambda x: np.sum(x * x), 1e-5),
    "dot": (["1001", "1001"], lambda x, y: np.sum(x * y), 1e-5),
    # float32 cancellation in relu(.)*0.5 + x near x = -1/6.
    "chain": (["1001"], lambda x: np.maximum(1.5 * x + 0.25, 0) * 0.5 + x, 1e-5),
    "scan": (["1001"], lambda x: np.cumsum(x * x), 1e-5),
    "select": (["1001"], lambda x: x[x > 0], 0.0),
    "variance": (["1001"], lambda x: np.var(x), 1e-5),
    "softmax_rows": (["7x33"], ref_softmax, 1e-6),
    "logsumexp_rows": (["7x33"], ref_lse, 1e-6),
}

failed = False
for name, (shapes, ref, tol) in CASES.items():
    src = os.path.join(examples, name + ".mlir")
    results = {}
    for mode in ("fused", "unfused"):
        out = os.path.join(tmp, name, mode)
        cmd = ["fuse-run", src, "--out=" + out, "--save-inputs", "--seed=7"]
        cmd += ["--arg=rand:" + s for s in shapes]
        if mode == "unfused":
            cmd.append("--no-fusion")
        subprocess.run(cmd, check=True)
        args = [np.load(os.path.join(out, "arg%d.npy" % i)).astype(np.float64)
                for i in range(len(shapes))]
        results[mode] = np.load(os.path.join(out, "result0.npy"))
    want = np.asarray(ref(*args))
    for mode, got in results.items():
        if got.shape != want.shape:
            print("FAIL %s %s: shape %s, want %s" % (name, mode, got.shape,
                                                    want.shape))
            failed = True
            continue
        # |got - want| <= tol * (|want| + 1e-3): relative, with a floor for
        # map outputs that cross zero.
        err = np.max(np.abs(got - want) / (np.abs(want) + 1e-3)) \
            if want.size else 0.0
        ok = err <= tol if tol else np.array_equal(got, want.astype(got.dtype))
        print("%s %s %s: max rel err %.3g" % ("ok" if ok else "FAIL", name,
                                              mode, err))
        failed |= not ok
sys.exit(1 if failed else 0)
