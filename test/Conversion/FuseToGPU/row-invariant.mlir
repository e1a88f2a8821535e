// RUN: fuse-opt %s --convert-fuse-to-gpu | FileCheck %s
// Values the same along a row (an iota along rows, a map of it, a
// broadcast of a per-row operand) are computed once at the row's start in
// every row kernel: one remainder and one load of the per-row bias a row,
// not one an element. The column iota stays per element.

// CHECK-LABEL: gpu.func @masked_g0_rows(
// CHECK: scf.while
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: arith.remui
// CHECK-LABEL: gpu.func @masked_g0_rows_long(
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: arith.remui
// CHECK: gpu.return
func.func @masked(%x: tensor<?x?xf32>, %bias: tensor<?xf32>, %heads: i64) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %x, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %y = fuse.group row_reduce (%x, %bias, %rows, %cols, %heads) : (tensor<?x?xf32>, tensor<?xf32>, index, index, i64) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %v: tensor<?xf32>, %r: index, %n: index, %h: i64):
    %ninf = arith.constant 0xFF800000 : f32
    %i = fuse.iota %r, %n : tensor<?x?xi64>
    %q = fuse.map %i : tensor<?x?xi64> -> tensor<?x?xi64> {
    ^bb0(%p: i64):
      %m = arith.remui %p, %h : i64
      fuse.yield %m : i64
    }
    %j = fuse.iota %r, %n dim 1 : tensor<?x?xi64>
    %vb = fuse.broadcast %v dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
    %k = fuse.map %a, %q, %j, %vb : tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%e: f32, %qq: i64, %jj: i64, %b: f32):
      %keep = arith.cmpi sle, %jj, %qq : i64
      %s = arith.addf %e, %b : f32
      %o = arith.select %keep, %s, %ninf : f32
      fuse.yield %o : f32
    }
    %s = fuse.reduce max %k dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}
