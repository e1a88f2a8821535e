// RUN: fuse-opt %s --fuse-fusion | FileCheck %s
// RUN: fuse-opt %s --fuse-to-cpu -o /dev/null
// A row maximum broadcast along the columns (dims [0]) cannot join the
// reduction's row_reduce group, and neither may a later consumer of both
// groups merge them (found by fuse-fuzz: the merged group failed the
// verifier). The final map stays apart, with the reason recorded.
// CHECK-LABEL: func.func @logsumexp_cols
// CHECK: fuse.group row_reduce
// CHECK: fuse.group {{.*}}merging would broadcast a row result of one group along its columns
func.func @logsumexp_cols(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %max = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %maxb = fuse.broadcast %max dims [0] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %e = fuse.map %x, %maxb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %m: f32):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d fastmath<afn> : f32
    fuse.yield %ex : f32
  }
  %sum = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %y = fuse.map %sum, %max : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%s: f32, %m: f32):
    %l = math.log %s : f32
    %r = arith.addf %l, %m : f32
    fuse.yield %r : f32
  }
  return %y : tensor<?xf32>
}
