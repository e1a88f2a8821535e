"""The compile cache: in-process hits, cross-process disk hits, corrupted
entries rebuilt, concurrent compiles of one pipeline."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fuse
from fuse import _cache, _cpu, _tools

PKG = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "python")

# A pipeline no other test uses, run in child processes.
CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, %r)
    import numpy as np, fuse
    @fuse.jit
    def f(x, y):
        return (fuse.maximum(x, y) * 3.0 - 1.0).sum()
    x = np.arange(1000, dtype=np.float64); y = 500.0 - x
    r = f(x, y)
    ok = abs(r - (np.maximum(x, y) * 3.0 - 1.0).sum()) < 1e-6
    print(json.dumps({"ok": bool(ok), **fuse.stats}))
""" % PKG)


def run_child(cache_dir, n=1):
    env = dict(os.environ, FUSE_CACHE_DIR=cache_dir)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(n)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out.strip().splitlines()[-1]))
    return outs


def entries(cache_dir):
    root = os.path.join(cache_dir, "v1")
    return [os.path.join(root, d, k) for d in os.listdir(root)
            if d != "tmp" for k in os.listdir(os.path.join(root, d))]


def test_second_call_does_not_recompile():
    @fuse.jit
    def g(x):
        return (x - 7).min()
    x = np.arange(5, 50, dtype=np.int32)
    before = dict(fuse.stats)
    assert g(x) == -2
    mid = dict(fuse.stats)
    assert mid["compiles"] + mid["disk_hits"] == \
        before["compiles"] + before["disk_hits"] + 1
    for _ in range(3):
        assert g(x[3:]) == 1
    assert fuse.stats["compiles"] == mid["compiles"]
    assert fuse.stats["disk_hits"] == mid["disk_hits"]

    # The same pipeline traced again (new function object): memory hit.
    @fuse.jit
    def g2(x):
        return (x - 7).min()
    assert g2(x) == -2
    assert fuse.stats["compiles"] == mid["compiles"]
    assert fuse.stats["memory_hits"] > mid["memory_hits"]


def test_new_signature_compiles_once():
    @fuse.jit
    def h(x):
        return x * 2
    c0 = fuse.stats["compiles"] + fuse.stats["disk_hits"]
    np.testing.assert_array_equal(h(np.arange(4, dtype=np.int16)),
                                  np.arange(4, dtype=np.int16) * 2)
    np.testing.assert_array_equal(h(np.arange(4.0)), np.arange(4.0) * 2)
    np.testing.assert_array_equal(h(np.ones((2, 3))), np.ones((2, 3)) * 2)
    assert fuse.stats["compiles"] + fuse.stats["disk_hits"] == c0 + 3


def test_second_process_hits_disk(tmp_path):
    d = str(tmp_path)
    (first,) = run_child(d)
    assert first["ok"] and first["compiles"] == 1
    (second,) = run_child(d)
    assert second["ok"] and second["compiles"] == 0
    assert second["disk_hits"] == 1


@pytest.mark.parametrize("how", ["truncate", "garble", "manifest",
                                 "no_library"])
def test_corrupted_entry_is_rebuilt(tmp_path, how):
    d = str(tmp_path)
    run_child(d)
    (entry,) = entries(d)
    with open(os.path.join(entry, "manifest.json")) as f:
        lib = os.path.join(entry, json.load(f)["library"])
    if how == "truncate":
        with open(lib, "r+b") as f:
            f.truncate(100)
    elif how == "garble":
        with open(lib, "r+b") as f:
            f.seek(2000)
            f.write(b"\xff" * 64)
    elif how == "manifest":
        with open(os.path.join(entry, "manifest.json"), "w") as f:
            f.write("{not json")
    else:
        os.remove(lib)
    (again,) = run_child(d)
    assert again["ok"] and again["compiles"] == 1
    (after,) = run_child(d)
    assert after["ok"] and after["compiles"] == 0


def test_concurrent_processes(tmp_path):
    d = str(tmp_path)
    outs = run_child(d, n=4)
    assert all(o["ok"] for o in outs)
    assert len(entries(d)) == 1
    leftovers = os.listdir(os.path.join(d, "v1", "tmp"))
    assert leftovers == []
    (after,) = run_child(d)
    assert after["compiles"] == 0


def test_cache_dir_env(tmp_path, monkeypatch):
    monkeypatch.setenv("FUSE_CACHE_DIR", str(tmp_path / "c"))
    assert fuse.cache_root() == str(tmp_path / "c" / "v1")
    monkeypatch.delenv("FUSE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert fuse.cache_root() == str(tmp_path / "x" / "fuse" / "v1")


def test_key_depends_on_ir_and_tool():
    k1 = _cpu.cache_key("func.func @main() { return }\n")
    k2 = _cpu.cache_key("func.func @main() {  return }\n")
    assert k1 != k2
    assert _cache.make_key("a", "bc") != _cache.make_key("ab", "c")


def test_missing_fuse_opt(monkeypatch, tmp_path):
    monkeypatch.setenv("FUSE_BIN_DIR", str(tmp_path))
    monkeypatch.delenv("FUSE_BUILD_DIR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_tools, "_REPO_ROOT", str(tmp_path))
    with pytest.raises(fuse.ToolNotFoundError, match="fuse-opt not found"):
        _tools.find_fuse_opt()


def test_compile_error_is_reported():
    with pytest.raises(fuse.CompileError, match="fuse-opt"):
        _cpu.load("func.func @main( this is not IR\n")
