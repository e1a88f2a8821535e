// ARGS: rand:6x35x1000 rand:6x35x1000
// RULE: close
// x - max(x, axis=-1) + y over rank-3 rows with y another rank-3 argument:
// fuse-collapse-rows computes it over the [6 * 35, 1000] rows in one pass
// and records on the function that y's leading dimensions must each equal
// x's (the collapsed rows only relate their products).
// run-fuse-run-tests.sh calls it with x 2x3x64 and y 3x2x64 (same
// product) and expects the size mismatch.
func.func @rows3_two_args(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %m = fuse.reduce max %x dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %b = fuse.broadcast %m dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %z = fuse.map %x, %b, %y : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %mb: f32, %c: f32):
    %s = arith.subf %a, %mb : f32
    %t = arith.addf %s, %c : f32
    fuse.yield %t : f32
  }
  return %z : tensor<?x?x?xf32>
}
