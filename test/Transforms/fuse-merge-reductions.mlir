// RUN: fuse-opt %s --split-input-file --fuse-merge-reductions | FileCheck %s
// (test/Integration/merge-reductions-cpu.mlir runs the merged form.)

// Column statistics of one tensor: one reduce with every kind.
// CHECK-LABEL: func.func @column_stats(
// CHECK-NEXT: %[[R:.+]]:3 = fuse.reduce (add, max, min) %arg0, %arg0, %arg0 dims [0] : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @column_stats(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %s = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m = fuse.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %n = fuse.reduce min %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %m, %n : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Siblings with several inputs keep them in order; another dimension, an
// init, a combiner region, a full reduction and rank-2 rows stay apart.
// CHECK-LABEL: func.func @apart(
// CHECK: fuse.reduce (add, max, umax) %arg0, %arg0, %arg1 dims [1] : tensor<?x?x?xi32>, tensor<?x?x?xi32>, tensor<?x?x?xi32>
// CHECK: fuse.reduce add %arg0 dims [2]
// CHECK: fuse.reduce add %arg0 init
// CHECK: fuse.reduce %arg0 init
// CHECK: fuse.reduce add %arg0 :
// CHECK: fuse.reduce max %arg2 dims [1]
// CHECK: fuse.reduce min %arg2 dims [1]
func.func @apart(%x: tensor<?x?x?xi32>, %y: tensor<?x?x?xi32>, %r: tensor<?x?xi32>, %z: i32) -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<i32>, tensor<?xi32>, tensor<?xi32>) {
  %a = fuse.reduce add %x dims [1] : tensor<?x?x?xi32> -> tensor<?x?xi32>
  %b = fuse.reduce add %x dims [2] : tensor<?x?x?xi32> -> tensor<?x?xi32>
  %c = fuse.reduce add %x init(%z : i32) dims [1] : tensor<?x?x?xi32> -> tensor<?x?xi32>
  %d = fuse.reduce %x init(%z : i32) dims [1] : tensor<?x?x?xi32> -> tensor<?x?xi32> {
  ^bb0(%p: i32, %q: i32):
    %t = arith.subi %p, %q : i32
    fuse.yield %t : i32
  }
  %e, %f = fuse.reduce (max, umax) %x, %y dims [1] : tensor<?x?x?xi32>, tensor<?x?x?xi32> -> tensor<?x?xi32>, tensor<?x?xi32>
  %g = fuse.reduce add %x : tensor<?x?x?xi32> -> tensor<i32>
  %h = fuse.reduce max %r dims [1] : tensor<?x?xi32> -> tensor<?xi32>
  %i = fuse.reduce min %r dims [1] : tensor<?x?xi32> -> tensor<?xi32>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<i32>, tensor<?xi32>, tensor<?xi32>
}

// -----

// A sibling whose other input is computed after the first reduction
// cannot join it.
// CHECK-LABEL: func.func @later_input(
// CHECK: fuse.reduce add %arg0 dims [0]
// CHECK: fuse.map
// CHECK: fuse.reduce (max, add) %arg0, %{{.+}} dims [0]
func.func @later_input(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %s = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %y = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %t = arith.mulf %a, %a : f32
    fuse.yield %t : f32
  }
  %m, %q = fuse.reduce (max, add) %x, %y dims [0] : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
  return %s, %m, %q : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
