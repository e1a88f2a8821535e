// select: the elements x > 0 of x, in order; the count is the result's size
// (4n + 4 * count bytes).
func.func @select(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}
