// ARGS: rand:3x5x129 rand:129
// RULE: close
// A per-column vector broadcast over rank-3 rows into a map whose body
// reads a leading dimension of the rank-3 argument (gen-pipelines seed
// 385): fuse-collapse-rows computes the map over the collapsed [15, 129]
// rows, so the group's operands are the collapsed rows, the vector, and
// the rank-3 argument for its size alone, which the kernel takes from its
// size parameters instead of reading the tensor (the group was rejected:
// "an elementwise group must read and write tensors of one shape").
func.func @rows3_dim_in_body(%x: tensor<?x?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %b = fuse.broadcast %v dims [0, 1] (%d0, %d1) : tensor<?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %x, %b : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %s: f32):
    %z = arith.constant 0 : index
    %n = tensor.dim %x, %z : tensor<?x?x?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %p = arith.mulf %a, %s : f32
    %r = arith.addf %p, %nf : f32
    fuse.yield %r : f32
  }
  return %y : tensor<?x?x?xf32>
}
