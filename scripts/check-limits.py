#!/usr/bin/env python3
"""Size limits of the project's C++ (lib/, tools/, runtime/src/): no file
over 1,000 lines and no function over 200. Large pieces are a sign to split
by responsibility (docs/architecture.md).

Usage: scripts/check-limits.py [ROOT] [--max-file N] [--max-function N]
Prints each file or function over its limit, then `check-limits: N files,
N functions checked, N over`, and exits 1 when any is over.

Functions are found by their braces: a `{` at namespace or class scope
whose header ends with `)` (with const, override, noexcept, a trailing
return type, or a constructor's initializer list) opens a body, measured
from its line to the line of its matching `}`. Comments, strings and
character literals are skipped; preprocessor lines are ignored.
"""
import argparse
import os
import re
import sys

SOURCES = ("lib", "tools", os.path.join("runtime", "src"))
EXTENSIONS = (".cpp", ".h", ".cc", ".c", ".cu", ".cuh")
SCOPE_WORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def strip(text):
    """The text with comments, strings and char literals blanked (newlines
    kept) and preprocessor lines emptied."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    return "\n".join("" if l.lstrip().startswith("#") else l for l in lines)


def functions(text):
    """(first line, line count, header) of each function body at namespace
    or class scope."""
    code = strip(text)
    stack = []  # per open brace: (kind, line, header)
    header_start = 0
    line = 1
    found = []
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            header = code[header_start:i].strip()
            outer = all(k == "scope" for k, _, _ in stack)
            kind = "other"
            if SCOPE_WORDS.search(header) and not re.search(r"\)\s*$", header):
                kind = "scope"
            elif header.startswith("extern"):
                kind = "scope"
            elif outer and re.search(
                    r"\)\s*((const|override|final|noexcept|mutable)\s*)*"
                    r"(->\s*[\w:<>,\s*&]+)?$|\)\s*:\s*[\s\S]*\)$", header):
                kind = "function"
            stack.append((kind, line, " ".join(header.split())[-80:]))
            header_start = i + 1
        elif c == "}":
            if stack:
                kind, start, header = stack.pop()
                if kind == "function":
                    found.append((start, line - start + 1, header))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--max-file", type=int, default=1000)
    ap.add_argument("--max-function", type=int, default=200)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    files = nfuncs = over = 0
    for top in SOURCES:
        for dirpath, _, names in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(names):
                if not name.endswith(EXTENSIONS):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                text = open(path, encoding="utf-8", errors="replace").read()
                files += 1
                nlines = text.count("\n")
                if nlines > args.max_file:
                    print(f"{rel}: {nlines} lines (limit {args.max_file})")
                    over += 1
                for start, count, header in functions(text):
                    nfuncs += 1
                    if count > args.max_function:
                        print(f"{rel}:{start}: function of {count} lines "
                              f"(limit {args.max_function}): {header}")
                        over += 1
    print(f"check-limits: {files} files, {nfuncs} functions checked, {over} over")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
