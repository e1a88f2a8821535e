// fuse-collapse-rows: a reduction over a leading or trailing block of two
// or more (not all) dimensions of a rank > 2 tensor is a column or row
// reduction of the collapsed matrix, which the GPU kernels take (over two
// of three dimensions they rejected it); the collapsed program gives the
// rank-3 loops' results on the CPU.
// RUN: fuse-opt %s --fuse-collapse-rows | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s --fuse-collapse-rows -o %t/collapsed.mlir
// RUN: fuse-run %t/collapsed.mlir --entry lead --arg rand:3x5x7 --out %t/a
// RUN: fuse-run %s --entry lead --arg rand:3x5x7 --no-fusion --out %t/b
// RUN: fuse-run %t/collapsed.mlir --entry trail --arg rand:3x5x7 --out %t/c
// RUN: fuse-run %s --entry trail --arg rand:3x5x7 --no-fusion --out %t/d
// RUN: %python -c "import numpy as n, sys; r = lambda d: n.load(d + '/result0.npy'); a, b, c, d = map(r, sys.argv[1:]); assert a.shape == (7,) and c.shape == (3,) and (a == b).all() and (c == d).all(), (a - b, c - d)" %t/a %t/b %t/c %t/d
// RUN: fuse-compile %s --emit=ptx -o %t/edge.ptx

// CHECK-LABEL: func.func @lead
// CHECK: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK: fuse.reduce max %[[C]] dims [0] : tensor<?x?xf32> -> tensor<?xf32>
func.func @lead(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce max %x dims [0, 1] : tensor<?x?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// CHECK-LABEL: func.func @trail
// CHECK: %[[C:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK: fuse.reduce max %[[C]] dims [1] : tensor<?x?xf32> -> tensor<?xf32>
func.func @trail(%x: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce max %x dims [1, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
