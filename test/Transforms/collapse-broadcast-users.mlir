// fuse-collapse-rows: a broadcast of a rank-3 row result read both by ops
// it rewrites (the map) and by ops it leaves at rank 3 (the scan) gives
// the latter the rank-3 broadcast of the small per-row values, placed
// just before them, which fusion computes in their own group, instead of
// the full-size collapsed broadcast expanded back (a tensor written for
// the scan to read). The values match the program before the pass on the
// CPU.
// RUN: fuse-opt %s --fuse-collapse-rows --cse --canonicalize | FileCheck %s
// RUN: fuse-opt %s --fuse-collapse-rows --cse --canonicalize --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s --fuse-collapse-rows -o %t/collapsed.mlir
// RUN: fuse-run %s --arg rand:4x3x40 --out %t/ref
// RUN: fuse-run %t/collapsed.mlir --arg rand:4x3x40 --out %t/new
// RUN: cmp %t/ref/result0.npy %t/new/result0.npy
// RUN: cmp %t/ref/result1.npy %t/new/result1.npy

// CHECK-LABEL: func.func @row_max_users
// CHECK: %[[R:.+]] = fuse.reduce max %{{.*}} dims [1] : tensor<12x40xf32> -> tensor<12xf32>
// CHECK: %[[B2:.+]] = fuse.broadcast %[[R]] dims [1] : tensor<12xf32> -> tensor<12x40xf32>
// CHECK: fuse.map %{{.*}}, %[[B2]]
// CHECK: %[[E:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [4, 3] : tensor<12xf32> into tensor<4x3xf32>
// CHECK-NEXT: %[[B3:.+]] = fuse.broadcast %[[E]] dims [2] : tensor<4x3xf32> -> tensor<4x3x40xf32>
// CHECK-NEXT: fuse.scan inclusive add %[[B3]]

// One row group (the maximum and the map), and the scan reading the 12
// row maxima.
// EXPLAIN: group "row_reduce": read 1920 bytes, write 1968 bytes
// EXPLAIN: group "scan": read 48 bytes, write 1920 bytes
// EXPLAIN: total for @row_max_users: 2 passes, 2 kernels

func.func @row_max_users(%x: tensor<4x3x40xf32>) -> (tensor<4x3x40xf32>, tensor<4x3x40xf32>) {
  %m = fuse.reduce max %x dims [2] : tensor<4x3x40xf32> -> tensor<4x3xf32>
  %b = fuse.broadcast %m dims [2] : tensor<4x3xf32> -> tensor<4x3x40xf32>
  %d = fuse.map %x, %b : tensor<4x3x40xf32>, tensor<4x3x40xf32> -> tensor<4x3x40xf32> {
  ^bb0(%p: f32, %q: f32):
    %s = arith.subf %p, %q : f32
    fuse.yield %s : f32
  }
  %c = fuse.scan inclusive add %b : tensor<4x3x40xf32> -> tensor<4x3x40xf32>
  return %d, %c : tensor<4x3x40xf32>, tensor<4x3x40xf32>
}
