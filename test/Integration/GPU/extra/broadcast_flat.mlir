// ARGS: rand:37x129 rand:37 rand:129 rand:5x7x33 rand:5x33
// RULE: exact
// Broadcasts of group operands of lower rank in flat elementwise groups
// (the kernel reads the broadcast's input at the delinearized coordinates
// of its flat index): a per-row value (x - v[:, None]), a per-column value
// (x * u[None, :]) and a rank-2 value along the middle of a rank-3 shape.
func.func @broadcast_flat(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %u: tensor<?xf32>,
                          %y: tensor<?x?x?xf32>, %w: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %bv = fuse.broadcast %v dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %bu = fuse.broadcast %u dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %m = fuse.map %x, %bv, %bu : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %p: f32, %q: f32):
    %d = arith.subf %a, %p : f32
    %t = arith.mulf %d, %q : f32
    fuse.yield %t : f32
  }
  %mid = tensor.dim %y, %c1 : tensor<?x?x?xf32>
  %bw = fuse.broadcast %w dims [1] (%mid) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %s = fuse.map %y, %bw : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %p: f32):
    %t = arith.addf %a, %p : f32
    fuse.yield %t : f32
  }
  return %m, %s : tensor<?x?xf32>, tensor<?x?x?xf32>
}
