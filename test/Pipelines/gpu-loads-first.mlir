// REQUIRES: cuda-toolkit
// Kernels that store as they go read an unrolled step's elements before
// they store any: a load after a store it may alias cannot be issued
// before it, so a loop that loads, computes and stores an element a step
// keeps one load in flight a thread. In each kernel's main loop (its basic
// block with the most global loads) every load precedes the first store:
// - line reductions returning a map of their input (the line-reduce
//   kernel, 16 bytes of f32 a step, and the tile kernel, 16 rows a thread);
// - line scans whose epilogue reads the input again (x - cumsum(x)): the
//   input is read once a step, not again after the previous element's
//   store;
// - long and staged rows whose output reads a vector along the row: the
//   vector's elements of a tile are read with the row's, before its
//   stores.
// test/Integration/GPU/extra (reduce_lines_tile, reduce_lines_split,
// scan_rank2, rows_narrow) runs the same kernels against the CPU.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %python %S/Inputs/loads_first.py %t.ptx col_side_g0_linereduce 4
// RUN: %python %S/Inputs/loads_first.py %t.ptx col_side_g0_linetile 16
// RUN: %python %S/Inputs/loads_first.py %t.ptx scan_epilogue_g0_linescan 4
// RUN: %python %S/Inputs/loads_first.py %t.ptx rows_scaled_g0_rows_long 8
// RUN: %python %S/Inputs/loads_first.py %t.ptx rows_scaled_g0_rows_staged 8
// Every kernel of the example pipelines and of the GPU suites' extra
// programs keeps the same order in its main loop:
// RUN: %python %S/Inputs/loads_first.py --every %t.every %fuse_src_root/examples %fuse_src_root/test/Integration/GPU/extra | FileCheck %s --check-prefix=EVERY
// EVERY: loads_first: {{[0-9]+}} kernels of {{[0-9]+}} programs
// RUN: fuse-run %s --entry col_side --arg rand:9x5 --print > %t.cpu.txt
// RUN: fuse-run %s --entry col_side --arg rand:9x5 --print --no-fusion > %t.cpu-unfused.txt
// RUN: diff %t.cpu.txt %t.cpu-unfused.txt
// RUN: fuse-run %s --entry rows_scaled --arg rand:3x7 --arg rand:7 --print > %t.rows.txt
// RUN: fuse-run %s --entry rows_scaled --arg rand:3x7 --arg rand:7 --print --no-fusion > %t.rows-unfused.txt
// RUN: diff %t.rows.txt %t.rows-unfused.txt

func.func @col_side(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %y = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %z = arith.constant 0.0 : f32
    %t = arith.maximumf %a, %z : f32
    fuse.yield %t : f32
  }
  %s = fuse.reduce add %y dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %y : tensor<?xf32>, tensor<?x?xf32>
}

func.func @scan_epilogue(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = fuse.scan inclusive add %x dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %e = fuse.map %s, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.subf %a, %b : f32
    fuse.yield %t : f32
  }
  return %e : tensor<?x?xf32>
}

func.func @rows_scaled(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %m = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mb = fuse.broadcast %m dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %wb = fuse.broadcast %w dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %x, %mb, %wb : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %mx: f32, %sc: f32):
    %d = arith.subf %a, %mx : f32
    %t = arith.mulf %d, %sc : f32
    fuse.yield %t : f32
  }
  return %y : tensor<?x?xf32>
}
