#!/usr/bin/env python3
"""Runs the fenced code blocks of fuse's documentation, so that they cannot
rot: every block of README.md and docs/*.md (docs/generated is generated,
not written, and is left out) is run by the test suite or carries a mark
that says why not.

What a block's info string (the word after the opening fence) makes of it:

  sh, bash, shell  run with `bash -e -x -o pipefail` (every command must
                   succeed; the trace shows which one failed), cwd = the
                   document's work folder (below), PATH = the build's bin
                   folder, then the caller's PATH less LLVM's own bin folder
                   (/usr/lib/llvm-N/bin, which lit adds and a reader's shell
                   lacks)
  console          the same, for the lines that start with "$ " (the rest
                   is output and is not compared)
  mlir             parsed and verified with `fuse-opt FILE -o /dev/null`
  python, py       run with the runner's python3, PYTHONPATH = python/
  c, c++, cpp      compiled (-fsyntax-only, runtime/include and the work
                   folder on the include path); a block with `int main` is
                   compiled and linked, against libfuse_runtime when it
                   names a fuse_ function, and run
  json             parsed
  text, output     shown as they are (output, pseudo-code, formats)

A block with no info string or another one fails the run: nothing escapes
silently.

Marks: an HTML comment on the last non-blank line before the fence,
`<!-- doctest: WORD ... -->`, with one or more of

  skip (REASON)   not run; the reason is required. An sh block is still
                  checked: bash -n, and each command's program must exist.
  gpu             needs a GPU: listed but not run here; run with --gpu (a
                  machine with the build and a GPU) or on a GPU machine from
                  a prepared folder (--prepare-gpu / --run-prepared). A
                  c/c++ gpu block is compiled and linked here all the same.
  cuda            needs the CUDA toolkit (ptxas, libdevice, the runtime
                  library): skipped, with that reason, in a build that has
                  no runtime library (no toolkit was found).
  fragment        (mlir) a list of ops, not a module: each op is verified
                  alone, wrapped in a function whose undefined operands are
                  defined with the types the op expects.
  file=NAME       the block is the file NAME of the work folder: written
                  there (an mlir block is also verified); a later block of
                  the same document must name it (which compiles or runs
                  it, as the reader would).

Work folder: one per document, shared by its blocks in order (a file made by
one block is there for the next, as for a reader who types them in turn). It
holds a link to every top-level entry of the repository (`build` to the
build folder), so commands written for the repository root run as written,
while the files they make land in the work folder.

Usage:
  scripts/doctest.py [--build DIR] [FILE.md ...]   every document by default
  scripts/doctest.py --list [FILE.md ...]          classify, run nothing
  scripts/doctest.py --gpu                         also the gpu blocks
  scripts/doctest.py --prepare-gpu DIR             CPU machine: run the rest,
                                                   keep the work folders in DIR
  scripts/doctest.py --run-prepared DIR --bin D --lib L
                                                   GPU machine (no LLVM/MLIR):
                                                   the gpu blocks, in DIR
                                                   (scripts/gpu/run-doc-tests.sh)
  scripts/doctest.py --check-covered test/Docs     every block well-formed and
                                                   every document with blocks
                                                   to run has a test there
One line per block (PASS, FAIL, GPU, SKIP, TEXT) naming FILE:LINE; the last
line counts them. Exit status 1 when a block failed.
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Documents under docs/ that are generated, not written; their code is the
# generators' output.
EXCLUDED_DIRS = ("docs/generated",)

SH_LANGS = {"sh", "bash", "shell"}
C_LANGS = {"c", "c++", "cpp", "cxx"}
TEXT_LANGS = {"text", "txt", "output"}
KNOWN_LANGS = SH_LANGS | C_LANGS | TEXT_LANGS | {"console", "mlir", "python",
                                                 "py", "json"}
MARK_WORDS = {"skip", "gpu", "cuda", "fragment", "file"}
# Tools of the build that need LLVM/MLIR: a gpu block that runs one of them
# needs a machine with both the build and a GPU.
COMPILER_TOOLS = ("fuse-opt", "fuse-run", "fuse-compile")
INTERPRETERS = ("python3", "python", "bash", "sh")

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$")
MARK = re.compile(r"^\s*<!--\s*doctest:(.*?)-->\s*$")


class Block:
    def __init__(self, path, line, lang, code, mark):
        self.path = path          # relative to the repository root
        self.line = line          # of the opening fence, 1-based
        self.lang = lang.lower()
        self.code = code
        self.skip = None          # reason
        self.gpu = False
        self.cuda = False
        self.fragment = False
        self.file = None
        self.error = None         # a malformed mark or block
        if mark is not None:
            self._parse_mark(mark)

    def where(self):
        return f"{self.path}:{self.line}"

    def _parse_mark(self, text):
        text = text.strip()
        m = re.match(r"skip\b\s*(.*)$", text, re.S)
        if m:
            reason = m.group(1).strip()
            if reason.startswith("(") and reason.endswith(")"):
                reason = reason[1:-1].strip()
            if not reason:
                self.error = "'doctest: skip' needs a reason: skip (REASON)"
            self.skip = reason
            return
        for word in text.split():
            key, _, value = word.partition("=")
            if key not in MARK_WORDS or key == "skip":
                self.error = (f"unknown doctest mark '{word}' (skip (REASON), "
                              "gpu, cuda, fragment, file=NAME)")
            elif key == "file":
                if not value or "/" in value:
                    self.error = "file=NAME takes a plain file name"
                self.file = value
            elif value:
                self.error = f"doctest mark '{key}' takes no value"
            else:
                setattr(self, key, True)
        if self.fragment and self.lang != "mlir":
            self.error = "'fragment' is for mlir blocks"


def doc_files():
    """README.md and docs/*.md, as paths relative to the repository root."""
    files = ["README.md"]
    docs = os.path.join(ROOT, "docs")
    for dirpath, dirnames, filenames in os.walk(docs):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = sorted(d for d in dirnames
                             if os.path.join(rel, d) not in EXCLUDED_DIRS)
        files += sorted(os.path.join(rel, f) for f in filenames
                        if f.endswith(".md"))
    return files


def extract(path):
    """The fenced blocks of one Markdown file, and the errors of marks that
    stand before no fence."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, errors = [], []
    i = 0
    last = None  # (line number, text) of the last non-blank line
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                if last and MARK.match(last[1]):
                    errors.append(f"{path}:{last[0]}: doctest mark stands "
                                  "before no code fence")
                last = (i + 1, lines[i])
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3)
        start = i + 1
        body = []
        i += 1
        closed = False
        while i < len(lines):
            c = lines[i]
            s = c.strip()
            if s.startswith(fence[0] * len(fence)) and set(s) == {fence[0]}:
                closed = True
                break
            # Content lines lose the opening fence's indentation (a fence
            # inside a list item).
            body.append(c[indent:] if c[:indent].strip() == "" else c.lstrip())
            i += 1
        i += 1
        mark = None
        if last:
            mm = MARK.match(last[1])
            if mm:
                mark = mm.group(1)
        b = Block(path, start, lang, "\n".join(body) + "\n", mark)
        if not closed:
            b.error = "code fence never closed"
        blocks.append(b)
        last = None
    if last and MARK.match(last[1]):
        errors.append(f"{path}:{last[0]}: doctest mark stands before no "
                      "code fence")
    return blocks, errors


# ---- the environment blocks run in -----------------------------------------

class Env:
    def __init__(self, build, timeout, keep_dir=None, extra_bin=None,
                 lib_dir=None):
        self.build = os.path.abspath(build)
        self.bin = os.path.join(self.build, "bin")
        self.timeout = timeout
        self.keep_dir = keep_dir
        self.extra_bin = extra_bin
        self.lib_dir = lib_dir
        rt = os.path.join(self.build, "runtime", "lib")
        if lib_dir:
            rt = lib_dir
        self.runtime_lib = rt if os.path.exists(
            os.path.join(rt, "libfuse_runtime.so")) else None

    def environ(self):
        env = dict(os.environ)
        path = [p for p in (self.extra_bin, self.bin) if p]
        # A reader's shell has LLVM's tools as /usr/bin/NAME-22, not LLVM's
        # own bin folder, which lit puts on PATH: without it a block that
        # says `mlir-translate` fails here as it would for the reader.
        path += [p for p in env.get("PATH", "").split(os.pathsep)
                 if p and not re.search(r"/llvm-\d+/bin/?$", p)]
        env["PATH"] = os.pathsep.join(path)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(ROOT, "python")] +
            ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        if self.lib_dir:
            env["LD_LIBRARY_PATH"] = os.pathsep.join(
                [self.lib_dir] + ([env["LD_LIBRARY_PATH"]]
                                  if env.get("LD_LIBRARY_PATH") else []))
        return env

    def cxx(self, lang):
        names = (["cc", "gcc", "clang-22", "clang"] if lang == "c" else
                 ["c++", "g++", "clang++-22", "clang++"])
        for n in names:
            p = shutil.which(n)
            if p:
                return p
        return None


def link_repo(work, build):
    """Links every top-level entry of the repository into `work`, `build`
    to the build folder. Returns the links made."""
    made = []
    names = set(os.listdir(ROOT)) | {"build"}
    for name in sorted(names - {".git"}):
        link = os.path.join(work, name)
        target = build if name == "build" else os.path.join(ROOT, name)
        if os.path.lexists(link) or not os.path.exists(target):
            continue
        os.symlink(target, link)
        made.append(link)
    return made


def unlink_repo(links):
    # A prepared folder travels to the GPU machine without them: links to
    # this machine's paths would mean nothing there (--run-prepared links
    # that machine's copy of the repository).
    for link in links:
        if os.path.islink(link):
            os.unlink(link)


def run(cmd, env, cwd, timeout, stdin=None):
    try:
        p = subprocess.run(cmd, env=env, cwd=cwd, input=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return 124, out + f"\n(timed out after {timeout} s)"


def relocate(text, work, b, name):
    """Names the document's lines in a tool's messages about the block's
    file NAME in the work folder: NAME:ROW becomes DOC:LINE."""
    pat = re.compile(re.escape(os.path.join(work, name)) + r":(\d+)")
    return pat.sub(lambda m: f"{b.path}:{b.line + int(m.group(1))}", text)


def tail(text, n=30):
    lines = text.rstrip("\n").split("\n")
    if len(lines) > n:
        lines = [f"... ({len(lines) - n} lines before)"] + lines[-n:]
    return "\n".join("    | " + l for l in lines)


def console_commands(code):
    """The commands of a console block: lines after a "$ " prompt, with
    their backslash continuations."""
    cmds, cont = [], False
    for line in code.split("\n"):
        if cont:
            cmds.append(line)
        elif line.startswith("$ "):
            cmds.append(line[2:])
        else:
            continue
        cont = line.rstrip().endswith("\\")
    return "\n".join(cmds) + "\n"


def programs_of(code):
    """The program of each simple command of a shell block (after VAR=value
    assignments and `env`), for checking the blocks that are not run."""
    progs = []
    joined = re.sub(r"\\\n", " ", code)
    for line in joined.split("\n"):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        cmd = []
        for w in words + [";"]:
            if w in ("|", "||", "&&", ";", "&"):
                words = [x for x in cmd if x != "env"]
                while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                    # VAR=$(prog args ...: the substitution's program runs
                    m = re.match(r"^[A-Za-z_][A-Za-z0-9_]*=\$\((.+)$",
                                 words[0])
                    if m:
                        words = [m.group(1).split()[0]] + words[1:]
                        break
                    words.pop(0)
                if words:
                    progs.append(words[0])
                    # An interpreter's script is a program too.
                    if os.path.basename(words[0]) in INTERPRETERS:
                        args = [x for x in words[1:] if not x.startswith("-")]
                        if args and "/" in args[0]:
                            progs.append(("script", args[0]))
                cmd = []
            else:
                cmd.append(w)
    return progs


# ---- one block ---------------------------------------------------------------

def check_sh_unrun(b, code, env, work):
    """bash -n, and the program of each command exists."""
    rc, out = run(["bash", "-n"], env.environ(), work, 60, stdin=code)
    if rc != 0:
        return f"bash -n: syntax error\n{tail(out)}"
    missing = []
    for prog in programs_of(code):
        if isinstance(prog, tuple):
            if not os.path.isfile(os.path.join(work, prog[1])):
                missing.append(prog[1])
        elif "/" in prog:
            p = os.path.join(work, prog)
            if not (os.path.isfile(p) and os.access(p, os.X_OK)):
                missing.append(prog)
        elif not shutil.which(prog, path=env.environ()["PATH"]):
            missing.append(prog)
    if missing:
        return "programs not found: " + ", ".join(missing)
    return None


def verify_mlir(b, env, work, name):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(b.code)
    rc, out = run(["fuse-opt", path, "-o", os.devnull], env.environ(), work,
                  env.timeout)
    return rc, relocate(out, work, b, name)


def split_statements(code):
    """The ops of an mlir fragment: a line that starts with `%name =` or an
    op name starts an op; other lines continue the one before."""
    stmts = []
    for line in code.split("\n"):
        s = line.strip()
        if not s or s.startswith("//"):
            continue
        if re.match(r"^(%[\w$.-]+(:\d+)?(\s*,\s*%[\w$.-]+)*\s*=|[a-z_]+\.[a-z_]+|\")",
                    s) or not stmts:
            stmts.append(s)
        else:
            stmts[-1] += "\n" + s
    return stmts


def verify_fragment(b, env, work):
    """Each op of the fragment in a function of its own; each operand the
    op does not define is defined first, by an unregistered op, with the
    type fuse-opt says the op expects (it names the type when a value is
    used with another one than it was defined with)."""
    for k, stmt in enumerate(split_statements(b.code)):
        defined = set(re.findall(r"(%[\w$.-]+)(?::\d+)?(?=(?:\s*,\s*%[\w$.-]+(?::\d+)?)*\s*=)", stmt))
        defined |= set(re.findall(r"(%[\w$.-]+)\s*:", " ".join(
            re.findall(r"\^\w+\(([^)]*)\)", stmt))))
        used = []
        for v in re.findall(r"%[\w$.-]+", stmt):
            if v not in defined and v not in used:
                used.append(v)
        types = {v: "none" for v in used}
        for attempt in range(len(used) + 2):
            defs = "".join(f'  {v} = "doctest.value"() : () -> {t}\n'
                           for v, t in types.items())
            src = ("func.func @doctest_fragment() {\n" + defs +
                   "  " + stmt.replace("\n", "\n  ") + "\n  return\n}\n")
            path = os.path.join(work, f"fragment-{b.line}-{k}.mlir")
            with open(path, "w") as f:
                f.write(src)
            rc, out = run(["fuse-opt", path, "--allow-unregistered-dialect",
                           "-o", os.devnull], env.environ(), work, env.timeout)
            if rc == 0:
                break
            m = re.search(r"use of value '(%[\w$.-]+)' expects different type "
                          r"than prior uses: '(.*)' vs '(.*)'", out)
            if not m or m.group(1) not in types or types[m.group(1)] != m.group(3):
                return f"op {k + 1} of the fragment:\n{stmt}\n{tail(out)}"
            types[m.group(1)] = m.group(2)
        else:
            return f"op {k + 1} of the fragment: operand types not found\n{tail(out)}"
    return None


def compile_c(b, env, work, link, run_it):
    """Compiles a c/c++ block; links it (against libfuse_runtime when it
    names a fuse_ function) and runs it when asked."""
    cc = env.cxx(b.lang)
    if not cc:
        return "no C/C++ compiler on PATH"
    ext = ".c" if b.lang == "c" else ".cpp"
    src = os.path.join(work, f"block-{b.line}{ext}")
    with open(src, "w") as f:
        f.write(b.code)
    inc = ["-I", os.path.join(ROOT, "runtime", "include"), "-I", work]
    std = ["-std=c11"] if b.lang == "c" else ["-std=c++17"]
    if not link:
        rc, out = run([cc] + std + ["-fsyntax-only"] + inc + [src],
                      env.environ(), work, env.timeout)
        out = relocate(out, work, b, os.path.basename(src))
        return None if rc == 0 else f"{os.path.basename(cc)} -fsyntax-only failed\n{tail(out)}"
    exe = os.path.join(work, f"block-{b.line}")
    libs = []
    if re.search(r"\bfuse_\w+\s*\(", b.code):
        if not env.runtime_lib:
            return "needs libfuse_runtime, which this build lacks"
        libs = ["-L", env.runtime_lib, "-Wl,-rpath," + env.runtime_lib,
                "-lfuse_runtime"]
    rc, out = run([cc] + std + inc + [src, "-o", exe] + libs, env.environ(),
                  work, env.timeout)
    if rc != 0:
        out = relocate(out, work, b, os.path.basename(src))
        return f"{os.path.basename(cc)} failed\n{tail(out)}"
    if run_it:
        rc, out = run([exe], env.environ(), work, env.timeout)
        if rc != 0:
            return f"the program exited with {rc}\n{tail(out)}"
    return None


def static_error(b):
    """What is wrong with a block before it runs, or None."""
    if b.error:
        return b.error
    if b.lang not in KNOWN_LANGS and b.skip is None:
        what = f"info string '{b.lang}'" if b.lang else "no info string"
        return (f"{what}: give the block a language (sh, mlir, python, c++, "
                "json, text, ...) or a mark (<!-- doctest: skip (REASON) -->)")
    return None


def run_block(b, env, work, gpu_here):
    """Runs one block. Returns (status, detail): PASS, FAIL, GPU, SKIP or
    TEXT."""
    lang = b.lang
    err = static_error(b)
    if err:
        return "FAIL", err
    code = console_commands(b.code) if lang == "console" else b.code
    if b.skip is not None:
        if lang in SH_LANGS or lang == "console":
            err = check_sh_unrun(b, code, env, work)
            if err:
                return "FAIL", f"(skipped block) {err}"
            return "SKIP", b.skip + " [syntax and programs checked]"
        return "SKIP", b.skip
    if b.cuda and not env.runtime_lib:
        return "SKIP", ("needs the CUDA toolkit: this build has no "
                        "libfuse_runtime (no toolkit was found)")
    if b.file:
        with open(os.path.join(work, b.file), "w") as f:
            f.write(b.code)
        if lang == "mlir":
            rc, out = verify_mlir(b, env, work, b.file)
            if rc != 0:
                return "FAIL", f"fuse-opt {b.file}\n{tail(out)}"
        return "PASS", f"written to {b.file}"
    if lang in TEXT_LANGS:
        return "TEXT", "not run (text)"
    if b.gpu and not gpu_here:
        if lang in C_LANGS:
            err = compile_c(b, env, work, link="int main" in b.code,
                            run_it=False)
            if err:
                return "FAIL", err
            return "GPU", "compiled and linked here; runs with --gpu"
        return "GPU", "needs a GPU: runs with --gpu"
    if lang in SH_LANGS or lang == "console":
        # -x: the trace shows which command failed.
        rc, out = run(["bash", "-e", "-x", "-o", "pipefail"], env.environ(),
                      work, env.timeout, stdin=code)
        if rc != 0:
            return "FAIL", f"exit status {rc}\n{tail(out)}"
        return "PASS", "ran"
    if lang == "mlir":
        if b.fragment:
            err = verify_fragment(b, env, work)
            return ("FAIL", err) if err else ("PASS", "each op verified")
        rc, out = verify_mlir(b, env, work, f"block-{b.line}.mlir")
        if rc != 0:
            return "FAIL", f"fuse-opt\n{tail(out)}"
        return "PASS", "verified by fuse-opt"
    if lang in ("python", "py"):
        path = os.path.join(work, f"block-{b.line}.py")
        with open(path, "w") as f:
            f.write(b.code)
        rc, out = run([sys.executable, path], env.environ(), work, env.timeout)
        if rc != 0:
            return "FAIL", f"exit status {rc}\n{tail(out)}"
        return "PASS", "ran"
    if lang in C_LANGS:
        has_main = "int main" in b.code
        err = compile_c(b, env, work, link=has_main, run_it=has_main)
        if err:
            return "FAIL", err
        return "PASS", "compiled, linked and ran" if has_main else "compiled"
    if lang == "json":
        try:
            json.loads(b.code)
        except ValueError as e:
            return "FAIL", f"not JSON: {e}"
        return "PASS", "parsed"
    return "FAIL", f"no runner for '{lang}'"


def check_files_used(blocks):
    """A file=NAME block must be named by a later block of its document."""
    for i, b in enumerate(blocks):
        if b.file and not b.error and not any(
                re.search(r"(?<![\w.-])" + re.escape(b.file) + r"(?![\w-])",
                          later.code) for later in blocks[i + 1:]):
            b.error = f"file={b.file}: no later block of {b.path} names it"


def needs_compiler(b):
    code = console_commands(b.code) if b.lang == "console" else b.code
    return [p for p in programs_of(code)
            if isinstance(p, str) and os.path.basename(p) in COMPILER_TOOLS]


# ---- documents ---------------------------------------------------------------

def run_doc(path, env, mode, counts, gpu_manifest):
    blocks, errors = extract(path)
    for e in errors:
        print(f"FAIL {e}")
        counts["FAIL"] += 1
    check_files_used(blocks)
    if mode == "list":
        for b in blocks:
            err = static_error(b)
            kind = ("error: " + err if err else
                    "skip: " + b.skip if b.skip is not None else
                    "text" if b.lang in TEXT_LANGS else
                    "gpu" if b.gpu else "cuda" if b.cuda else "run")
            print(f"{b.where()}\t{b.lang or '(none)'}\t{kind}")
            counts["FAIL" if err else "SKIP" if kind.startswith("skip") else
                   "TEXT" if kind == "text" else "GPU" if kind == "gpu" else
                   "PASS"] += 1
        return
    slug = re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")
    if env.keep_dir:
        work = os.path.join(env.keep_dir, slug)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        tmp = None
    else:
        tmp = tempfile.mkdtemp(prefix=f"fuse-doctest-{slug}-")
        work = tmp
    links = []
    try:
        links = link_repo(work, env.build)
        for b in blocks:
            status, detail = run_block(b, env, work, mode == "gpu")
            counts[status] += 1
            first, _, rest = detail.partition("\n")
            print(f"{status} {b.where()} {b.lang or '(none)'}: {first}")
            if rest:
                print(rest)
            if status == "GPU" and gpu_manifest is not None:
                gpu_manifest.append({
                    "where": b.where(), "lang": b.lang, "code": b.code,
                    "work": os.path.relpath(work, env.keep_dir),
                    "needs_compiler": needs_compiler(b)})
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            unlink_repo(links)


def run_prepared(folder, env, counts):
    """The gpu blocks of a folder made by --prepare-gpu, in the work
    folders the other blocks of their documents left."""
    with open(os.path.join(folder, "gpu-blocks.json")) as f:
        manifest = json.load(f)
    for entry in manifest:
        where = entry["where"]
        tools = entry["needs_compiler"]
        if tools:
            counts["SKIP"] += 1
            print(f"SKIP {where} {entry['lang']}: runs {', '.join(sorted(set(tools)))}"
                  ", which needs LLVM/MLIR: scripts/doctest.py --gpu on a "
                  "machine with the build and a GPU")
            continue
        work = os.path.join(folder, entry["work"])
        links = link_repo(work, env.build)
        b = Block(where.rsplit(":", 1)[0], int(where.rsplit(":", 1)[1]),
                  entry["lang"], entry["code"], None)
        b.gpu = True
        try:
            status, detail = run_block(b, env, work, gpu_here=True)
        finally:
            unlink_repo(links)
        counts[status] += 1
        first, _, rest = detail.partition("\n")
        print(f"{status} {where} {b.lang}: {first}")
        if rest:
            print(rest)


def check_covered(test_dir, files):
    """Every block of every document well-formed, and every document with
    blocks that are not all skip or text named by a test of test_dir."""
    named = ""
    for name in sorted(os.listdir(test_dir)):
        if name.endswith(".test"):
            with open(os.path.join(test_dir, name)) as f:
                named += "\n".join(l for l in f if "RUN:" in l)
    bad = 0
    for path in files:
        blocks, errors = extract(path)
        check_files_used(blocks)
        for e in errors:
            print(f"FAIL {e}")
            bad += 1
        for b in blocks:
            err = static_error(b)
            if err:
                print(f"FAIL {b.where()} {b.lang or '(none)'}: {err}")
                bad += 1
        runs = [b for b in blocks
                if b.skip is None and b.lang not in TEXT_LANGS]
        if runs and not re.search(r"(?<![\w.-])" + re.escape(path) + r"\b",
                                  named):
            print(f"FAIL {path}: {len(runs)} blocks to run, but no test in "
                  f"{test_dir} runs it: add one like test/Docs/README.test")
            bad += 1
        elif runs:
            print(f"PASS {path}: {len(blocks)} blocks, {len(runs)} to run, "
                  "has a test")
        else:
            print(f"PASS {path}: {len(blocks)} blocks, none to run")
    print(f"doctest: {len(files)} documents, {bad} problems")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*",
                    help="Markdown files (default: README.md and docs/*.md)")
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"),
                    help="the build folder (default build, or $BUILD_DIR)")
    ap.add_argument("--gpu", action="store_true",
                    help="also run the gpu blocks (needs a GPU)")
    ap.add_argument("--list", action="store_true",
                    help="list the blocks and what is done with each")
    ap.add_argument("--prepare-gpu", metavar="DIR",
                    help="run the blocks a CPU runs, keep the work folders in "
                         "DIR and list the gpu blocks in DIR/gpu-blocks.json")
    ap.add_argument("--check-covered", metavar="DIR",
                    help="check every document's blocks without running them "
                         "and that each document with blocks to run is named "
                         "by a test in DIR (test/Docs)")
    ap.add_argument("--run-prepared", metavar="DIR",
                    help="run the gpu blocks of a --prepare-gpu folder")
    ap.add_argument("--bin", help="(--run-prepared) a folder put first on PATH "
                    "(where fuse-run-aot is)")
    ap.add_argument("--lib", help="(--run-prepared) a folder put first on "
                    "LD_LIBRARY_PATH (where libfuse_runtime is)")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds per block (default 600)")
    args = ap.parse_args()

    build = args.build if os.path.isabs(args.build) else os.path.join(ROOT, args.build)
    files = [] if args.files else doc_files()
    for f in args.files:
        p = os.path.relpath(os.path.abspath(f), ROOT)
        files.append(os.path.abspath(f) if p.startswith("..") else p)

    counts = {k: 0 for k in ("PASS", "FAIL", "GPU", "SKIP", "TEXT")}
    if args.check_covered:
        return check_covered(args.check_covered, files)
    if args.run_prepared:
        folder = os.path.abspath(args.run_prepared)
        env = Env(build, args.timeout, keep_dir=folder, extra_bin=args.bin,
                  lib_dir=args.lib)
        run_prepared(folder, env, counts)
    else:
        if not args.list and not os.path.exists(os.path.join(build, "bin", "fuse-opt")):
            print(f"doctest: {build}/bin/fuse-opt not found: build first "
                  "(scripts/setup.sh)")
            return 1
        mode = "list" if args.list else "gpu" if args.gpu else "cpu"
        keep = None
        manifest = None
        if args.prepare_gpu:
            keep = os.path.abspath(args.prepare_gpu)
            os.makedirs(keep, exist_ok=True)
            manifest = []
        env = Env(build, args.timeout, keep_dir=keep)
        for f in files:
            run_doc(f, env, mode, counts, manifest)
        if manifest is not None:
            with open(os.path.join(keep, "gpu-blocks.json"), "w") as f:
                json.dump(manifest, f, indent=1)
        if mode == "list":
            print(f"doctest: {counts['PASS']} to run, {counts['FAIL']} "
                  f"malformed, {counts['GPU']} gpu, {counts['SKIP']} skipped, "
                  f"{counts['TEXT']} text")
            return 1 if counts["FAIL"] else 0
    print(f"doctest: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['GPU']} gpu (not run here), {counts['SKIP']} skipped, "
          f"{counts['TEXT']} text")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
