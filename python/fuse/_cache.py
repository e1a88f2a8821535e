"""Content-addressed, multi-process-safe cache of compiled pipelines.

Layout: <root>/v1/<key[:2]>/<key>/{manifest.json, module.mlir, <lib>}.
An entry is published by writing a temporary folder inside <root>/v1/tmp and
renaming it onto its final name in one os.rename: readers see either no
entry or a complete one. The manifest records the size and sha256 of the
library; an entry whose library does not match, or which fails to load, is
moved aside and rebuilt, never trusted. Files of a published entry are never
modified in place, so a process that has loaded a library keeps a valid
mapping even when another process replaces a corrupted entry.

The root is $FUSE_CACHE_DIR, else $XDG_CACHE_HOME/fuse, else ~/.cache/fuse.
"""

import hashlib
import json
import os
import shutil
import tempfile
import uuid

FORMAT = "fuse-cache-v1"


def cache_root():
    d = os.environ.get("FUSE_CACHE_DIR")
    if not d:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        d = os.path.join(xdg, "fuse")
    return os.path.join(d, "v1")


def make_key(*parts):
    h = hashlib.sha256()
    for p in parts:
        b = p.encode() if isinstance(p, str) else bytes(p)
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def entry_dir(key):
    return os.path.join(cache_root(), key[:2], key)


def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def lookup(key):
    """The path of the valid library of entry `key`, or None.

    An invalid entry (missing or garbled manifest, size or checksum
    mismatch) is moved aside so that it gets rebuilt.
    """
    d = entry_dir(key)
    if not os.path.isdir(d):
        return None
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            m = json.load(f)
        if m.get("format") != FORMAT or m.get("key") != key:
            raise ValueError("manifest mismatch")
        lib = os.path.join(d, os.path.basename(m["library"]))
        if os.path.getsize(lib) != m["size"] or _sha256_file(lib) != m["sha256"]:
            raise ValueError("library checksum mismatch")
        return lib
    except (OSError, ValueError, KeyError, TypeError):
        discard(key)
        return None


def discard(key):
    """Moves entry `key` aside (atomically) and deletes it."""
    d = entry_dir(key)
    trash = os.path.join(cache_root(), "tmp", "trash-" + uuid.uuid4().hex)
    try:
        os.makedirs(os.path.dirname(trash), exist_ok=True)
        os.rename(d, trash)
    except OSError:
        return  # gone already, or another process moved it
    shutil.rmtree(trash, ignore_errors=True)


def publish(key, library_bytes, files):
    """Publishes an entry; returns the path of its library.

    `files` maps extra file names to their text (kept for inspection). When
    another process published the same key first, its entry is used.
    """
    tmproot = os.path.join(cache_root(), "tmp")
    os.makedirs(tmproot, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="build-", dir=tmproot)
    try:
        digest = hashlib.sha256(library_bytes).hexdigest()
        libname = "lib%s.so" % digest[:16]
        with open(os.path.join(tmp, libname), "wb") as f:
            f.write(library_bytes)
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        manifest = {"format": FORMAT, "key": key, "library": libname,
                    "size": len(library_bytes), "sha256": digest}
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest, f)
            f.flush()
            os.fsync(f.fileno())
        final = entry_dir(key)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        try:
            os.rename(tmp, final)
            tmp = None
        except OSError:
            pass  # someone else published first: validate theirs below
        lib = lookup(key)
        if lib is None:
            # Theirs was invalid and is now discarded: publish ours.
            if tmp is not None:
                try:
                    os.rename(tmp, final)
                    tmp = None
                except OSError:
                    pass
            lib = lookup(key)
        if lib is None:
            raise OSError("fuse cache: could not publish entry %s" % key)
        return lib
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
