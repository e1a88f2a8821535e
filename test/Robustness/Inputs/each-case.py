"""Runs a command on each `// -----` case of a -split-input-file test and
checks that it fails cleanly with the case's expected diagnostic.

Usage: each-case.py FILE TMPDIR COMMAND...

Chunks holding only comments are skipped. Each case is written to TMPDIR/caseN.mlir, preceded by blank lines so that
its line numbers are those of FILE, and run as `COMMAND caseN.mlir -o
TMPDIR/caseN.out`. A case passes when the command exits non-zero, prints no
crash (stack dump, assertion, LLVM ERROR, signal) and, for every
`expected-error [@+N|@-N] {{text}}` of the case, an `error:` at that line
whose message contains the text. A case with a line
`// full pipeline: compiles (REASON)` is one whose offending op the full
pipeline removes before code generation (it folds, or nothing uses it):
there the command must succeed, without a crash. Prints one line per case
(`ok`, `ok (compiles)` or `FAIL` with the reason and the command's first
error lines) and a summary: `N cases: N rejected cleanly with the expected
error, N compiled as marked, N failed`.
"""

import os
import re
import subprocess
import sys

CRASH = ("Stack dump", "PLEASE submit", "Assertion", "LLVM ERROR",
         "Segmentation fault", "Aborted")
EXPECT = re.compile(r"expected-error\s*(@[+-]\d+)?\s*\{\{(.*?)\}\}")
COMPILES = re.compile(r"//\s*full pipeline: compiles \(.+\)")


def main():
    path, tmp, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(tmp, exist_ok=True)
    lines = open(path).read().split("\n")
    cases, start = [], 0
    for i, line in enumerate(lines + ["// -----"]):
        if re.fullmatch(r"// -----\s*", line):
            body = lines[start:i]
            # A chunk of comments only (the header) is not a case.
            if any(l.strip() and not l.strip().startswith("//")
                   for l in body):
                cases.append((start, body))
            start = i + 1
    failed = compiled = 0
    for n, (first, body) in enumerate(cases):
        name = next((m.group(1) for l in body
                     for m in [re.search(r"func\.func @(\w+)", l)] if m), "?")
        expected = []
        for k, l in enumerate(body):
            for m in EXPECT.finditer(l):
                off = int(m.group(1)[1:]) if m.group(1) else 0
                expected.append((first + k + 1 + off, m.group(2)))
        src = os.path.join(tmp, f"case{n}.mlir")
        with open(src, "w") as f:
            f.write("\n" * first + "\n".join(body) + "\n")
        r = subprocess.run(cmd + [src, "-o", os.path.join(tmp, f"case{n}.out")],
                           capture_output=True, text=True, timeout=300)
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        if any(COMPILES.search(l) for l in body):
            why = [f"exit {r.returncode}"] if r.returncode else []
            if any(c in r.stderr for c in CRASH):
                why.append("crash")
            status = "FAIL (" + "; ".join(why) + ")" if why else "ok (compiles)"
            failed += bool(why)
            compiled += not why
            print(f"case {n} @{name}: {status}")
            for e in errors[:3] if why else []:
                print("  " + e)
            continue
        why = []
        if r.returncode == 0:
            why.append("exit 0")
        if r.returncode < 0:
            why.append(f"killed by signal {-r.returncode}")
        if any(c in r.stderr for c in CRASH):
            why.append("crash")
        if not errors:
            why.append("no error: line")
        for line, text in expected:
            if not any(re.search(rf":{line}:\d+: error: .*{re.escape(text)}", e)
                       for e in errors):
                why.append(f"no error at line {line} containing '{text}'")
        if not expected:
            why.append("no expected-error in the case")
        status = "FAIL (" + "; ".join(why) + ")" if why else "ok"
        failed += bool(why)
        print(f"case {n} @{name}: {status}")
        if why:
            for e in errors[:3]:
                print("  " + e)
    print(f"{len(cases)} cases: {len(cases) - failed - compiled} rejected "
          f"cleanly with the expected error, {compiled} compiled as marked, "
          f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
