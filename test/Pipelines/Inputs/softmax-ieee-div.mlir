// examples/softmax_rows.mlir without fastmath<arcp> on the division: every
// element takes an IEEE division (gpu-fastmath.test).
func.func @softmax_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %max = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %maxb = fuse.broadcast %max dims [1] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %e = fuse.map %x, %maxb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %m: f32):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d : f32
    fuse.yield %ex : f32
  }
  %sum = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sumb = fuse.broadcast %sum dims [1] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %e, %sumb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %s: f32):
    %q = arith.divf %a, %s : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?xf32>
}
