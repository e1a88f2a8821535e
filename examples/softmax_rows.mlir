// softmax_rows: y[r, :] = softmax(X[r, :]) = exp(X[r, :] - max_r) / sum_r,
// with max_r and sum_r reductions over the row (dims [1]) broadcast back
// over it (8n bytes when fused row-wise).
//
// The division allows a reciprocal (`fastmath<arcp>`): the row's 1 / sum_r
// is computed once, correctly rounded (rcp.rn.f32), and every element is
// multiplied by it, within 1.5 ulp of the IEEE quotient. Without the flag
// each element takes an IEEE division (div.rn.f32, about eight instructions
// and a slow path): softmax over rows of 33-250 columns ran 9-21% slower on
// the H200 (docs/performance.md). The hand-written peer multiplies by
// 1 / sum too and torch.compile divides with div.full.f32 (2 ulp).
func.func @softmax_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %max = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %maxb = fuse.broadcast %max dims [1] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %e = fuse.map %x, %maxb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %m: f32):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d : f32
    fuse.yield %ex : f32
  }
  %sum = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sumb = fuse.broadcast %sum dims [1] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %e, %sumb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %s: f32):
    %q = arith.divf %a, %s fastmath<arcp> : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?xf32>
}
