// ARGS: rand:5x37x300
// RULE: close
// A causal-masked softmax over the last axis of heads x rows x columns,
// plus the head index as a bias: fuse-collapse-rows turns the three iotas
// into ops of the collapsed [5 * 37, 300] rows (the column iota stays an
// iota; the row and head ones become (r mod 37) and (r / 37 mod 5) of the
// collapsed row index r), and the whole is one pass. The CPU reference
// keeps rank 3.
func.func @rows3_masked_softmax(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %h = fuse.iota %d0, %d1, %d2 dim 0 : tensor<?x?x?xf32>
  %i = fuse.iota %d0, %d1, %d2 dim 1 : tensor<?x?x?xi16>
  %j = fuse.iota %d0, %d1, %d2 dim 2 : tensor<?x?x?xi16>
  %ninf = arith.constant 0xFF800000 : f32
  %xm = fuse.map %x, %h, %i, %j : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xi16>, tensor<?x?x?xi16> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %hb: f32, %r: i16, %c: i16):
    %keep = arith.cmpi sle, %c, %r : i16
    %ab = arith.addf %a, %hb : f32
    %v = arith.select %keep, %ab, %ninf : f32
    fuse.yield %v : f32
  }
  %m = fuse.reduce max %xm dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %mb = fuse.broadcast %m dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %e = fuse.map %xm, %mb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %ex = math.exp %d : f32
    fuse.yield %ex : f32
  }
  %s = fuse.reduce add %e dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %sb = fuse.broadcast %s dims [2] (%d2) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %y = fuse.map %e, %sb : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?x?xf32>
}
