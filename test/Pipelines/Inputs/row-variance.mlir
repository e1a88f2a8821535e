// Row variances without a math op (the one-walk stage brings the math
// dialect itself): centre = mean, map inputs swapped and (c - x)^2; f64
// with the sum itself as the centre.
func.func @var_rows(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %s = fuse.reduce add %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ni = arith.index_cast %n : index to i64
  %b = fuse.broadcast %s dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %d = fuse.map %b, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%bb: f32, %xx: f32):
    %nf = arith.sitofp %ni : i64 to f32
    %m = arith.divf %bb, %nf : f32
    %e = arith.subf %m, %xx : f32
    %q = arith.mulf %e, %e : f32
    fuse.yield %q : f32
  }
  %v = fuse.reduce add %d dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %v : tensor<?xf32>
}
// Centre = the sum itself (no f), f64.
func.func @raw_centre(%x: tensor<?x?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %c1 = arith.constant 1 : index
  %s = fuse.reduce add %x dims [1] : tensor<?x?xf64> -> tensor<?xf64>
  %n = tensor.dim %x, %c1 : tensor<?x?xf64>
  %b = fuse.broadcast %s dims [1] (%n) : tensor<?xf64> -> tensor<?x?xf64>
  %d = fuse.map %x, %b : tensor<?x?xf64>, tensor<?x?xf64> -> tensor<?x?xf64> {
  ^bb0(%xx: f64, %bb: f64):
    %e = arith.subf %xx, %bb : f64
    %q = arith.mulf %e, %e : f64
    fuse.yield %q : f64
  }
  %v = fuse.reduce add %d dims [1] : tensor<?x?xf64> -> tensor<?xf64>
  return %s, %v : tensor<?xf64>, tensor<?xf64>
}
