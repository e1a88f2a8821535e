#!/usr/bin/env python3
"""Writes .npy files byte by byte (no NumPy), including malformed ones.

usage: make_npy.py OUT DESCR SHAPE VALUES [options]
  DESCR   .npy descr string, e.g. '<f4', '|b1', '>f4', '|O'
          ("<V2": raw 16-bit words, as NumPy saves ml_dtypes.bfloat16)
  SHAPE   comma-separated sizes ('' for rank 0), e.g. 3,4
  VALUES  comma-separated values ('' for none); packed per DESCR
options:
  --version N     header format version (1, 2 or 3; default 1)
  --fortran       set fortran_order True
  --truncate N    drop the last N bytes of the file
  --bad-magic     corrupt the magic string
"""
import argparse
import struct

FORMATS = {"b1": "?", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
           "f2": "e", "f4": "f", "f8": "d", "V2": "H", "V4": "I"}

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("descr")
p.add_argument("shape")
p.add_argument("values")
p.add_argument("--version", type=int, default=1)
p.add_argument("--fortran", action="store_true")
p.add_argument("--truncate", type=int, default=0)
p.add_argument("--bad-magic", action="store_true")
a = p.parse_args()

shape = tuple(int(s) for s in a.shape.split(",") if s)
shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
    a.descr, "True" if a.fortran else "False", shape_text)
prefix = 10 if a.version == 1 else 12
total = prefix + len(header) + 1
header += " " * ((-total) % 64) + "\n"
magic = b"\x93NUMPX" if a.bad_magic else b"\x93NUMPY"
out = magic + bytes([a.version, 0])
out += struct.pack("<H" if a.version == 1 else "<I", len(header))
out += header.encode("latin1")
kind = a.descr[1:] if a.descr[0] in "<>|=" else a.descr
order = ">" if a.descr[0] == ">" else "<"
for v in (s for s in a.values.split(",") if s):
    fmt = FORMATS[kind]
    val = (v == "1" or v == "True") if fmt == "?" else (
        float(v) if fmt in "efd" else int(v))
    out += struct.pack(order + fmt, val)
if a.truncate:
    out = out[:-a.truncate]
open(a.out, "wb").write(out)
