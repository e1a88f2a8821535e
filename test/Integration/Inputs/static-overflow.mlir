// A static shape of 2^62 x 2^62 floats (huge-sizes.test).
func.func @f(%x: tensor<4611686018427387904x4611686018427387904xf32>) -> tensor<f32> {
  %s = fuse.reduce add %x : tensor<4611686018427387904x4611686018427387904xf32> -> tensor<f32>
  return %s : tensor<f32>
}
