// REQUIRES: cuda-toolkit
// Iotas of rank > 1 in flat elementwise groups compile for the GPU (they
// were rejected: "an elementwise group must read and write tensors of one
// shape"): the flat kernel addresses every tensor of the group at its flat
// index, and the iota's coordinate along `dim` is (flat / (product of the
// later sizes)) mod size[dim]. test/Integration/GPU/extra/iota_rank2.mlir
// compares the GPU's values with the CPU backend's (scripts/gpu); here the
// PTX holds the divisions and the CPU backend agrees with NumPy's meaning
// of iota.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fuse-run %s --entry iota_dims --arg rand:5x7 --print | FileCheck %s --check-prefix=CPU

// Row index: divides the flat index; column index: remainder.
// CHECK-LABEL: .entry iota_dims_g0_ew(
// CHECK: div.u64
// CHECK-LABEL: .entry iota_dims_g1_ew(
// CHECK: rem.u{{32|64}}

// 100 * row + column, then the column alone.
// CPU: result #0: int64 array of shape (5, 7)
// CPU-NEXT: {{\[\[}}0, 1, 2, 3, 4, 5, 6],
// CPU-NEXT: [100, 101, 102, 103, 104, 105, 106],
// CPU: [400, 401, 402, 403, 404, 405, 406]]
// CPU-NEXT: result #1: int32 array of shape (5, 7)
// CPU-NEXT: {{\[\[}}0, 1, 2, 3, 4, 5, 6],
// CPU-NEXT: [0, 1, 2, 3, 4, 5, 6],
func.func @iota_dims(%x: tensor<?x?xf32>) -> (tensor<?x?xi64>, tensor<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %i0 = fuse.iota %r, %c dim 0 : tensor<?x?xi64>
  %i1 = fuse.iota %r, %c dim 1 : tensor<?x?xi64>
  %m = fuse.map %i0, %i1 : tensor<?x?xi64>, tensor<?x?xi64> -> tensor<?x?xi64> {
  ^bb0(%a: i64, %b: i64):
    %h = arith.constant 100 : i64
    %ah = arith.muli %a, %h : i64
    %s = arith.addi %ah, %b : i64
    fuse.yield %s : i64
  }
  %j = fuse.iota %r, %c dim 1 : tensor<?x?xi32>
  return %m, %j : tensor<?x?xi64>, tensor<?x?xi32>
}
