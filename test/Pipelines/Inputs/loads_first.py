"""Checks that a kernel's main loop reads before it writes: in the basic
block of KERNEL (in the PTX file) with the most global loads, there are at
least MIN of them and none follows the block's first global store. A
load after a store that may alias it cannot be issued before the store,
so a loop that loads, computes and stores an element a step keeps one
load in flight a thread (used by gpu-loads-first.mlir).
Usage: loads_first.py PTX KERNEL MIN"""
import re
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


def main():
    path, kernel, least = sys.argv[1], sys.argv[2], int(sys.argv[3])
    main_loop = max(blocks(open(path).read(), kernel),
                    key=lambda b: b.count("L"))
    seq = "".join(main_loop)
    if seq.count("L") < least:
        sys.exit("loads_first: %s: %d loads in its largest block, expected "
                 "at least %d: %s" % (kernel, seq.count("L"), least, seq))
    if "S" in seq and "L" in seq[seq.index("S"):]:
        sys.exit("loads_first: %s: a load after a store in its main loop: %s"
                 % (kernel, seq))


if __name__ == "__main__":
    main()
