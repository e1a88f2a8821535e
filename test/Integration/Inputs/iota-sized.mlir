// An iota sized by a scalar argument (huge-sizes.test).
func.func @ramp(%n: index) -> tensor<?xf32> {
  %i = fuse.iota %n : tensor<?xf32>
  return %i : tensor<?xf32>
}
