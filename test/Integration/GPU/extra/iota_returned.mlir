// ARGS: rand:5x3x37
// RULE: exact
// An iota returned beside a map of it: fusion has the map's group write
// the iota too (one kernel, the coordinates once an element); a max of an
// iota over a dimension besides its own reads one position of that
// dimension (canonicalization, ReduceIdempotentIota).
func.func @iota_returned(%x: tensor<?x?x?xf16>)
    -> (tensor<?x?x?xf16>, tensor<?x?x?xf16>, tensor<?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a0 = tensor.dim %x, %c0 : tensor<?x?x?xf16>
  %a1 = tensor.dim %x, %c1 : tensor<?x?x?xf16>
  %a2 = tensor.dim %x, %c2 : tensor<?x?x?xf16>
  %i = fuse.iota %a0, %a1, %a2 dim 2 : tensor<?x?x?xf16>
  %m = fuse.map %x, %i : tensor<?x?x?xf16>, tensor<?x?x?xf16> -> tensor<?x?x?xf16> {
  ^bb0(%v: f16, %p: f16):
    %d = arith.subf %v, %p : f16
    fuse.yield %d : f16
  }
  %lo = arith.constant -1.0 : f16
  %r = fuse.reduce max %i init(%lo : f16) dims [0, 2] : tensor<?x?x?xf16> -> tensor<?xf16>
  return %i, %m, %r : tensor<?x?x?xf16>, tensor<?x?x?xf16>, tensor<?xf16>
}
