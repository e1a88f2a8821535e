// ARGS: rand:3x5000 rand:3x5000 rand:37x129 rand:37x129
// RULE: close
// Row groups with a map input the body never reads (kept for the run-time
// check that its shape is the others'): the staged kernel (5000 f32
// columns) and the register kernel (129) neither load nor stage it, and
// its f64 elements do not narrow the f32 rows' vectors.
func.func @rows_unread_input(%x: tensor<?x?xf32>, %w: tensor<?x?xf64>,
                             %y: tensor<?x?xf32>, %v: tensor<?x?xi8>)
    -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %m = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mb = fuse.broadcast %m dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %d = fuse.map %x, %mb, %w : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf64> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32, %unread: f64):
    %s = arith.subf %a, %b : f32
    fuse.yield %s : f32
  }
  %e = fuse.map %y, %v : tensor<?x?xf32>, tensor<?x?xi8> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %unread: i8):
    %t = math.exp %a : f32
    fuse.yield %t : f32
  }
  %r = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %d, %r : tensor<?x?xf32>, tensor<?xf32>
}
