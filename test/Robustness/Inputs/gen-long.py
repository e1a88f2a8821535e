#!/usr/bin/env python3
"""Prints a long fuse program for the stress tests (RELIABILITY.md row 6).

usage: gen-long.py KIND N
  chain   N maps in a chain (fusion makes one group of N ops)
  mixed   N ops alternating map / scan / reduce+broadcast (many groups)
  wide    one function returning the sum of N independent reductions
"""
import sys


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    out = ["func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {",
           "  %c0 = arith.constant 0 : index",
           "  %n = tensor.dim %x, %c0 : tensor<?xf32>"]
    cur = "%x"
    for i in range(n):
        k = i % 3 if kind == "mixed" else 0
        if kind == "wide":
            out.append(f"  %r{i} = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>")
            out.append(f"  %b{i} = fuse.broadcast %r{i} dims [0] (%n) : tensor<f32> -> tensor<?xf32>")
            nxt = f"%m{i}"
            out.append(f"  {nxt} = fuse.map {cur}, %b{i} : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {{")
            out.append("  ^bb0(%a: f32, %b: f32):")
            out.append("    %s = arith.addf %a, %b : f32")
            out.append("    fuse.yield %s : f32")
            out.append("  }")
        elif k == 0:
            nxt = f"%m{i}"
            out.append(f"  {nxt} = fuse.map {cur} : tensor<?xf32> -> tensor<?xf32> {{")
            out.append("  ^bb0(%a: f32):")
            out.append("    %c = arith.constant 0.5 : f32")
            out.append("    %s = arith.mulf %a, %c : f32")
            out.append("    fuse.yield %s : f32")
            out.append("  }")
        elif k == 1:
            nxt = f"%s{i}"
            out.append(f"  {nxt} = fuse.scan inclusive max {cur} : tensor<?xf32> -> tensor<?xf32>")
        else:
            out.append(f"  %r{i} = fuse.reduce add {cur} : tensor<?xf32> -> tensor<f32>")
            nxt = f"%b{i}"
            out.append(f"  {nxt} = fuse.broadcast %r{i} dims [0] (%n) : tensor<f32> -> tensor<?xf32>")
        cur = nxt
    out.append(f"  return {cur} : tensor<?xf32>")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
