// REQUIRES: cuda-toolkit
// Broadcasts of lower-rank group operands in flat elementwise groups
// compile for the GPU (were rejected: "an elementwise group must read and
// write tensors of one shape"): the kernel delinearizes its flat index over
// the broadcast's sizes and reads the input at the coordinates it keeps
// (x - v[:, None] reads v at flat / cols); the input is not preloaded at
// the flat index. test/Integration/GPU/extra/broadcast_flat.mlir compares
// GPU and CPU values (scripts/gpu). The same in a reduce group (sum of
// x - v[:, None]) and a line scan (cumsum of x * u[None, :] along rows):
// test/Integration/GPU/extra/broadcast_reduce_scan.mlir.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.arange(12, dtype=np.float32).reshape(3, 4) + 1); np.save('%t.m.npy', np.array([2.5, 6.5, 10.5], dtype=np.float32))"
// RUN: fuse-run %s --entry sum_centered --arg %t.x.npy --arg %t.m.npy --print | FileCheck %s --check-prefix=SUM
// Rows minus their means sum to 0 exactly (x = 1..12, means 2.5 6.5 10.5);
// a wrong row index for the broadcast would not.
// SUM: result #0: float32 array of shape ()
// SUM-NEXT: {{^}}0{{$}}
// RUN: fuse-run %s --entry scan_scaled --arg rand:3x4 --arg rand:4 --print > %t.c.txt
// RUN: fuse-run %s --entry scan_scaled --arg rand:3x4 --arg rand:4 --print --no-fusion > %t.c-unfused.txt
// RUN: diff %t.c.txt %t.c-unfused.txt
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=IR
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fuse-run %s --entry center --arg rand:3x4 --arg rand:3 --print > %t.cpu.txt
// RUN: fuse-run %s --entry center --arg rand:3x4 --arg rand:3 --print --no-fusion > %t.cpu-unfused.txt
// RUN: diff %t.cpu.txt %t.cpu-unfused.txt

// IR-LABEL: gpu.func @center_g0_ew(
// IR: arith.divui
// IR: llvm.load
// CHECK-LABEL: .entry center_g0_ew(
// CHECK: div.u64
// CHECK: sub.rn.f32
// CHECK-LABEL: .entry sum_centered_g0_partial(
// CHECK: div.u64
// CHECK-LABEL: .entry scan_scaled_g0_linescan(
// CHECK: mul.rn.f32

func.func @center(%x: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %b = fuse.broadcast %v dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %x, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.subf %a, %c : f32
    fuse.yield %s : f32
  }
  return %y : tensor<?x?xf32>
}

func.func @sum_centered(%x: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<f32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %b = fuse.broadcast %v dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %x, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.subf %a, %c : f32
    fuse.yield %s : f32
  }
  %r = fuse.reduce add %y : tensor<?x?xf32> -> tensor<f32>
  return %r : tensor<f32>
}

func.func @scan_scaled(%x: tensor<?x?xf32>, %u: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %b = fuse.broadcast %u dims [0] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %x, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f32):
    %s = arith.mulf %a, %c : f32
    fuse.yield %s : f32
  }
  %r = fuse.scan inclusive add %y dim 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
