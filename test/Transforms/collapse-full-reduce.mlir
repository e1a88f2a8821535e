// A full reduction of a value fuse-collapse-rows expanded back to rank 3
// reduces the collapsed value instead (the same elements in the same
// row-major order), so fusion puts it in the group of the map that makes
// it: a rank-3 row sum broadcast into a map, then the max of that map and
// a second map of it, reads and writes 12 bytes an element, not 16 (the
// map's result is not written for the max to read it again). The
// collapsed function, fused, agrees bit for bit with the function as
// written, unfused; with static shapes the rewrite keeps them.
// RUN: fuse-opt %s --fuse-collapse-rows --cse | FileCheck %s
// RUN: fuse-opt %s --fuse-collapse-rows --cse --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %S/Inputs/collapse-full-reduce-static.mlir --fuse-collapse-rows | FileCheck %s --check-prefix=STATIC
// RUN: fuse-opt %s --fuse-collapse-rows -o %t/collapsed.mlir
// RUN: fuse-run %t/collapsed.mlir --entry rows_then_max --arg rand:3x4x33 --out %t/a
// RUN: fuse-run %s --entry rows_then_max --arg rand:3x4x33 --no-fusion --out %t/b
// RUN: %python -c "import numpy as n, sys; r = [[n.load(sys.argv[i] + '/result%%d.npy' %% k) for k in (0, 1)] for i in (1, 2)]; assert r[0][0].shape == (3, 4, 33) and all((a == b).all() for a, b in zip(*r))" %t/a %t/b

// CHECK-LABEL: func.func @rows_then_max
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]]
// CHECK: %[[M:.+]] = fuse.map %{{.+}}, %[[C]] : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: fuse.reduce max %[[M]] dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
// STATIC: fuse.reduce max %{{.+}} dims [0, 1] : tensor<12x33xf32> -> tensor<f32>
// EXPLAIN: total for @rows_then_max: 2 passes, 3 kernels, read 8*n*m*k + 4*n*m bytes, write 4*n*m*k + 4*n*m + 4 bytes;
// A full reduction of an argument (no expand) stays as written.
// CHECK-LABEL: func.func @untouched
// CHECK: fuse.reduce max %{{.+}} : tensor<?x?x?xf32> -> tensor<f32>
func.func @rows_then_max(%x: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<f32>) {
  %c2 = arith.constant 2 : index
  %k = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %s = fuse.reduce add %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %b = fuse.broadcast %s dims [2] (%k) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %m = fuse.map %b, %x : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %y: f32):
    %d = arith.addf %y, %a : f32
    fuse.yield %d : f32
  }
  %t = fuse.reduce max %m : tensor<?x?x?xf32> -> tensor<f32>
  %e = fuse.map %m, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %y: f32):
    %p = arith.mulf %a, %y : f32
    fuse.yield %p : f32
  }
  return %e, %t : tensor<?x?x?xf32>, tensor<f32>
}

func.func @untouched(%x: tensor<?x?x?xf32>) -> tensor<f32> {
  %t = fuse.reduce max %x : tensor<?x?x?xf32> -> tensor<f32>
  return %t : tensor<f32>
}
