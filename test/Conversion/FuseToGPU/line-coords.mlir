// RUN: fuse-opt %s --convert-fuse-to-gpu | FileCheck %s
// A line kernel's element k of a line sits at flat index
// o * len * inner + k * inner + i, so an iota along the line dimension is
// k itself: after the line's own division into (o, i), the element loops
// convert k without dividing the flat index. Along another dimension the
// coordinate is the line's: i in the dimensions after the line's, o in
// those before (a column scan of a column iota: i itself, converted once a
// line; at rank 3, the middle dimension's coordinate of o = a division
// once a line, never per element).

// CHECK-LABEL: gpu.func @colmax_g0_linereduce(
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c4_i64
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.maximumf
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: gpu.return
func.func @colmax(%r: index, %c: index) -> tensor<?xf32> {
  %y = fuse.group line_reduce (%r, %c) : (index, index) -> tensor<?xf32> {
  ^bb0(%n: index, %m: index):
    %i = fuse.iota %n, %m dim 0 : tensor<?x?xf32>
    %lo = arith.constant -1.0 : f32
    %s = fuse.reduce max %i init(%lo : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}

// CHECK-LABEL: gpu.func @colscan_g0_linescan(
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: scf.for %{{.*}} step %c4_i64
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: gpu.return
func.func @colscan(%r: index, %c: index) -> tensor<?x?xf64> {
  %y = fuse.group scan (%r, %c) : (index, index) -> tensor<?x?xf64> {
  ^bb0(%n: index, %m: index):
    %i = fuse.iota %n, %m dim 1 : tensor<?x?xf64>
    %s = fuse.scan inclusive add %i dim 0 : tensor<?x?xf64> -> tensor<?x?xf64>
    fuse.yield %s : tensor<?x?xf64>
  }
  return %y : tensor<?x?xf64>
}

// CHECK-LABEL: gpu.func @midscan_g0_linescan(
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: scf.for %{{.*}} step %c4_i64
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: gpu.return
func.func @midscan(%a: index, %r: index, %c: index) -> tensor<?x?x?xi64> {
  %y = fuse.group scan (%a, %r, %c) : (index, index, index) -> tensor<?x?x?xi64> {
  ^bb0(%p: index, %n: index, %m: index):
    %i = fuse.iota %p, %n, %m dim 0 : tensor<?x?x?xi64>
    %j = fuse.iota %p, %n, %m dim 2 : tensor<?x?x?xi64>
    %k = fuse.map %i, %j : tensor<?x?x?xi64>, tensor<?x?x?xi64> -> tensor<?x?x?xi64> {
    ^bb0(%u: i64, %v: i64):
      %w = arith.addi %u, %v : i64
      fuse.yield %w : i64
    }
    %s = fuse.scan inclusive add %k dim 1 : tensor<?x?x?xi64> -> tensor<?x?x?xi64>
    fuse.yield %s : tensor<?x?x?xi64>
  }
  return %y : tensor<?x?x?xi64>
}

// A warp a row (inner = 1): a row's broadcast value is read at the row's
// own coordinate, not at the flat index divided by the row length.
// CHECK-LABEL: gpu.func @rowscan_g0_linescan(
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: gpu.shuffle up
// CHECK: gpu.return
func.func @rowscan(%x: tensor<?x?xi32>, %m: tensor<?xi32>) -> tensor<?x?xi32> {
  %y = fuse.group scan (%x, %m) : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32> {
  ^bb0(%a: tensor<?x?xi32>, %b: tensor<?xi32>):
    %c1 = arith.constant 1 : index
    %n = tensor.dim %a, %c1 : tensor<?x?xi32>
    %bb = fuse.broadcast %b dims [1] (%n) : tensor<?xi32> -> tensor<?x?xi32>
    %s0 = fuse.map %a, %bb : tensor<?x?xi32>, tensor<?x?xi32> -> tensor<?x?xi32> {
    ^bb0(%u: i32, %v: i32):
      %w = arith.addi %u, %v : i32
      fuse.yield %w : i32
    }
    %s = fuse.scan inclusive add %s0 dim 1 : tensor<?x?xi32> -> tensor<?x?xi32>
    fuse.yield %s : tensor<?x?xi32>
  }
  return %y : tensor<?x?xi32>
}
