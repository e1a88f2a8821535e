// ARGS: rand:9x3x2 rand:4x1x7
// RULE: exact
// Coordinates of rank-3 iotas and broadcasts where a vector chunk of a
// flat kernel crosses several rows (last dimensions of 2, 1 and 7): the
// lanes of a chunk step their coordinates from the previous lane's, with
// a carry where the remainder wraps (laneCoord). Also full reductions of
// an iota that read no tensor (chunks of 4 computed elements).
func.func @iota_chain(%x: tensor<?x?x?xf32>, %y: tensor<?x?x?xf32>)
    -> (tensor<?x?x?xf32>, tensor<?x?x?xi64>, tensor<i64>, tensor<f64>,
        tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %a1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %a2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %i0 = fuse.iota %a0, %a1, %a2 dim 0 : tensor<?x?x?xf32>
  %i1 = fuse.iota %a0, %a1, %a2 dim 1 : tensor<?x?x?xf32>
  %i2 = fuse.iota %a0, %a1, %a2 dim 2 : tensor<?x?x?xf32>
  %m = fuse.map %x, %i0, %i1, %i2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%v: f32, %p: f32, %q: f32, %r: f32):
    %k = arith.constant 100.0 : f32
    %h = arith.constant 10.0 : f32
    %pk = arith.mulf %p, %k : f32
    %qh = arith.mulf %q, %h : f32
    %s = arith.addf %pk, %qh : f32
    %t = arith.addf %s, %r : f32
    %u = arith.addf %t, %v : f32
    fuse.yield %u : f32
  }
  %b0 = tensor.dim %y, %c0 : tensor<?x?x?xf32>
  %b1 = tensor.dim %y, %c1 : tensor<?x?x?xf32>
  %b2 = tensor.dim %y, %c2 : tensor<?x?x?xf32>
  %j0 = fuse.iota %b0, %b1, %b2 dim 0 : tensor<?x?x?xi64>
  %j1 = fuse.iota %b0, %b1, %b2 dim 1 : tensor<?x?x?xi64>
  %j2 = fuse.iota %b0, %b1, %b2 dim 2 : tensor<?x?x?xi64>
  %mj = fuse.map %j0, %j1, %j2 : tensor<?x?x?xi64>, tensor<?x?x?xi64>, tensor<?x?x?xi64> -> tensor<?x?x?xi64> {
  ^bb0(%p: i64, %q: i64, %r: i64):
    %k = arith.constant 10000 : i64
    %h = arith.constant 100 : i64
    %pk = arith.muli %p, %k : i64
    %qh = arith.muli %q, %h : i64
    %s = arith.addi %pk, %qh : i64
    %t = arith.addi %s, %r : i64
    fuse.yield %t : i64
  }
  %zero = arith.constant 0 : i64
  %sum = fuse.reduce add %mj init(%zero : i64) : tensor<?x?x?xi64> -> tensor<i64>
  %f1 = fuse.iota %a0, %a1, %a2 dim 1 : tensor<?x?x?xf64>
  %lo = arith.constant -1.0 : f64
  %mn = fuse.reduce max %f1 init(%lo : f64) : tensor<?x?x?xf64> -> tensor<f64>
  %lo32 = arith.constant 0.0 : f32
  %wy = fuse.reduce add %y init(%lo32 : f32) dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %bw = fuse.broadcast %wy dims [1] (%b1) : tensor<?x?xf32> -> tensor<?x?x?xf32>
  %sy = fuse.map %y, %bw : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%v: f32, %w: f32):
    %t = arith.subf %v, %w : f32
    fuse.yield %t : f32
  }
  return %m, %mj, %sum, %mn, %sy : tensor<?x?x?xf32>, tensor<?x?x?xi64>, tensor<i64>, tensor<f64>, tensor<?x?x?xf32>
}
