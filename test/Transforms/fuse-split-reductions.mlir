// RUN: fuse-opt %s --split-input-file --fuse-split-reductions | FileCheck %s

// Scattered dims: the last first (from the identity), then the rest from
// the inits; the other dims keep their positions.
// CHECK-LABEL: func.func @scattered(
// CHECK-SAME: %[[X:.+]]: tensor<?x?x?xf32>)
// CHECK: %[[R:.+]] = fuse.reduce add %[[X]] dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[S:.+]] = fuse.reduce add %[[R]] dims [0] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: return %[[S]]
func.func @scattered(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce add %x dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// An interior block of a rank-4 tensor, two inputs, inits, static sizes:
// split dim by dim until one is left.
// CHECK-LABEL: func.func @interior(
// CHECK: %[[A:.+]]:2 = fuse.reduce (umax, add) %{{.+}}, %{{.+}} dims [2] : tensor<2x3x5x7xi32>, tensor<2x3x5x7xf64> -> tensor<2x3x7xi32>, tensor<2x3x7xf64>
// CHECK: %[[B:.+]]:2 = fuse.reduce (umax, add) %[[A]]#0, %[[A]]#1 init(%{{.+}}, %{{.+}} : i32, f64) dims [1] : tensor<2x3x7xi32>, tensor<2x3x7xf64> -> tensor<2x7xi32>, tensor<2x7xf64>
// CHECK: return %[[B]]#0, %[[B]]#1
func.func @interior(%x: tensor<2x3x5x7xi32>, %y: tensor<2x3x5x7xf64>, %i: i32, %j: f64) -> (tensor<2x7xi32>, tensor<2x7xf64>) {
  %s, %t = fuse.reduce (umax, add) %x, %y init(%i, %j : i32, f64) dims [1, 2] : tensor<2x3x5x7xi32>, tensor<2x3x5x7xf64> -> tensor<2x7xi32>, tensor<2x7xf64>
  return %s, %t : tensor<2x7xi32>, tensor<2x7xf64>
}

// -----

// Three scattered dims of rank 5: [4] split off, then [0, 1, 3] -> [3]
// split off, leaving the leading block [0, 1].
// CHECK-LABEL: func.func @three(
// CHECK: fuse.reduce max %{{.+}} dims [4] : tensor<?x?x?x?x?xf32> -> tensor<?x?x?x?xf32>
// CHECK: fuse.reduce max %{{.+}} dims [3] : tensor<?x?x?x?xf32> -> tensor<?x?x?xf32>
// CHECK: fuse.reduce max %{{.+}} dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
// CHECK-NOT: fuse.reduce
func.func @three(%x: tensor<?x?x?x?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce max %x dims [0, 1, 3, 4] : tensor<?x?x?x?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----

// Left as written: edge blocks (fuse-collapse-rows' business), one dim,
// every dim, and a combiner region (no identity to start the first from).
// CHECK-LABEL: func.func @kept(
// CHECK: fuse.reduce add %{{.+}} dims [0, 1] :
// CHECK: fuse.reduce add %{{.+}} dims [1, 2] :
// CHECK: fuse.reduce add %{{.+}} dims [1] :
// CHECK: fuse.reduce add %{{.+}} : tensor<?x?x?xf32> -> tensor<f32>
// CHECK: fuse.reduce %{{.+}} init(%{{.+}} : f32) dims [0, 2] :
// CHECK-NOT: fuse.reduce
func.func @kept(%x: tensor<?x?x?xf32>, %i: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<?xf32>) {
  %a = fuse.reduce add %x dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  %b = fuse.reduce add %x dims [1, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
  %c = fuse.reduce add %x dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %d = fuse.reduce add %x : tensor<?x?x?xf32> -> tensor<f32>
  %e = fuse.reduce %x init(%i : f32) dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32> {
  ^bb0(%p: f32, %q: f32):
    %m = arith.maximumf %p, %q : f32
    fuse.yield %m : f32
  }
  return %a, %b, %c, %d, %e : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<?xf32>
}
