// Input of fuse-collapse-rows.mlir: a layer-norm-like row group of
// static rank-3 shape, checked there before and after the rewrite.
// A per-column vector broadcast along the leading dims becomes one
// broadcast along the collapsed rows; static shapes stay static.
// STATIC-LABEL: func.func @static_ln
// STATIC: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<3x4x129xf32> into tensor<12x129xf32>
// STATIC: fuse.reduce add %{{.*}} dims [1] : tensor<12x129xf32> -> tensor<12xf32>
// STATIC: fuse.broadcast %{{.*}} dims [0] : tensor<129xf32> -> tensor<12x129xf32>
// STATIC: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [3, 4, 129] : tensor<12x129xf32> into tensor<3x4x129xf32>
func.func @static_ln(%x: tensor<3x4x129xf32>, %w: tensor<129xf32>) -> tensor<3x4x129xf32> {
  %s = fuse.reduce add %x dims [2] : tensor<3x4x129xf32> -> tensor<3x4xf32>
  %sb = fuse.broadcast %s dims [2] : tensor<3x4xf32> -> tensor<3x4x129xf32>
  %wb = fuse.broadcast %w dims [0, 1] : tensor<129xf32> -> tensor<3x4x129xf32>
  %y = fuse.map %x, %sb, %wb : tensor<3x4x129xf32>, tensor<3x4x129xf32>, tensor<3x4x129xf32> -> tensor<3x4x129xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %t = arith.subf %a, %b : f32
    %u = arith.mulf %t, %c : f32
    fuse.yield %u : f32
  }
  return %y : tensor<3x4x129xf32>
}

