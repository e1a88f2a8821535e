"""Checks that a kernel's main loop reads before it writes: in the basic
block of KERNEL (in the PTX file) with the most global loads, there are at
least MIN of them and none follows the block's first global store. A
load after a store that may alias it cannot be issued before the store,
so a loop that loads, computes and stores an element a step keeps one
load in flight a thread (used by gpu-loads-first.mlir).
Usage: loads_first.py PTX KERNEL MIN
       loads_first.py --every WORKDIR DIR...: compiles every .mlir program
       of the DIRs to PTX and checks every kernel's main loop (any number
       of loads, none after its first store)."""
import glob
import os
import re
import subprocess
import sys


def blocks(ptx, kernel):
    """The kernel's basic blocks, each the list of its global accesses
    ('L' or 'S'); a label or a branch ends a block."""
    body = ptx.split(".entry %s(" % kernel)
    if len(body) < 2:
        sys.exit("loads_first: no kernel %s" % kernel)
    body = body[1].split(".entry ")[0]
    out, cur = [], []
    for line in body.splitlines():
        s = line.strip()
        if re.match(r"^\$L\w+:", s) or re.match(r"^(@%p\d+ )?bra", s):
            out.append(cur)
            cur = []
        elif s.startswith("ld.global"):
            cur.append("L")
        elif s.startswith("st.global"):
            cur.append("S")
    out.append(cur)
    return out


def check(ptx, kernel, least):
    """The problem with kernel's main loop, or None."""
    main_loop = max(blocks(ptx, kernel), key=lambda b: b.count("L"))
    seq = "".join(main_loop)
    if seq.count("L") < least:
        return ("%s: %d loads in its largest block, expected at least %d: %s"
                % (kernel, seq.count("L"), least, seq))
    if "S" in seq and "L" in seq[seq.index("S"):]:
        return "%s: a load after a store in its main loop: %s" % (kernel, seq)
    return None


def every(work, dirs):
    os.makedirs(work, exist_ok=True)
    bad, kernels = [], 0
    files = sorted(f for d in dirs for f in glob.glob(os.path.join(d, "*.mlir")))
    for f in files:
        ptx = os.path.join(work, os.path.basename(f) + ".ptx")
        r = subprocess.run(["fuse-compile", f, "--emit=ptx", "-o", ptx],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("loads_first: %s does not compile:\n%s" % (f, r.stderr))
        text = open(ptx).read()
        for kernel in re.findall(r"\.entry (\w+)\(", text):
            kernels += 1
            problem = check(text, kernel, 0)
            if problem:
                bad.append("%s: %s" % (os.path.basename(f), problem))
    print("loads_first: %d kernels of %d programs" % (kernels, len(files)))
    if not files or bad:
        sys.exit("loads_first: " + ("\n".join(bad) or "no programs"))


def main():
    if sys.argv[1] == "--every":
        every(sys.argv[2], sys.argv[3:])
        return
    path, kernel, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
    problem = check(open(path).read(), kernel, least)
    if problem:
        sys.exit("loads_first: " + problem)


if __name__ == "__main__":
    main()
