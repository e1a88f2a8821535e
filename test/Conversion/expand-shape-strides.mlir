// fuse-expand-shape-strides: memref.expand_shape with two or more dynamic
// sizes in a reassociation group (on which MLIR 22's
// expand-strided-metadata crashes) becomes memref.reinterpret_cast of the
// source's base buffer, with output_shape's sizes and, within a group, the
// source dimension's stride times the later dimensions' sizes. Other
// expand_shape ops are left alone.
// RUN: fuse-opt %s --fuse-expand-shape-strides | FileCheck %s
// RUN: fuse-opt %s --fuse-expand-shape-strides --expand-strided-metadata | FileCheck %s --check-prefix=LOWERED
//
// End to end on the CPU: a rank-2 argument viewed as [a, b, k] (the
// sizes given) equals NumPy's reshape of it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %S/Inputs/expand-dynamic-group.mlir --entry view3 --arg rand:6x5 --arg scalar:2 --arg scalar:3 --out %t --save-inputs
// RUN: %python -c "import numpy as n, sys; d = sys.argv[1]; x = n.load(d + '/arg0.npy'); r = n.load(d + '/result0.npy'); assert r.shape == (2, 3, 5) and (r == x.reshape(2, 3, 5)).all()" %t

// CHECK-LABEL: func.func @two_dynamic
// CHECK: %[[BASE:.+]], %[[OFF:.+]], %{{.+}}:2, %[[ST:.+]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[S0:.+]] = arith.muli %[[ST]]#0, %arg2 : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%arg1, %arg2, %{{.+}}], strides: [%[[S0]], %[[ST]]#0, 1] : memref<f32> to memref<?x?x?xf32>
// CHECK-NOT: memref.expand_shape
// LOWERED-LABEL: func.func @two_dynamic
// LOWERED-NOT: memref.expand_shape
func.func @two_dynamic(%x: memref<?x?xf32>, %a: index, %b: index) -> memref<?x?x?xf32> {
  %c1 = arith.constant 1 : index
  %k = memref.dim %x, %c1 : memref<?x?xf32>
  %e = memref.expand_shape %x [[0, 1], [2]] output_shape [%a, %b, %k] : memref<?x?xf32> into memref<?x?x?xf32>
  return %e : memref<?x?x?xf32>
}

// A strided source (dynamic offset and strides): the result keeps its
// offset and the group's innermost stride is the source's.
// CHECK-LABEL: func.func @strided_source
// CHECK: %[[BASE:.+]], %[[OFF:.+]], %{{.+}}:2, %[[ST:.+]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[S1:.+]] = arith.muli %[[ST]]#1, %arg3 : index
// CHECK: %[[S0:.+]] = arith.muli %[[S1]], %arg2 : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%{{.+}}, %arg2, %arg3], strides: [%[[ST]]#0, %[[S0]], %[[S1]], %[[ST]]#1]
func.func @strided_source(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>, %n: index, %b: index, %c: index) -> memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>> {
  %c0 = arith.constant 0 : index
  %d0 = memref.dim %x, %c0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
  %e = memref.expand_shape %x [[0], [1, 2, 3]] output_shape [%d0, %n, %b, %c] : memref<?x?xf32, strided<[?, ?], offset: ?>> into memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  return %e : memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
}

// One dynamic size a group: expand-strided-metadata's own case.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: memref.expand_shape
// CHECK-NOT: memref.reinterpret_cast
func.func @one_dynamic(%x: memref<?x?xf32>, %a: index) -> memref<?x4x?xf32> {
  %c1 = arith.constant 1 : index
  %k = memref.dim %x, %c1 : memref<?x?xf32>
  %e = memref.expand_shape %x [[0, 1], [2]] output_shape [%a, 4, %k] : memref<?x?xf32> into memref<?x4x?xf32>
  return %e : memref<?x4x?xf32>
}
