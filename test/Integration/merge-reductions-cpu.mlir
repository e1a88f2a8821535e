// Sibling partial reductions merged by fuse-merge-reductions (the CPU
// pipeline with fusion) give what each gives alone (--no-fusion: no merge).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/x.npy '<f4' 3,4 '1,-2,3,4,5,6,-7,8,9,10,11,-12'
// RUN: fuse-run %s --entry=column_stats --arg=%t/x.npy --print | FileCheck %s
// RUN: fuse-run %s --entry=column_stats --no-fusion --arg=%t/x.npy --print | FileCheck %s
// RUN: fuse-opt %s --fuse-merge-reductions | FileCheck %s --check-prefix=MERGED

// MERGED: fuse.reduce (add, max, min, max, add) %arg0, %arg0, %arg0, %arg0, %{{.+}} dims [0]
// CHECK: result #0: float32 array of shape (4,)
// CHECK-NEXT: [15, 14, 7, 0]
// CHECK: result #1: float32 array of shape (4,)
// CHECK-NEXT: [9, 10, 11, 8]
// CHECK: result #2: float32 array of shape (4,)
// CHECK-NEXT: [1, -2, -7, -12]
// CHECK: result #3: float32 array of shape (4,)
// CHECK-NEXT: [107, 140, 179, 224]
func.func @column_stats(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %sq = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %t = arith.mulf %a, %a : f32
    fuse.yield %t : f32
  }
  %s = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m = fuse.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %n = fuse.reduce min %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %m2, %q = fuse.reduce (max, add) %x, %sq dims [0] : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
  return %s, %m2, %n, %q : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
