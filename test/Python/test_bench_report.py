"""bench/report.py on synthetic JSON lines of the nine workloads and of
bench/extra_suite.py's (no GPU, no torch): the nine's table and sections
as before, the "Beyond the nine" table with a missing peer and a failed
check, each row's targets and gaps, the exit status; extra_suite.py's
records (its pure-Python half, and Suite.run with a stand-in torch) as
the report reads them, and every fuse pipeline it calls traced
(--prepare); scripts/gpu/run-bench.sh running the extra suite after
stand-ins of the main suite, and failing loudly when it fails."""

import importlib.util
import json
import os
import py_compile
import shutil
import subprocess
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
REPORT = os.path.join(BENCH, "report.py")


def _load(name, path):
    """A module of bench/ by its path (bench/ stays off sys.path)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


es = _load("bench_extra_suite", os.path.join(BENCH, "extra_suite.py"))
report = _load("bench_report", REPORT)

N = 1 << 28
GPU = "NVIDIA H200"


def rec(w, impl, gib, nbytes=N * 4, ok=True, extra=None, rounds=1):
    """Harness-style records of `rounds` rounds at gib GiB/s."""
    us = nbytes / (gib * 2 ** 30) * 1e6 if gib else 3.3
    out = []
    for _ in range(rounds):
        r = {"workload": w, "impl": impl, "median_ms": us / 1000.0,
             "min_ms": us / 1000.0, "bytes": nbytes, "gib_s": gib, "ok": ok,
             "rel_err": 0.0, "reps": 30, "gpu": GPU}
        r.update(extra or {})
        out.append(r)
    return out


def nine():
    recs = rec("copy", "fuse", 3900, N * 8, rounds=3) + \
        rec("copy", "cudaMemcpy", 3930, N * 8, rounds=3)
    for w, f, peer in (("sumsq", 4000, 3990), ("dot", 4100, 4090),
                       ("chain", 3600, 3500), ("scan", 2950, 2800),
                       ("select", 2400, 2450), ("softmax_rows", 3500, 3510),
                       ("variance", 3950, 3000),
                       ("logsumexp_rows", 3800, 3850)):
        recs += rec(w, "fuse", f, rounds=3) + rec(w, "cub", peer, rounds=3)
        recs += rec(w, "torch-compile", peer * 0.7)
    recs += rec("sumsq_small", "fuse", 0, 0, extra={"us_per_call": 3.3},
                rounds=3)
    return recs


def extra():
    """The extra suite's records: the copies, rows that meet every target,
    a row under its best peer, rows under the issue's GiB/s and the copy
    rule, a peer that is missing (skipped), a peer whose check failed, a
    fuse whose check failed and one that raised."""
    def r(w, impl, gib, nbytes=N * 4, ok=True):
        us = nbytes / (gib * 2 ** 30) * 1e6
        return es.record(w, impl, [us, us * 1.01, us * 0.99], nbytes, ok,
                         GPU)
    out = []
    for dt, c in (("f32", 3700), ("bf16", 3650), ("f16", 3600)):
        out += [r("copy_" + dt, "torch-clone", c, N * 8),
                r("copy_" + dt, "torch-copy_", c + 20, N * 8)]
    out += [r("argmax_f32", "fuse", 3650), r("argmax_f32", "torch-eager", 3360),
            r("argmax_f32", "torch-compile", 33),
            r("argmax_f32", "cuda.compute", 3500),
            r("max_f32", "fuse", 3800), r("max_f32", "torch-eager", 3700),
            r("minmax_f32", "fuse", 3580), r("minmax_f32", "torch-eager", 3780),
            r("affine_reduce_u32", "fuse", 3660),
            es.skipped("affine_reduce_u32", "torch-eager",
                       "torch has no such operation"),
            r("affine_scan_u32", "fuse", 1900, N * 8),
            r("affine_scan_u32", "cuda.compute", 2500, N * 8),
            r("sumsq_bf16", "fuse", 3107, N * 2),
            r("sumsq_bf16", "torch-compile", 2480, N * 2),
            es.skipped("sumsq_bf16", "cuda.compute", es.NO_BF16),
            es.skipped("chain_bf16", "cuda.compute", es.NO_BF16),
            r("chain_f16", "fuse", 3490), r("chain_f16", "torch-compile", 2800),
            r("chain_f16", "cuda.compute", 3550, ok=False),
            r("layernorm_rows_bf16", "fuse", 3300, ok=False),
            r("layernorm_rows_bf16", "torch-compile", 2000),
            es.failed("softmax_rows_bf16", "fuse", "KeyError: not cached",
                      GPU),
            r("softmax_rows_bf16", "torch-compile", 1469)]
    return out


def write(path, recs):
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    return str(path)


def run_report(*args):
    return subprocess.run([sys.executable, REPORT, *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def row(text, first):
    """The table line that begins with "| first |"."""
    return next(l for l in text.splitlines()
                if l.startswith("| %s |" % first))


def test_nine_unchanged_and_extra_section(tmp_path):
    a = write(tmp_path / "nine.jsonl", nine())
    b = write(tmp_path / "extra.jsonl", extra())
    only = run_report(a, "--diagnoses", tmp_path / "none.json")
    both = run_report(a, b, "--diagnoses", tmp_path / "none.json",
                      "--md", tmp_path / "r.md")
    assert only.returncode == 0 and both.returncode == 0, both.stderr
    # The nine's output is the same with the extra records beside them.
    assert both.stdout.startswith(only.stdout.rstrip("\n") + "\n\n")
    rest = both.stdout[len(only.stdout.rstrip("\n")):]
    assert rest.lstrip().startswith("Beyond the nine")
    assert "argmax_f32" not in only.stdout
    assert row(only.stdout, "workload") == \
        "| workload | fuse | cub | cudaMemcpy | torch-compile | best peer " \
        "| fuse / best |"
    assert row(only.stdout, "select").startswith("| select | 2400 | 2450 |")
    assert open(tmp_path / "r.md").read() == both.stdout
    out = rest
    # The table: every implementation, the best passing peer, the ratios.
    assert row(out, "workload") == (
        "| workload | fuse | torch-eager | torch-compile | cuda.compute | "
        "best peer | fuse / best | fuse / copy |")
    assert row(out, "argmax_f32") == (
        "| argmax_f32 | 3650 | 3360 | 33 | 3500 | cuda.compute | 1.04x | "
        "98% (copy_f32) |")
    # A failed check is marked and never the best peer; a missing peer "-".
    assert row(out, "chain_f16") == (
        "| chain_f16 | 3490 | - | 2800 | 3550 (FAILED check) | "
        "torch-compile | 1.25x | 96% (copy_f16) |")
    assert row(out, "softmax_rows_bf16").startswith(
        "| softmax_rows_bf16 | FAILED (raised) | - | 1469 |")
    assert "- copy_bf16: 3670 (torch-clone 3650, torch-copy_ 3670)" in out
    assert ("- cuda.compute: %s: sumsq_bf16, chain_bf16" % es.NO_BF16) in out
    assert "- torch-eager: torch has no such operation: affine_reduce_u32" \
        in out


def test_extra_targets_and_gaps(tmp_path):
    p = write(tmp_path / "extra.jsonl", extra())
    diag = tmp_path / "d.json"
    diag.write_text(json.dumps({"minmax_f32": {
        "since": "2026-12-05", "cause": "the minmax cause."}}))
    res = run_report(p, "--diagnoses", diag)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    t = out[out.index("Targets beyond the nine"):]
    assert row(t, "workload") == (
        "| workload | fuse | fuse / best peer (>= 0.95x) | of the copy "
        "(>= 85%) | the issue's GiB/s | of fuse's built-in (>= 90%) | "
        "verdict |")
    assert row(t, "argmax_f32") == (
        "| argmax_f32 | 3650 | 1.043x cuda.compute (met) | 98.1% of copy_f32 "
        "(met) | - | 96.1% of max_f32 (met) | met |")
    assert row(t, "minmax_f32").endswith(
        "0.947x torch-eager (**missed**) | 96.2% of copy_f32 (met) | - | "
        "94.2% of max_f32 (met) | **missed** |")
    # No peer is no gap; the copy rule takes float32's copy for uint32.
    assert row(t, "affine_reduce_u32") == (
        "| affine_reduce_u32 | 3660 | no peer measured | 98.4% of copy_f32 "
        "(met) | - | 96.3% of max_f32 (met) | met |")
    assert "| >= 2900: -34.5% (**missed**) |" in row(t, "affine_scan_u32")
    assert row(t, "sumsq_bf16") == (
        "| sumsq_bf16 | 3107 | 1.253x torch-compile (met) | 84.7% of "
        "copy_bf16 (**missed**) | >= 3600: -13.7% (**missed**) | - | "
        "**missed** |")
    assert row(t, "layernorm_rows_bf16").endswith(
        "| **fuse FAILED its check** |")
    assert row(t, "softmax_rows_bf16").endswith(
        "| **fuse raised: KeyError: not cached** |")
    assert "copy_f32 |" not in t        # the ceilings hold no targets
    gaps = t[t.index("Rows under a target"):]
    assert ("- **minmax_f32**: 5.3% slower than torch-eager (3580 against "
            "3780 GiB/s; the target is 0.95x). Cause (diagnosed 2026-12-05): "
            "the minmax cause.") in gaps
    assert ("- **sumsq_bf16**: 84.7% of copy_bf16 (3107 against 3670 GiB/s; "
            "the target is 85%); 13.7% under the target (3107 GiB/s against "
            "3600). Cause: no diagnosis recorded.") in gaps
    assert "- **affine_scan_u32**: 24.0% slower than cuda.compute" in gaps
    assert "- **layernorm_rows_bf16**: fuse FAILED its check." in gaps
    assert "- **softmax_rows_bf16**: fuse raised" in gaps
    for met in ("argmax_f32", "max_f32", "affine_reduce_u32", "chain_f16"):
        assert "**%s**" % met not in gaps


def test_rules_unchecked_without_ceiling_or_builtin(tmp_path):
    """Without the copy of its type and fuse's built-in max in the run, a
    row's rules are unchecked, and said so."""
    recs = [r for r in extra() if r["workload"] in ("argmax_f32",)]
    res = run_report(write(tmp_path / "e.jsonl", recs), "--diagnoses",
                     tmp_path / "none.json")
    assert res.returncode == 0
    t = res.stdout[res.stdout.index("Targets beyond the nine"):]
    assert row(t, "argmax_f32").endswith(
        "| no copy measured (unchecked) | - | no fuse max_f32 (unchecked) "
        "| unchecked |")
    assert "no passing copy of its element type (f32) in the run" in \
        res.stdout


def test_exit_status_without_results(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = run_report(empty)
    assert res.returncode == 1 and "report: no results" in res.stderr
    only_skipped = write(tmp_path / "s.jsonl",
                         [es.skipped("sumsq_bf16", "cuda.compute", "why")])
    assert run_report(only_skipped).returncode == 1


def test_extra_suite_without_torch(tmp_path):
    """The suite's pure half: imports without torch, --list, records the
    report reads, unknown workloads refused."""
    py_compile.compile(os.path.join(BENCH, "extra_suite.py"), doraise=True)
    assert es.torch is None
    names = [w for w, _, _ in es.WORKLOADS]
    for w in ("argmax_f32", "minmax_f32", "layernorm_rows_f32",
              "affine_scan_u32", "softmax_rank3_f32", "sumsq_bf16",
              "softmax_rows_bf16", "chain_f16", "argmin_f32", "copy_f32",
              "copy_bf16", "copy_f16"):
        assert w in names and w in report.EXTRA
    assert set(names) == set(report.EXTRA)
    res = subprocess.run([sys.executable, os.path.join(BENCH,
                                                       "extra_suite.py"),
                          "--list"], capture_output=True, text=True,
                         timeout=30)
    assert res.returncode == 0 and res.stdout.count("\n") == len(names)
    with pytest.raises(SystemExit):
        es.parse_args(["--only=nope"])
    r = es.record("sumsq_bf16", "fuse", [100.0, 110.0, 90.0], N * 2, True,
                  GPU, {"compile_s": 1.5})
    assert r["median_ms"] == 0.1 and r["min_ms"] == 0.09
    assert r["gib_s"] == round(N * 2 / 100e-6 / 2 ** 30, 1)
    assert es.impl_name("fuse argmax") == "fuse"
    assert es.impl_name("torch.aminmax") == "torch-eager"
    assert es.impl_name("torch.compile") == "torch-compile"
    assert es.impl_name("copy") is None
    p = write(tmp_path / "x.jsonl", [r, es.skipped("sumsq_bf16", "x", "y")])
    skipped = []
    got = report.load([p], skipped)
    assert [g["workload"] for g in got] == ["sumsq_bf16"] and \
        skipped[0]["skipped"] == "y"


def test_extra_suite_pipelines_trace(tmp_path):
    """--prepare traces every fuse pipeline the suite calls (the functions
    of test/Python's check modules at the suite's dtypes and ranks): with
    an empty cache and no fuse-compile, each one is a cache miss, nothing
    else."""
    env = dict(os.environ, FUSE_CACHE_DIR=str(tmp_path / "cache"),
               FUSE_GPU_NO_COMPILE="1")
    res = subprocess.run([sys.executable, os.path.join(
        BENCH, "extra_suite.py"), "--prepare"], capture_output=True,
        text=True, env=env, timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
    fails = [l for l in res.stdout.splitlines() if l.startswith("FAIL")]
    assert len(fails) == len(es.PIPELINES) == 18
    assert all("GPUCacheMissError" in l for l in fails), fails
    assert "18 pipelines, 18 failed" in res.stdout


class _Event:
    clock = 0.0

    def __init__(self, timing):
        self.t = None

    def record(self):
        _Event.clock += 0.5
        self.t = _Event.clock

    def elapsed_time(self, other):
        return other.t - self.t


def test_suite_run_records(tmp_path, monkeypatch):
    """Suite.run with a stand-in torch: a passing implementation, a failed
    check, one that raises, a missing peer and a torch.compile that did not
    compile, each a record of its kind; the exit flag falls."""
    cuda = types.SimpleNamespace(Event=_Event, synchronize=lambda: None,
                                 get_device_name=lambda: "stub GPU")
    monkeypatch.setattr(es, "torch", types.SimpleNamespace(cuda=cuda))
    args = es.parse_args(["--out", str(tmp_path / "o.jsonl"), "--reps=5"])
    s = es.Suite(args)

    def boom():
        raise KeyError("not in the cache")
    s.run("chain_f16", N * 4, [
        ("fuse", lambda: 1), ("torch-eager", lambda: 2), ("torch-compile",
                                                          None),
        ("cuda.compute", "cuda.compute: not available (ImportError)"),
        ("other", boom)], lambda name, got: got == 1)
    assert s.ok is False            # a failed check
    s.ok = True
    s.run("chain_bf16", N * 4, [("fuse", boom)], lambda name, got: True)
    assert s.ok is False            # fuse raised
    s.out.close()
    recs = [json.loads(l) for l in open(tmp_path / "o.jsonl")]
    by = {r["impl"]: r for r in recs if r["workload"] == "chain_f16"}
    assert by["fuse"]["ok"] and by["fuse"]["reps"] == 5
    assert by["fuse"]["median_ms"] == 0.5 and by["fuse"]["gpu"] == \
        "stub GPU"
    assert not by["torch-eager"]["ok"]
    assert by["torch-compile"]["skipped"] == \
        "torch.compile failed (see the log)"
    assert by["cuda.compute"]["skipped"].startswith("cuda.compute: not")
    assert by["other"]["skipped"] == "raised KeyError: 'not in the cache'"
    fuse_raised = recs[-1]
    assert fuse_raised["workload"] == "chain_bf16" and \
        fuse_raised["error"] == "KeyError: 'not in the cache'"
    assert "FAILED: KeyError" in es.summary(s.recs)
    res = run_report(tmp_path / "o.jsonl", "--diagnoses",
                     tmp_path / "none.json")
    assert res.returncode == 0
    assert row(res.stdout, "chain_f16") == (
        "| chain_f16 | 2000 | 2000 (FAILED check) | - | - | - | - | - |")
    assert "- other: raised KeyError: 'not in the cache': chain_f16" in \
        res.stdout
    assert row(res.stdout, "chain_bf16").startswith(
        "| chain_bf16 | FAILED (raised) |")


def _run_bench(tmp_path, suite_body, **env_extra):
    """scripts/gpu/run-bench.sh in a copy of the tree whose
    bench/extra_suite.py is suite_body, with test/Tools' stand-ins of the
    main suite's binaries and nvidia-smi; (exit status, output, results)."""
    root = tmp_path / "root"
    (root / "scripts" / "gpu").mkdir(parents=True)
    (root / "bench").mkdir()
    (root / "examples").mkdir()
    (root / "examples" / "sumsq.mlir").write_text("")
    shutil.copy(os.path.join(ROOT, "scripts", "gpu", "run-bench.sh"),
                root / "scripts" / "gpu")
    shutil.copy(REPORT, root / "bench")
    (root / "bench" / "extra_suite.py").write_text(suite_body)
    prep = tmp_path / "prep"
    shutil.copytree(os.path.join(ROOT, "test", "Tools", "Inputs",
                                 "run-bench-stub"), prep)
    for f in ("bin/bench_fuse", "bin/peers", "path/nvidia-smi"):
        os.chmod(prep / f, 0o755)
    (prep / "aot").mkdir()
    (prep / "aot" / "sumsq.o").write_text("")
    (prep / "bin" / "libfuse_runtime.so").write_text("")
    pycache = tmp_path / "pycache"
    (pycache / "v1").mkdir(parents=True)
    env = dict(os.environ, PATH="%s:%s" % (prep / "path", os.environ["PATH"]),
               BENCH_ROUNDS="1", BENCH_SKIP_TORCH="1",
               PYCACHE_DIR=str(pycache), PEER_WHEELS=str(tmp_path / "none"),
               **env_extra)
    res = subprocess.run(["bash", str(root / "scripts" / "gpu" /
                                      "run-bench.sh"), str(prep),
                          str(tmp_path / "res")], capture_output=True,
                         text=True, env=env, timeout=120)
    return res.returncode, res.stdout + res.stderr, tmp_path / "res"


GOOD_SUITE = """import json, sys
out = sys.argv[sys.argv.index("--out") + 1]
assert "--skip-torch" in sys.argv and "--reps=30" in sys.argv
with open(out, "w") as f:
    for w, g in (("copy_f32", 3700), ("argmax_f32", 3650)):
        f.write(json.dumps({"workload": w, "impl": "fuse" if w[0] == "a"
                            else "torch-clone", "gib_s": g, "ok": True,
                            "suite": "extra"}) + "\\n")
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_run_bench_merges_the_extra_suite(tmp_path):
    rc, out, res = _run_bench(tmp_path, GOOD_SUITE)
    assert rc == 0, out
    assert "FAIL" not in out
    assert row(out, "sumsq").startswith("| sumsq | 4000 |")
    assert row(out, "argmax_f32").startswith("| argmax_f32 | 3650 |")
    assert "extra" in (res / "timeline.txt").read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_run_bench_fails_loudly(tmp_path):
    """A suite that fails: a FAIL line, named under the report, exit 1
    (here with BENCH_EXTRA=only: the extra suite alone, and its rows)."""
    bad = GOOD_SUITE + ("print('MISMATCH argmax_f32 fuse: 1, expected 2')\n"
                        "raise SystemExit(1)\n")
    rc, out, res = _run_bench(tmp_path, bad, BENCH_EXTRA="only")
    assert rc == 1
    assert "FAIL extra_suite: exit 1: MISMATCH argmax_f32 fuse" in out
    md = (res / "report.md").read_text()
    assert "FAILED: bench/extra_suite.py" in md
    assert row(md, "argmax_f32").startswith("| argmax_f32 | 3650 |")
    assert "| sumsq |" not in md and not (res / "fuse.jsonl").exists()
