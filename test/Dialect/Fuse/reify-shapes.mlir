// The dialect's shape rule (Shapes.h) through ReifyRankedShapedTypeOpInterface:
// tensor.dim of a fuse result resolves to the dimension or size operand it
// follows. A filter's length is its kept count, known only when it runs, so
// its tensor.dim stays.
// RUN: fuse-opt %s --resolve-ranked-shaped-type-result-dims --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @dims
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x?xf32>, %[[V:[^:]+]]: tensor<?xf32>, %[[I:[^:]+]]: tensor<2x?xi32>, %[[N:[^:]+]]: index)
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[X1:.+]] = tensor.dim %[[X]], %[[C1]]
// CHECK-DAG: %[[X0:.+]] = tensor.dim %[[X]], %[[C0]]
// CHECK-DAG: %[[V0:.+]] = tensor.dim %[[V]], %[[C0]]
// CHECK-DAG: %[[I1:.+]] = tensor.dim %[[I]], %[[C1]]
// CHECK-DAG: %[[F:.+]] = fuse.filter
// CHECK-DAG: %[[F0:.+]] = tensor.dim %[[F]], %[[C0]]
// CHECK: return %[[X1]], %[[X0]], %[[X0]], %[[N]], %[[V0]], %[[C4]], %[[N]], %[[I1]], %[[F0]]
func.func @dims(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %i: tensor<2x?xi32>,
                %n: index)
    -> (index, index, index, index, index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%e: f32):
    fuse.yield %e : f32
  }
  %d0 = tensor.dim %m, %c1 : tensor<?x?xf32>
  // The kept dimension of a row reduction is the input's first.
  %r = fuse.reduce add %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %d1 = tensor.dim %r, %c0 : tensor<?xf32>
  %s = fuse.scan inclusive add %x dim 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %d2 = tensor.dim %s, %c0 : tensor<?x?xf32>
  // A broadcast's new dimension is its size operand, a kept one the input's.
  %b = fuse.broadcast %v dims [0] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %d3 = tensor.dim %b, %c0 : tensor<?x?xf32>
  %d4 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %b4 = fuse.broadcast %v dims [0] : tensor<?xf32> -> tensor<4x?xf32>
  %c0b = arith.constant 0 : index
  %d5 = tensor.dim %b4, %c0b : tensor<4x?xf32>
  %io = fuse.iota %n : tensor<?xi64>
  %d6 = tensor.dim %io, %c0 : tensor<?xi64>
  %g = fuse.gather %v[%i] : tensor<?xf32>, tensor<2x?xi32> -> tensor<2x?xf32>
  %d7 = tensor.dim %g, %c1 : tensor<2x?xf32>
  %f = fuse.filter %v : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%e: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %e, %z : f32
    fuse.yield %p : i1
  }
  %d8 = tensor.dim %f, %c0 : tensor<?xf32>
  return %d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7, %d8
      : index, index, index, index, index, index, index, index, index
}

// A searchsorted takes its needles' sizes, not the sorted tensor's.
// CHECK-LABEL: func.func @searchsorted_dims
// CHECK-SAME: (%[[A:[^:]+]]: tensor<?xf32>, %[[W:[^:]+]]: tensor<?x?xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[W]], %{{.+}} : tensor<?x?xf32>
// CHECK-NOT: fuse.searchsorted
// CHECK: return %[[D]]
func.func @searchsorted_dims(%a: tensor<?xf32>, %w: tensor<?x?xf32>) -> index {
  %p = fuse.searchsorted left %a, %w : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xi64>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %p, %c1 : tensor<?x?xi64>
  return %d : index
}

// A histogram's size is its `bins` operand.
// CHECK-LABEL: func.func @histogram_dims
// CHECK-SAME: (%{{[^:]+}}: tensor<?xi64>, %[[N:[^:]+]]: index)
// CHECK-NOT: fuse.histogram
// CHECK: return %[[N]]
func.func @histogram_dims(%x: tensor<?xi64>, %n: index) -> index {
  %h = fuse.histogram %x bins(%n) : tensor<?xi64> -> tensor<?xi64>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %h, %c0 : tensor<?xi64>
  return %d : index
}

// A segmented reduction has one result per segment: the starts' length.
// CHECK-LABEL: func.func @segmented_dims
// CHECK-SAME: (%{{[^:]+}}: tensor<?xf32>, %[[S:[^:]+]]: tensor<?xi64>,
// CHECK-NOT: fuse.segmented_reduce
// CHECK: %[[D:.+]] = tensor.dim %[[S]]
// CHECK: return %[[D]]
func.func @segmented_dims(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) -> index {
  %r = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  return %d : index
}
