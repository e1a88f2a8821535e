// ARGS: rand:37x129 rand:37 rand:129
// RULE: close
// Broadcasts of lower-rank group operands inside a reduce group (the sum
// of x - v[:, None]) and inside a line scan (cumsum of x * u[None, :] along
// the rows): both read the broadcast input at the delinearized
// coordinates of the flat index.
func.func @broadcast_reduce_scan(%x: tensor<?x?xf32>, %v: tensor<?xf32>, %u: tensor<?xf32>)
    -> (tensor<f32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %bv = fuse.broadcast %v dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %d = fuse.map %x, %bv : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %p: f32):
    %t = arith.subf %a, %p : f32
    fuse.yield %t : f32
  }
  %s = fuse.reduce add %d : tensor<?x?xf32> -> tensor<f32>
  %bu = fuse.broadcast %u dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %m = fuse.map %x, %bu : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %q: f32):
    %t = arith.mulf %a, %q : f32
    fuse.yield %t : f32
  }
  %cs = fuse.scan inclusive add %m dim 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %s, %cs : tensor<f32>, tensor<?x?xf32>
}
