// A rank-3 map that reads the tensor a collapsed row reduction reads (a
// sibling, neither feeding nor reading the row computation) is collapsed
// with it, so fusion's sibling merge puts both in the row group: one pass
// reads the argument once (left at rank 3, the map was a group over
// another shape and a second pass over the argument). The collapsed
// function, fused, agrees bit for bit with the function as written,
// unfused.
// RUN: fuse-opt %s --fuse-collapse-rows --cse | FileCheck %s
// RUN: fuse-opt %s --fuse-collapse-rows --cse --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-opt %s --fuse-collapse-rows -o %t/collapsed.mlir
// RUN: fuse-run %t/collapsed.mlir --entry rows_and_sibling --arg rand:3x4x33 --out %t/a
// RUN: fuse-run %s --entry rows_and_sibling --arg rand:3x4x33 --no-fusion --out %t/b
// RUN: %python -c "import numpy as n, sys; r = [[n.load(sys.argv[i] + '/result%%d.npy' %% k) for k in (0, 1)] for i in (1, 2)]; assert r[0][0].shape == (3, 4, 33) and all((a == b).all() for a, b in zip(*r))" %t/a %t/b

// CHECK-LABEL: func.func @rows_and_sibling
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]]
// CHECK: fuse.map %[[C]] : tensor<?x?xi32> -> tensor<?x?xi32>
// CHECK: fuse.reduce max %[[C]] dims [1] : tensor<?x?xi32> -> tensor<?xi32>
// EXPLAIN: total for @rows_and_sibling: 1 pass, 1 kernel, read 4*n*m*k bytes, write 8*n*m*k bytes;
// A rank-3 map beside a full reduction (nothing collapsed) keeps its rank.
// CHECK-LABEL: func.func @no_rows
// CHECK: fuse.map %arg0 : tensor<?x?x?xi32> -> tensor<?x?x?xi32>
func.func @rows_and_sibling(%x: tensor<?x?x?xi32>) -> (tensor<?x?x?xi32>, tensor<?x?x?xi32>) {
  %sq = fuse.map %x : tensor<?x?x?xi32> -> tensor<?x?x?xi32> {
  ^bb0(%a: i32):
    %p = arith.muli %a, %a : i32
    fuse.yield %p : i32
  }
  %c2 = arith.constant 2 : index
  %k = tensor.dim %x, %c2 : tensor<?x?x?xi32>
  %m = fuse.reduce max %x dims [2] : tensor<?x?x?xi32> -> tensor<?x?xi32>
  %b = fuse.broadcast %m dims [2] (%k) : tensor<?x?xi32> -> tensor<?x?x?xi32>
  %d = fuse.map %x, %b : tensor<?x?x?xi32>, tensor<?x?x?xi32> -> tensor<?x?x?xi32> {
  ^bb0(%a: i32, %y: i32):
    %s = arith.subi %y, %a : i32
    fuse.yield %s : i32
  }
  return %d, %sq : tensor<?x?x?xi32>, tensor<?x?x?xi32>
}

func.func @no_rows(%x: tensor<?x?x?xi32>) -> (tensor<?x?x?xi32>, tensor<i32>) {
  %sq = fuse.map %x : tensor<?x?x?xi32> -> tensor<?x?x?xi32> {
  ^bb0(%a: i32):
    %p = arith.muli %a, %a : i32
    fuse.yield %p : i32
  }
  %m = fuse.reduce max %x : tensor<?x?x?xi32> -> tensor<i32>
  return %sq, %m : tensor<?x?x?xi32>, tensor<i32>
}
