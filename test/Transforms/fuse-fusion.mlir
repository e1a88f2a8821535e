// RUN: fuse-opt %s --split-input-file --fuse-fusion | FileCheck %s

// map -> map -> map: one elementwise group; constants cloned in.
// CHECK-LABEL: func @chain
// CHECK: fuse.group elementwise (%{{.*}}) : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-COUNT-2: fuse.map
// CHECK: fuse.yield
// CHECK-NOT: fuse.map
// CHECK: return
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = arith.constant 1.5 : f32
  %t = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %c : f32
    fuse.yield %m : f32
  }
  %y = fuse.map %t, %x : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %y : tensor<?xf32>
}

// -----

// map -> reduce, with the map result also returned: multi-output.
// CHECK-LABEL: func @sumsq_multi
// CHECK: %[[G:.+]]:2 = fuse.group reduce (%{{.*}}) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>)
// CHECK: fuse.map
// CHECK: fuse.reduce add
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @sumsq_multi(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %sq, %s : tensor<?xf32>, tensor<f32>
}

// -----

// Sibling reductions over the same input share one pass.
// CHECK-LABEL: func @siblings
// CHECK: %[[G:.+]]:2 = fuse.group reduce (%{{.*}}) : (tensor<?xf32>) -> (tensor<f32>, tensor<f32>)
// CHECK: fuse.reduce add
// CHECK: fuse.reduce max
// CHECK-NOT: fuse.group
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @siblings(%x: tensor<?xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %m = fuse.reduce max %x : tensor<?xf32> -> tensor<f32>
  return %s, %m : tensor<f32>, tensor<f32>
}

// -----

// map -> scan -> map: prologue and epilogue in the scan group.
// CHECK-LABEL: func @scan_epilogue
// CHECK: fuse.group scan
// CHECK: fuse.map
// CHECK: fuse.scan inclusive add
// CHECK: fuse.map
// CHECK-NOT: fuse.group
func.func @scan_epilogue(%x: tensor<?xf32>) -> tensor<?xf32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %y = fuse.scan inclusive add %sq : tensor<?xf32> -> tensor<?xf32>
  %z = fuse.map %y : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = math.sqrt %a : f32
    fuse.yield %p : f32
  }
  return %z : tensor<?xf32>
}

// -----

// map -> filter.
// CHECK-LABEL: func @map_filter
// CHECK: fuse.group filter
// CHECK: fuse.map
// CHECK: fuse.filter
// CHECK-NOT: fuse.group
func.func @map_filter(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %t = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.addf %a, %a : f32
    fuse.yield %p : f32
  }
  %k = fuse.filter %t : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %k : tensor<?xf32>
}

// -----

// An iota returned beside a map of it: the map's group, which computes the
// iota anyway, writes it too (one group, one iota in it).
// CHECK-LABEL: func @iota_returned
// CHECK: %[[G:.+]]:2 = fuse.group elementwise
// CHECK-COUNT-1: fuse.iota
// CHECK-NOT: fuse.iota
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @iota_returned(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %i = fuse.iota %r, %c dim 1 : tensor<?x?xf32>
  %m = fuse.map %i, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %b, %a : f32
    fuse.yield %s : f32
  }
  return %i, %m : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A returned broadcast written after a map's equivalent broadcast (as
// fuse-collapse-rows leaves them): the map's group writes its copy in the
// returned one's place; neither op is used after it was erased, and the
// map keeps a defined operand.
// CHECK-LABEL: func @broadcast_copy_later
// CHECK: %[[G:.+]]:2 = fuse.group elementwise
// CHECK-COUNT-1: fuse.broadcast
// CHECK-NOT: fuse.broadcast
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
// CHECK: return %[[G]]#{{[01]}}, %[[G]]#{{[01]}}
func.func @broadcast_copy_later(%v: tensor<?xf32>, %x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %b = fuse.broadcast %v dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %m = fuse.map %b, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %y: f32):
    %s = arith.subf %y, %a : f32
    fuse.yield %s : f32
  }
  %c = fuse.broadcast %v dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  return %c, %m : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// iota and gather are inlined into their consumer.
// CHECK-LABEL: func @iota_gather
// CHECK: fuse.group reduce (%{{.*}}, %{{.*}}, %{{.*}}) : (index, tensor<?xf32>, tensor<?xi64>) -> tensor<f32>
// CHECK: fuse.iota
// CHECK: fuse.gather
// CHECK: fuse.map
// CHECK: fuse.reduce
// CHECK-NOT: fuse.group
func.func @iota_gather(%n: index, %src: tensor<?xf32>, %idx: tensor<?xi64>) -> tensor<f32> {
  %i = fuse.iota %n : tensor<?xf32>
  %g = fuse.gather %src[%idx] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  %p = fuse.map %i, %g : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Must not fuse: a full reduction feeding a map over the same input needs
// two passes. The second group reads the 0-d sum in place.
// CHECK-LABEL: func @normalize
// CHECK: %[[S:.+]] = fuse.group reduce
// CHECK: fuse.group elementwise (%[[S]], {{.*}}) {fuse.not_fused = ["not fused with fuse.reduce {{.*}}a full reduction in the producer group, at every element: that needs a second pass over memory"]}
// CHECK: fuse.broadcast
// CHECK: fuse.map
func.func @normalize(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %b = fuse.broadcast %s dims [0] (%n) : tensor<f32> -> tensor<?xf32>
  %y = fuse.map %x, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %t: f32):
    %q = arith.divf %a, %t : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?xf32>
}

// -----

// A cheap producer feeding a reduce group and a scan group is recomputed
// in both: nothing is written but the results.
// CHECK-LABEL: func @cheap_recompute
// CHECK: fuse.group reduce (%{{.*}}) : (tensor<?xf32>) -> tensor<f32>
// CHECK: fuse.group scan (%{{.*}}) {{.*}}: (tensor<?xf32>) -> tensor<?xf32>
// CHECK: fuse.map
// CHECK: fuse.scan
func.func @cheap_recompute(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %sq : tensor<?xf32> -> tensor<?xf32>
  return %s, %c : tensor<f32>, tensor<?xf32>
}

// -----

// Must not fuse: an expensive producer (10 ops > max-recompute-ops=8) with
// two consumers is materialised once and read by the second group.
// CHECK-LABEL: func @expensive
// CHECK: %[[G:.+]]:2 = fuse.group reduce (%{{.*}}) : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>)
// CHECK: fuse.group scan (%[[G]]#0) {fuse.not_fused = [{{.*}}"producer fuse.map {{.*}} has 10 body ops (max-recompute-ops=8): materialised once and read from memory"]}
func.func @expensive(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %e = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p0 = math.exp %a : f32
    %p1 = math.exp %p0 : f32
    %p2 = math.exp %p1 : f32
    %p3 = math.exp %p2 : f32
    %p4 = math.exp %p3 : f32
    %p5 = math.exp %p4 : f32
    %p6 = math.exp %p5 : f32
    %p7 = math.exp %p6 : f32
    %p8 = math.exp %p7 : f32
    %p9 = math.exp %p8 : f32
    fuse.yield %p9 : f32
  }
  %s = fuse.reduce add %e : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %e : tensor<?xf32> -> tensor<?xf32>
  return %s, %c : tensor<f32>, tensor<?xf32>
}

// -----

// Row-wise: softmax is one row_reduce group.
// CHECK-LABEL: func @softmax
// CHECK: fuse.group row_reduce (%{{.*}}, %{{.*}}) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
// CHECK: fuse.reduce max
// CHECK: fuse.reduce add
// CHECK: fuse.yield
// CHECK-NOT: fuse.group
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
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
    %q = arith.divf %a, %s : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?xf32>
}

// -----

// Row-wise fallback: a static row of 65536 f32 (256 KiB) does not fit in
// max-row-bytes: the broadcast consumer starts a second group.
// CHECK-LABEL: func @wide_rows
// CHECK: %[[M:.+]] = fuse.group row_reduce
// CHECK: fuse.group elementwise (%[[M]], %{{.*}}) {fuse.not_fused = ["not fused with {{.*}}a row of the group takes 262144 bytes, above max-row-bytes=232448: the rows are read again by a second group"]}
func.func @wide_rows(%x: tensor<8x65536xf32>) -> tensor<8x65536xf32> {
  %max = fuse.reduce max %x dims [1] : tensor<8x65536xf32> -> tensor<8xf32>
  %maxb = fuse.broadcast %max dims [1] : tensor<8xf32> -> tensor<8x65536xf32>
  %e = fuse.map %x, %maxb : tensor<8x65536xf32>, tensor<8x65536xf32> -> tensor<8x65536xf32> {
  ^bb0(%a: f32, %m: f32):
    %d = arith.subf %a, %m : f32
    fuse.yield %d : f32
  }
  return %e : tensor<8x65536xf32>
}

// -----

// A row result broadcast along the columns (dims [0]) is read at every row:
// it is not a per-row value, so the consumer starts a second group.
// CHECK-LABEL: func @row_result_across_rows
// CHECK: %[[V:.+]] = fuse.group row_reduce
// CHECK: fuse.group elementwise (%[[V]], %{{.*}}) {fuse.not_fused = ["not fused with {{.*}}broadcasts a row result of the producer group along its columns (dims [0])
func.func @row_result_across_rows(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %m, %c0 : tensor<?x?xf32>
  %v = fuse.reduce add %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %rows = fuse.broadcast %v dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %o = fuse.map %rows, %m : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %a, %b : f32
    fuse.yield %s : f32
  }
  return %o : tensor<?x?xf32>
}

// -----

// variance = mean((x - mean(x))^2) in one pass: a Welford tuple reduction
// (count, mean, M2) next to sum(x), finished by M2 + n*(mean - c)^2.
// CHECK-LABEL: func @variance
// CHECK: fuse.group reduce (%{{.*}}, %{{.*}}) : (tensor<?xf32>, f32) -> tensor<f32>
// CHECK: fuse.reduce add
// CHECK: fuse.reduce %{{.*}}, %{{.*}}, %{{.*}} init
// CHECK-NOT: fuse.group
func.func @variance(%x: tensor<?xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.uitofp %ni : i64 to f32
  %sum = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %sumb = fuse.broadcast %sum dims [0] (%n) : tensor<f32> -> tensor<?xf32>
  %dev = fuse.map %x, %sumb : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %s: f32):
    %mean = arith.divf %s, %nf : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    fuse.yield %d2 : f32
  }
  %ss = fuse.reduce add %dev : tensor<?xf32> -> tensor<f32>
  %var = fuse.map %ss : tensor<f32> -> tensor<f32> {
  ^bb0(%a: f32):
    %v = arith.divf %a, %nf : f32
    fuse.yield %v : f32
  }
  return %var : tensor<f32>
}

// -----

// Non-fuse ops are left alone; a reduction over several dimensions but
// not all stays outside groups with the reason attached.
// CHECK-LABEL: func @leave_alone
// CHECK: arith.addf
// CHECK: fuse.reduce add %{{.*}} dims [0, 2] {fuse.not_fused = ["a reduction over several dimensions but not all is left to the per-op lowering"]}
func.func @leave_alone(%x: tensor<?x?x?xf32>, %a: f32) -> (tensor<?xf32>, f32) {
  %b = arith.addf %a, %a : f32
  %r = fuse.reduce add %x dims [0, 2] : tensor<?x?x?xf32> -> tensor<?xf32>
  return %r, %b : tensor<?xf32>, f32
}

// -----

// A row reduction's broadcast that the row group recomputes for its map
// and that is also returned: the broadcast's own group reads the row
// group's reduction, so it lands after the row group (groups are placed
// at their last op, then sorted topologically), not before it.
// CHECK-LABEL: func @row_broadcast_also_returned
// CHECK: %[[ROW:.+]]:2 = fuse.group row_reduce
// CHECK: %[[BC:.+]] = fuse.group elementwise (%[[ROW]]#0, %{{.+}})
// CHECK: return %[[ROW]]#1, %[[BC]]
func.func @row_broadcast_also_returned(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %r = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %b = fuse.broadcast %r dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %d = fuse.map %b, %x : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%p: f32, %q: f32):
    %s = arith.subf %q, %p : f32
    fuse.yield %s : f32
  }
  return %d, %b : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A reduction along one dimension (column sums: not the last of a rank-2
// tensor) joins the elementwise group computing its input: a line_reduce
// group that reads x once and returns the squares it also computes.
// CHECK-LABEL: func @column_sums_of_squares
// CHECK: %[[G:.+]]:2 = fuse.group line_reduce (%{{.*}}) : (tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)
// CHECK: fuse.map
// CHECK: fuse.reduce add %{{.*}} dims [0]
// CHECK-NOT: fuse.group
// CHECK: return %[[G]]#1, %[[G]]#0
func.func @column_sums_of_squares(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %sq = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %sq : tensor<?xf32>, tensor<?x?xf32>
}

// -----

// A line_reduce group holds one reduction: a second one over the same map
// (an init: not merged by fuse-merge-reductions) recomputes the cheap map
// in a group of its own; a map over the column sums (another space)
// starts an elementwise group; a reduction over the middle dimension of a
// rank-3 tensor is a line_reduce group too.
// CHECK-LABEL: func @line_reduce_limits
// CHECK: %[[A:.+]] = fuse.group line_reduce
// CHECK: math.exp
// CHECK: fuse.reduce max %{{.*}} dims [0]
// CHECK: %[[B:.+]] = fuse.group line_reduce (%{{.*}}) {fuse.not_fused = ["not fused with fuse.reduce {{.*}}: a reduction along one dimension (a line_reduce group) cannot join a line_reduce group"]}
// CHECK: math.exp
// CHECK: fuse.reduce add %{{.*}} init(%{{.*}} : f32) dims [0]
// CHECK: fuse.group elementwise (%[[B]]) {fuse.not_fused = ["not fused with fuse.map {{.*}}: iterates over a different space than producer group (line_reduce)"]}
// CHECK: fuse.group line_reduce
// CHECK: fuse.reduce min %{{.*}} dims [1]
func.func @line_reduce_limits(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %e = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %m = math.exp %a : f32
    fuse.yield %m : f32
  }
  %mx = fuse.reduce max %e dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %s = fuse.reduce add %e init(%one : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %h = fuse.map %s : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %mid = fuse.reduce min %y dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %mx, %h, %mid : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
}

// -----

// A scan cannot join the row_reduce group that holds the broadcast its
// map reads: the map is recomputed in the scan's group and the broadcast
// is cloned with it, so the scan's group reads the 64 row products, not
// the 64x256 broadcast tensor.
// CHECK-LABEL: func @broadcast_recomputed
// CHECK: %[[R:.+]]:2 = fuse.group row_reduce
// CHECK: fuse.reduce mul
// CHECK: fuse.broadcast
// CHECK: fuse.yield %{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64x256xf32>
// CHECK: fuse.group scan (%[[R]]#0)
// CHECK-NEXT: ^bb0(%[[V:.+]]: tensor<64xf32>):
// CHECK-NEXT: %[[B:.+]] = fuse.broadcast %[[V]] dims [1]
// CHECK-NEXT: %[[H:.+]] = fuse.map %[[B]]
// CHECK: fuse.scan inclusive add %[[H]]
func.func @broadcast_recomputed(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %r = fuse.reduce mul %x dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %b = fuse.broadcast %r dims [1] : tensor<64xf32> -> tensor<64x256xf32>
  %h = fuse.map %b : tensor<64x256xf32> -> tensor<64x256xf32> {
  ^bb0(%p: f32):
    %n = arith.negf %p : f32
    fuse.yield %n : f32
  }
  %m = fuse.map %h, %x : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x256xf32> {
  ^bb0(%p: f32, %q: f32):
    %d = arith.subf %q, %p : f32
    fuse.yield %d : f32
  }
  %s = fuse.scan inclusive add %h : tensor<64x256xf32> -> tensor<64x256xf32>
  return %m, %s : tensor<64x256xf32>, tensor<64x256xf32>
}
