// ARGS: rand:3x5000
// RULE: close
// f16 rows longer than the register path holds, staged in shared memory,
// in a group whose f32 result caps the vector width at 4 (8-byte chunks of
// f16): the staged copy moves each chunk with a cp.async of its own size
// (it took 16 bytes at every 8-byte step, a misaligned address and a read
// past the row).
func.func @rows_staged_half(%x: tensor<?x?xf16>) -> (tensor<?x?xf16>, tensor<?xf32>) {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf16>
  %s = fuse.reduce add %x dims [1] : tensor<?x?xf16> -> tensor<?xf16>
  %b = fuse.broadcast %s dims [1] (%n) : tensor<?xf16> -> tensor<?x?xf16>
  %y = fuse.map %x, %b : tensor<?x?xf16>, tensor<?x?xf16> -> tensor<?x?xf16> {
  ^bb0(%a: f16, %m: f16):
    %d = arith.subf %a, %m : f16
    fuse.yield %d : f16
  }
  %w = fuse.map %s : tensor<?xf16> -> tensor<?xf32> {
  ^bb0(%a: f16):
    %e = arith.extf %a : f16 to f32
    fuse.yield %e : f32
  }
  return %y, %w : tensor<?x?xf16>, tensor<?xf32>
}
