// A map of the row reductions' results (one value a row: the narrowing
// of a sum fuse-widen-accumulators made wider, a mix of two row results)
// between the row reductions and the broadcast back is collapsed to rank
// 1 with them, so fusion keeps one row group (left at rank R - 1, it was a
// group of its own, and the row epilogue after it a third). The collapsed
// function, fused, agrees bit for bit with the function as written,
// unfused, at rank 3 and rank 4.
// RUN: fuse-opt %s --fuse-collapse-rows --cse | FileCheck %s
// RUN: fuse-opt %s --fuse-collapse-rows --cse --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s --fuse-collapse-rows -o %t/collapsed.mlir
// RUN: fuse-run %t/collapsed.mlir --entry softmax_mix --arg rand:3x4x33 --out %t/a
// RUN: fuse-run %s --entry softmax_mix --arg rand:3x4x33 --no-fusion --out %t/b
// RUN: fuse-run %t/collapsed.mlir --entry rank4 --arg rand:2x3x4x9 --out %t/c
// RUN: fuse-run %s --entry rank4 --arg rand:2x3x4x9 --no-fusion --out %t/d
// RUN: %python -c "import numpy as n, sys; r = lambda d: n.load(d + '/result0.npy'); a, b, c, d = map(r, sys.argv[1:]); assert a.shape == (3, 4, 33) and c.shape == (2, 3, 4, 9) and (a == b).all() and (c == d).all()" %t/a %t/b %t/c %t/d

// CHECK-LABEL: func.func @softmax_mix
// CHECK: fuse.reduce max %{{.+}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: fuse.reduce add %{{.+}} dims [1] : tensor<?x?xf64> -> tensor<?xf64>
// CHECK: fuse.map %{{.+}}, %{{.+}} : tensor<?xf64>, tensor<?xf32> -> tensor<?xf32>
// CHECK-NOT: tensor<?x?x?xf32> {
// EXPLAIN: total for @softmax_mix: 1 pass, 1 kernel
// CHECK-LABEL: func.func @rank4
// CHECK: fuse.map %{{.+}} : tensor<?xf32> -> tensor<?xf32>
// EXPLAIN: total for @rank4: 1 pass, 1 kernel
func.func @softmax_mix(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c2 = arith.constant 2 : index
  %k = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %m = fuse.reduce max %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %bm = fuse.broadcast %m dims [2] (%k) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %e = fuse.map %x, %bm : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf64> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %ex = math.exp %d : f32
    %w = arith.extf %ex : f32 to f64
    fuse.yield %w : f64
  }
  %s = fuse.reduce add %e dims [2] : tensor<?x?x?xf64> -> tensor<?x?xf64>
  // One value a row from two row results.
  %t = fuse.map %s, %m : tensor<?x?xf64>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f64, %b: f32):
    %n = arith.truncf %a : f64 to f32
    %p = arith.addf %n, %b : f32
    fuse.yield %p : f32
  }
  %bs = fuse.broadcast %t dims [2] (%k) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %r = fuse.map %x, %bs : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b : f32
    fuse.yield %q : f32
  }
  return %r : tensor<?x?x?xf32>
}

func.func @rank4(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %c3 = arith.constant 3 : index
  %k = tensor.dim %x, %c3 : tensor<?x?x?x?xf32>
  %s = fuse.reduce add %x dims [3] : tensor<?x?x?x?xf32> -> tensor<?x?x?xf32>
  %t = fuse.map %s : tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32):
    %c = arith.constant 0.25 : f32
    %p = arith.mulf %a, %c : f32
    fuse.yield %p : f32
  }
  %bs = fuse.broadcast %t dims [3] (%k) : tensor<?x?x?xf32> -> tensor<?x?x?x?xf32>
  %r = fuse.map %x, %bs : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %q = arith.subf %a, %b : f32
    fuse.yield %q : f32
  }
  return %r : tensor<?x?x?x?xf32>
}
