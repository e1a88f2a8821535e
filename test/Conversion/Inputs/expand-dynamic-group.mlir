// A rank-2 argument viewed as [a, b, k] with a and b given: an expand_shape
// with two dynamic sizes in one group (../expand-shape-strides.mlir).
func.func @view3(%x: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?x?xf32> {
  %c1 = arith.constant 1 : index
  %k = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%a, %b, %k] : tensor<?x?xf32> into tensor<?x?x?xf32>
  return %e : tensor<?x?x?xf32>
}
