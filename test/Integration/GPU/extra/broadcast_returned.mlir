// ARGS: rand:37x5 rand:37
// RULE: exact
// A broadcast returned beside a map of it: the map's group writes both
// (fusion, joinCopyGroup), reading the vector at each row's coordinate.
func.func @broadcast_returned(%x: tensor<?x?xf32>, %v: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %b = fuse.broadcast %v dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %m = fuse.map %x, %b : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %p: f32):
    %d = arith.subf %a, %p : f32
    fuse.yield %d : f32
  }
  return %b, %m : tensor<?x?xf32>, tensor<?x?xf32>
}
