"""Compiles fuse programs to PTX and assembles them with `ptxas -v`, then
fails if any kernel spills more than the allowed bytes (used by
no-spills.test). Usage: check_spills.py WORKDIR MAX_BYTES FILE..."""
import os
import re
import subprocess
import sys


def main():
    work, limit, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    bad, kernels = [], 0
    for f in files:
        ptx = os.path.join(work, os.path.basename(f) + ".ptx")
        subprocess.run(["fuse-compile", f, "--emit=ptx", "-o", ptx],
                       check=True)
        out = subprocess.run(["ptxas", "-v", "-arch=sm_90", ptx, "-o",
                              os.devnull], check=True, text=True,
                             capture_output=True).stderr
        kernel = None
        for line in out.splitlines():
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                kernel = m.group(1)
                kernels += 1
            m = re.search(r"(\d+) bytes spill stores", line)
            if m and int(m.group(1)) > limit:
                bad.append(f"{os.path.basename(f)}: {kernel} spills "
                           f"{m.group(1)} bytes")
    for b in bad:
        print("SPILL", b)
    print(f"{len(files)} programs, {kernels} kernels, {len(bad)} over "
          f"{limit} bytes of spill stores")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
