// variance: mean((x - mean(x))^2), the population variance, written
// plainly: a sum, its broadcast, a map of squared deviations and a second
// sum. n comes from tensor.dim, converted to f32 and captured by the map
// bodies. An empty x gives 0/0 = NaN, as numpy.var does.
func.func @variance(%x: tensor<?xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.uitofp %ni : i64 to f32
  %sum = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %sumb = fuse.broadcast %sum dims [0] (%n) : tensor<f32> -> tensor<?xf32>
  %dev = fuse.map %x, %sumb : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %s: f32):
    %mean = arith.divf %s, %nf : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    fuse.yield %d2 : f32
  }
  %ss = fuse.reduce add %dev : tensor<?xf32> -> tensor<f32>
  %var = fuse.map %ss : tensor<f32> -> tensor<f32> {
  ^bb0(%a: f32):
    %v = arith.divf %a, %nf : f32
    fuse.yield %v : f32
  }
  return %var : tensor<f32>
}
