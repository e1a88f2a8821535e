// REQUIRES: cuda-toolkit
// Broadcasts of lower-rank group operands in flat elementwise groups
// compile for the GPU (were rejected: "an elementwise group must read and
// write tensors of one shape"): the kernel delinearizes its flat index over
// the broadcast's sizes and reads the input at the coordinates it keeps
// (x - v[:, None] reads v at flat / cols); the input is not preloaded at
// the flat index. tests/gpu/extra/broadcast_flat.mlir compares GPU and CPU
// values (scripts/gpu).
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
