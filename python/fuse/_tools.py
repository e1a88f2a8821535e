"""Finding fuse's and LLVM's command-line tools.

fuse-opt is looked up, in order, in:
  1. $FUSE_BIN_DIR (the folder holding fuse-opt),
  2. $FUSE_BUILD_DIR/bin,
  3. PATH,
  4. build/bin of the repository this package lives in (an editable install).

The LLVM 22 tools (mlir-translate, llc) are looked up in $FUSE_LLVM_BIN_DIR,
then `llvm-config-22 --bindir` / `llvm-config --bindir` (version 22 only),
then /usr/lib/llvm-22/bin, then PATH. The C compiler that links the shared
library is $CC, else `cc`.
"""

import functools
import glob
import hashlib
import os
import shutil
import subprocess


class ToolNotFoundError(RuntimeError):
    """A tool that fuse needs is not installed or not found."""


_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _executable(path):
    return path if path and os.path.isfile(path) and os.access(
        path, os.X_OK) else None


def find_fuse_opt():
    tried = []
    for var, sub in (("FUSE_BIN_DIR", ""), ("FUSE_BUILD_DIR", "bin")):
        d = os.environ.get(var)
        if d:
            p = os.path.join(d, sub, "fuse-opt") if sub else os.path.join(
                d, "fuse-opt")
            tried.append("$%s -> %s" % (var, p))
            if _executable(p):
                return p
    p = shutil.which("fuse-opt")
    tried.append("PATH")
    if p:
        return p
    p = os.path.join(_REPO_ROOT, "build", "bin", "fuse-opt")
    tried.append(p)
    if _executable(p):
        return p
    raise ToolNotFoundError(
        "fuse-opt not found (tried %s). Build fuse (ninja fuse-opt) and set "
        "FUSE_BUILD_DIR to the build folder or FUSE_BIN_DIR to the folder "
        "holding fuse-opt." % ", ".join(tried))


@functools.lru_cache(maxsize=None)
def _llvm_bindir_candidates():
    dirs = []
    env = os.environ.get("FUSE_LLVM_BIN_DIR")
    if env:
        dirs.append(env)
    for cfg in ("llvm-config-22", "llvm-config"):
        exe = shutil.which(cfg)
        if not exe:
            continue
        try:
            ver = subprocess.run([exe, "--version"], capture_output=True,
                                 text=True, timeout=30).stdout.strip()
            if not ver.startswith("22."):
                continue
            bindir = subprocess.run([exe, "--bindir"], capture_output=True,
                                    text=True, timeout=30).stdout.strip()
            if bindir:
                dirs.append(bindir)
        except (OSError, subprocess.SubprocessError):
            pass
    dirs.append("/usr/lib/llvm-22/bin")
    return tuple(dirs)


def find_llvm_tool(name):
    for d in _llvm_bindir_candidates():
        p = _executable(os.path.join(d, name))
        if p:
            return p
    p = shutil.which(name + "-22") or shutil.which(name)
    if p:
        return p
    raise ToolNotFoundError(
        "%s (LLVM 22) not found in %s or PATH; install mlir-22-tools and "
        "llvm-22 or set FUSE_LLVM_BIN_DIR" % (
            name, ", ".join(_llvm_bindir_candidates())))


def find_cc():
    cc = os.environ.get("CC") or "cc"
    p = shutil.which(cc)
    if not p:
        raise ToolNotFoundError(
            "C compiler %r not found (set CC) : needed to link the shared "
            "library of a compiled pipeline" % cc)
    return p


def find_builtins():
    """LLVM's compiler-rt builtins archive (libclang-rt-22-dev), or None.
    LLVM's x86 code moves bf16 values through f32 and rounds them back with
    __truncsfbf2, which libgcc has only from GCC 13 on; linked into each
    pipeline's library only where needed (the archive's other members stay
    out)."""
    llc = os.path.realpath(find_llvm_tool("llc"))
    root = os.path.dirname(os.path.dirname(llc))
    for pattern in ("lib/clang/*/lib/linux/libclang_rt.builtins-x86_64.a",
                    "lib/clang/*/lib/x86_64*/libclang_rt.builtins.a"):
        found = sorted(glob.glob(os.path.join(root, pattern)))
        if found:
            return found[-1]
    return None


_hash_memo = {}


def file_digest(path):
    """sha256 of a file's bytes, memoised on (path, size, mtime)."""
    st = os.stat(path)
    k = (path, st.st_size, st.st_mtime_ns)
    d = _hash_memo.get(k)
    if d is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        d = h.hexdigest()
        _hash_memo[k] = d
    return d
