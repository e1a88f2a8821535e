// Layer norm over dynamic rows (the Python package's trace of
// test/Python/rows_check.py layernorm_rows): a row sum, the sum of
// squared deviations from its mean, and the normalised, scaled rows.
func.func @layernorm_rows(%arg0: tensor<?x?xf32>, %arg1: tensor<?xf32>, %arg2: tensor<?xf32>) -> (tensor<?x?xf32>) attributes {llvm.emit_c_interface} {
  %r1 = fuse.reduce add %arg0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c2 = arith.constant 1 : index
  %d3 = tensor.dim %arg0, %c2 : tensor<?x?xf32>
  %v4 = arith.index_cast %d3 : index to i64
  %b5 = fuse.broadcast %r1 dims [1] (%d3) : tensor<?xf32> -> tensor<?x?xf32>
  %m7 = fuse.map %arg0, %b5 : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a6_0: f32, %a6_1: f32):
    %s9 = arith.sitofp %v4 : i64 to f32
    %s10 = arith.divf %a6_1, %s9 : f32
    %s11 = arith.subf %a6_0, %s10 : f32
    %s12 = arith.mulf %s11, %s11 : f32
    fuse.yield %s12 : f32
  }
  %r13 = fuse.reduce add %m7 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %b14 = fuse.broadcast %r13 dims [1] (%d3) : tensor<?xf32> -> tensor<?x?xf32>
  %c15 = arith.constant 0 : index
  %d16 = tensor.dim %arg0, %c15 : tensor<?x?xf32>
  %b17 = fuse.broadcast %arg1 dims [0] (%d16) : tensor<?xf32> -> tensor<?x?xf32>
  %b18 = fuse.broadcast %arg2 dims [0] (%d16) : tensor<?xf32> -> tensor<?x?xf32>
  %m20 = fuse.map %arg0, %b5, %b14, %b17, %b18 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a19_0: f32, %a19_1: f32, %a19_2: f32, %a19_3: f32, %a19_4: f32):
    %s22 = arith.sitofp %v4 : i64 to f32
    %s23 = arith.divf %a19_1, %s22 : f32
    %s24 = arith.subf %a19_0, %s23 : f32
    %s26 = arith.sitofp %v4 : i64 to f32
    %s27 = arith.divf %a19_2, %s26 : f32
    %s28 = arith.constant 0x3727C5AC : f32
    %s29 = arith.addf %s27, %s28 : f32
    %s30 = math.sqrt %s29 : f32
    %s31 = arith.divf %s24, %s30 : f32
    %s32 = arith.mulf %s31, %a19_3 : f32
    %s33 = arith.addf %s32, %a19_4 : f32
    fuse.yield %s33 : f32
  }
  return %m20 : tensor<?x?xf32>
}
