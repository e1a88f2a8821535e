// fuse-shard: each entry becomes the program every shard runs on its part
// of the split data (the leading dimension of the first tensor argument and
// every size tied to it); shards meet only in fuse.all_gather, and folds
// of the shards' partial results run in shard order.
// RUN: fuse-opt %s --fuse-shard --split-input-file --verify-diagnostics | FileCheck %s

// A full reduction: local partial, gathered, folded; the map stays local.
// CHECK-LABEL: func.func @sumsq
// CHECK: %[[RANK:.+]], %{{.+}} = fuse.shard_rank
// CHECK: %[[SQ:.+]] = fuse.map %arg0
// CHECK: %[[P:.+]] = fuse.reduce add %[[SQ]] : tensor<?xf32> -> tensor<f32>
// CHECK: %[[ALL:.+]] = fuse.all_gather %[[P]] : tensor<f32> -> tensor<?xf32>
// CHECK: %[[T:.+]] = fuse.reduce add %[[ALL]] dims [0] : tensor<?xf32> -> tensor<f32>
// CHECK: return %[[T]]
func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A mean divides by the whole size (gathered), while the broadcast keeps
// the local size; an init counts on shard 0 only. The split argument's
// rows are gathered once, at the top, for the shard's start and the
// total.
// CHECK-LABEL: func.func @mean
// CHECK: %[[RANK:.+]], %{{.+}} = fuse.shard_rank
// CHECK: %[[ROWS:.+]] = tensor.dim %arg0
// CHECK: %[[N64:.+]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: %[[NT:.+]] = tensor.from_elements %[[N64]] : tensor<i64>
// CHECK: %[[NS:.+]] = fuse.all_gather %[[NT]] : tensor<i64> -> tensor<?xi64>
// CHECK: fuse.prefix %[[NS]]
// CHECK: %[[TOT:.+]] = fuse.reduce add %[[NS]] dims [0]
// CHECK: %[[E:.+]] = tensor.extract %[[TOT]][]
// CHECK: %[[G:.+]] = arith.index_cast %[[E]] : i64 to index
// CHECK: %[[N:.+]] = tensor.dim %arg0
// CHECK: arith.index_cast %[[G]] : index to i64
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[RANK]], %{{.+}} : index
// CHECK: %[[INIT:.+]] = arith.select %[[FIRST]], %{{.+}}, %{{.+}} : f32
// CHECK: fuse.reduce add %arg0 init(%[[INIT]] : f32)
// CHECK: fuse.broadcast %{{.+}} dims [0] (%[[N]])
func.func @mean(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.uitofp %ni : i64 to f32
  %s = fuse.reduce add %x init(%one : f32) : tensor<?xf32> -> tensor<f32>
  %sb = fuse.broadcast %s dims [0] (%n) : tensor<f32> -> tensor<?xf32>
  %d = fuse.map %x, %sb : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %t: f32):
    %mean = arith.divf %t, %nf : f32
    %r = arith.subf %a, %mean : f32
    fuse.yield %r : f32
  }
  return %d : tensor<?xf32>
}

// -----

// A scan: local scan, the shard's total, the fold of the totals of the
// shards before it (a prefix of the gathered totals), combined into every
// element.
// CHECK-LABEL: func.func @cumsum
// CHECK: %[[RANK:.+]], %{{.+}} = fuse.shard_rank
// CHECK: %[[TOT:.+]] = fuse.reduce add %arg0 dims [0] : tensor<?xi32> -> tensor<i32>
// CHECK: %[[Y:.+]] = fuse.scan inclusive add %arg0
// CHECK: %[[ALL:.+]] = fuse.all_gather %[[TOT]] : tensor<i32> -> tensor<?xi32>
// CHECK: %[[R64:.+]] = arith.index_cast %[[RANK]] : index to i64
// CHECK: %[[RT:.+]] = tensor.from_elements %[[R64]] : tensor<i64>
// CHECK: %[[BEFORE:.+]] = fuse.prefix %[[ALL]], %[[RT]]
// CHECK: %[[OFF:.+]] = fuse.reduce add %[[BEFORE]] dims [0] : tensor<?xi32> -> tensor<i32>
// CHECK: %[[B:.+]] = fuse.broadcast %[[OFF]] dims [0]
// CHECK: %[[FIX:.+]] = fuse.map %[[B]], %[[Y]]
// CHECK: arith.addi
// CHECK: return %[[FIX]]
func.func @cumsum(%x: tensor<?xi32>) -> tensor<?xi32> {
  %y = fuse.scan inclusive add %x : tensor<?xi32> -> tensor<?xi32>
  return %y : tensor<?xi32>
}

// -----

// An iota along the split dimension starts at the shard's start; rows
// reduced along their own dimension need no collective.
// CHECK-LABEL: func.func @ramp_rows
// CHECK: fuse.all_gather %{{.+}} : tensor<i64> -> tensor<?xi64>
// CHECK: fuse.prefix
// CHECK: fuse.reduce
// CHECK: %[[START:.+]] = tensor.extract
// CHECK: %[[I:.+]] = fuse.iota %{{.+}} : tensor<?xi64>
// CHECK: fuse.map %[[I]] : tensor<?xi64> -> tensor<?xf32>
// CHECK: arith.addi %{{.+}}, %[[START]] : i64
// CHECK: arith.sitofp
// CHECK: fuse.reduce max %arg0 dims [1]
// CHECK-NOT: fuse.all_gather
// CHECK: return
func.func @ramp_rows(%m: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %m, %c0 : tensor<?x?xf32>
  %i = fuse.iota %n : tensor<?xf32>
  %r = fuse.reduce max %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %i, %r : tensor<?xf32>, tensor<?xf32>
}

// -----

// A combiner region over the split dimension: values carry a "present"
// flag (the region has no identity: shards other than the first start
// from nothing, and an empty shard has no partial result), the init is
// present on shard 0 only, and the region is lifted to the pairs.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[RANK:.+]], %{{.+}} = fuse.shard_rank
// CHECK: %[[FLAGS:.+]] = fuse.map %arg0 : tensor<?xf32> -> tensor<?xi1>
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[RANK]]
// CHECK: %[[V0:.+]] = arith.select %[[FIRST]], %{{.+}}, %{{.+}} : f32
// CHECK: %[[I0:.+]] = arith.select %[[FIRST]], %{{.+}}, %{{.+}} : i64
// CHECK: %[[L:.+]]:3 = fuse.reduce %arg0, %arg1, %[[FLAGS]] init(%[[V0]], %[[I0]], %[[FIRST]] : f32, i64, i1)
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: i64, %[[AP:.+]]: i1, %{{.+}}: f32, %{{.+}}: i64, %[[XP:.+]]: i1):
// CHECK: arith.cmpf ogt
// CHECK: arith.select %[[XP]]
// CHECK: arith.select %[[AP]]
// CHECK: arith.ori %[[AP]], %[[XP]] : i1
// CHECK: %[[G0:.+]] = fuse.all_gather %[[L]]#0 : tensor<f32> -> tensor<?xf32>
// CHECK: %[[G1:.+]] = fuse.all_gather %[[L]]#1 : tensor<i64> -> tensor<?xi64>
// CHECK: %[[G2:.+]] = fuse.all_gather %[[L]]#2 : tensor<i1> -> tensor<?xi1>
// CHECK: %[[T:.+]]:3 = fuse.reduce %[[G0]], %[[G1]], %[[G2]] init({{.*}}) dims [0]
// CHECK: return %[[T]]#0, %[[T]]#1
func.func @argmax(%x: tensor<?xf32>, %i: tensor<?xi64>) -> (tensor<f32>, tensor<i64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %v, %j = fuse.reduce %x, %i init(%ninf, %c0 : f32, i64) : tensor<?xf32>, tensor<?xi64> -> tensor<f32>, tensor<i64> {
  ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %v2 = arith.select %gt, %bv, %av : f32
    %i2 = arith.select %gt, %bi, %ai : i64
    fuse.yield %v2, %i2 : f32, i64
  }
  return %v, %j : tensor<f32>, tensor<i64>
}

// -----

// A gather from split data reads the whole array (fuse.all_concat); a sort
// of split keys sorts the whole array and keeps its own part, a gather at
// the shard's start + i.
// CHECK-LABEL: func.func @gather_split
// CHECK: fuse.all_gather
// CHECK: %[[WHOLE:.+]] = fuse.all_concat %arg0 : tensor<?xf32> -> tensor<?xf32>
// CHECK: fuse.gather %[[WHOLE]][%arg1]
// CHECK: %[[K:.+]] = fuse.all_concat %arg0
// CHECK: %[[S:.+]] = fuse.sort ascending %[[K]]
// CHECK: %[[N:.+]] = tensor.dim %arg0
// CHECK: %[[I:.+]] = fuse.iota %[[N]] : tensor<?xi64>
// CHECK: %[[AT:.+]] = fuse.map %[[I]]
// CHECK: fuse.gather %[[S]][%[[AT]]]
func.func @gather_split(%x: tensor<?xf32>, %i: tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %g = fuse.gather %x[%i] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  %s = fuse.sort ascending %x : tensor<?xf32> -> tensor<?xf32>
  return %g, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

// A prefix of split data: its count is of the whole array, so each shard
// takes its local elements before the count less its start (the rows of
// the shards before it); the count is clamped at 0 first so the
// difference cannot wrap, and the op clamps to the local rows. The
// result stays split.
// CHECK-LABEL: func.func @prefix_split
// CHECK: %[[ROWS:.+]] = tensor.dim %arg0
// CHECK: %[[ROWS64:.+]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: %[[RT:.+]] = tensor.from_elements %[[ROWS64]]
// CHECK: %[[ALL:.+]] = fuse.all_gather %[[RT]]
// CHECK: %[[BEFORE:.+]] = fuse.prefix %[[ALL]]
// CHECK: %[[SUM:.+]] = fuse.reduce add %[[BEFORE]]
// CHECK: %[[START:.+]] = tensor.extract %[[SUM]][]
// CHECK: %[[N:.+]] = tensor.extract %arg1[]
// CHECK: %[[NP:.+]] = arith.maxsi %[[N]], %{{.+}} : i64
// CHECK: %[[LOCAL:.+]] = arith.subi %[[NP]], %[[START]] : i64
// CHECK: %[[LT:.+]] = tensor.from_elements %[[LOCAL]] : tensor<i64>
// CHECK: fuse.prefix %arg0, %[[LT]] : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
func.func @prefix_split(%x: tensor<?xf32>, %n: tensor<i64>) -> (tensor<?xf32>, tensor<f32>) {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %y = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %0 = arith.mulf %a, %a : f32
    fuse.yield %0 : f32
  }
  %s = fuse.reduce add %y : tensor<?xf32> -> tensor<f32>
  return %y, %s : tensor<?xf32>, tensor<f32>
}

// -----

// Static split sizes become dynamic (each shard has its own rows): the
// argument, the results and the values between them. An iota and a
// broadcast that took the size from their type take the local rows; a
// constant array tied to the split data is whole on every shard, so each
// reads its own part of it; an `index` constant that is the split size
// sizes tensors with the local rows and stays the total in arithmetic.
// CHECK-LABEL: func.func @static(%arg0: tensor<?xf32>) -> (tensor<?xf32>, f32)
// CHECK: %[[W:.+]] = arith.constant dense<{{.*}}> : tensor<8xf32>
// CHECK: %[[AT:.+]] = fuse.map
// CHECK: %[[PART:.+]] = fuse.gather %[[W]][%[[AT]]] : tensor<8xf32>, tensor<?xi64> -> tensor<?xf32>
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[R1:.+]] = tensor.dim %arg0
// CHECK: fuse.iota %[[R1]] : tensor<?xi64>
// CHECK: %[[R2:.+]] = tensor.dim %arg0
// CHECK: fuse.iota %[[R2]] : tensor<?xi64>
// CHECK: %[[R3:.+]] = tensor.dim %arg0
// CHECK: fuse.broadcast %{{.+}} dims [0] (%[[R3]]) : tensor<f32> -> tensor<?xf32>
// CHECK: fuse.map %arg0, %[[PART]], {{.*}} -> tensor<?xf32>
// CHECK: arith.index_cast %[[C8]] : index to i64
// CHECK: return {{.*}} : tensor<?xf32>, f32
func.func @static(%x: tensor<8xf32>) -> (tensor<8xf32>, f32) {
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %c8 = arith.constant 8 : index
  %i = fuse.iota : tensor<8xf32>
  %j = fuse.iota %c8 : tensor<?xf32>
  %s = fuse.reduce add %x : tensor<8xf32> -> tensor<f32>
  %b = fuse.broadcast %s dims [0] : tensor<f32> -> tensor<8xf32>
  %y = fuse.map %x, %w, %i, %j, %b : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<?xf32>, tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32, %f: f32):
    %0 = arith.mulf %a, %c : f32
    %1 = arith.addf %0, %d : f32
    %2 = arith.addf %1, %e : f32
    %3 = arith.subf %2, %f : f32
    fuse.yield %3 : f32
  }
  %n = arith.index_cast %c8 : index to i64
  %nf = arith.sitofp %n : i64 to f32
  %r0 = fuse.reduce add %y : tensor<8xf32> -> tensor<f32>
  %e = tensor.extract %r0[] : tensor<f32>
  %r = arith.divf %e, %nf : f32
  return %y, %r : tensor<8xf32>, f32
}

// -----

// A constant of rank 2 tied to the split rows cannot be cut into parts
// (a gather reads rank-1 arrays).
func.func @static_rows(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{cannot run sharded: this array of rank 2 or more has the split rows but no split input}}
  %w = arith.constant dense<1.0> : tensor<4x3xf32>
  %y = fuse.map %x, %w : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32> {
  ^bb0(%a: f32, %c: f32):
    %0 = arith.mulf %a, %c : f32
    fuse.yield %0 : f32
  }
  return %y : tensor<4x3xf32>
}

// -----

// A static size tied to a filter's kept elements of split data: each shard
// keeps its own number, known only once it ran.
func.func @static_kept(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  // expected-error @+1 {{cannot run sharded: the static size of this result is the count of split data, which each shard knows only once it ran}}
  %i = fuse.iota : tensor<5xf32>
  %m = fuse.map %k, %i : tensor<?xf32>, tensor<5xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}

// -----

func.func @constant_kept(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  // expected-error @+1 {{cannot run sharded: this array has the size of a filter's kept elements of split data, which each shard keeps apart}}
  %w = arith.constant dense<1.0> : tensor<5xf32>
  %m = fuse.map %k, %w : tensor<?xf32>, tensor<5xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}

// -----

// An element of a split rank-1 array at the top: the shard holding it
// reads it (a gather at its local position; zero on the others), and the
// reads are or-ed as bits over the shards, no all_concat.
// CHECK-LABEL: func.func @element
// CHECK: %[[START:.+]] = tensor.extract %{{.+}}[] : tensor<i64>
// CHECK: %[[AT:.+]] = arith.index_cast %arg1 : index to i64
// CHECK: %[[LOCAL:.+]] = arith.subi %[[AT]], %[[START]] : i64
// CHECK: %[[LT:.+]] = tensor.from_elements %[[LOCAL]] : tensor<i64>
// CHECK: %[[MINE:.+]] = fuse.gather %arg0[%[[LT]]] : tensor<?xf32>, tensor<i64> -> tensor<f32>
// CHECK: %[[BITS:.+]] = fuse.map %[[MINE]] : tensor<f32> -> tensor<i32>
// CHECK: arith.bitcast %{{.+}} : f32 to i32
// CHECK: %[[ALL:.+]] = fuse.all_gather %[[BITS]] : tensor<i32> -> tensor<?xi32>
// CHECK: %[[OR:.+]] = fuse.reduce or %[[ALL]] dims [0] : tensor<?xi32> -> tensor<i32>
// CHECK: %[[BACK:.+]] = fuse.map %[[OR]] : tensor<i32> -> tensor<f32>
// CHECK: tensor.extract %[[BACK]][] : tensor<f32>
// CHECK-NOT: fuse.all_concat
// CHECK: return
func.func @element(%x: tensor<?xf32>, %i: index) -> (tensor<?xf32>, f32) {
  %e = tensor.extract %x[%i] : tensor<?xf32>
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %r = arith.subf %a, %e : f32
    fuse.yield %r : f32
  }
  return %m, %e : tensor<?xf32>, f32
}

// -----

// A body reading split data from above reads the whole array (an element
// at a position of the whole array), and its size there is the total.
// CHECK-LABEL: func.func @body_reads
// CHECK: %[[TOT:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: %[[WHOLE:.+]] = fuse.all_concat %arg0 : tensor<?xf32> -> tensor<?xf32>
// CHECK: fuse.map %arg0
// CHECK: tensor.extract %[[WHOLE]][%{{.+}}] : tensor<?xf32>
// CHECK: arith.index_cast %[[TOT]] : index to i64
func.func @body_reads(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c0 = arith.constant 0 : index
    %e = tensor.extract %x[%c0] : tensor<?xf32>
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %d = arith.subf %a, %e : f32
    %r = arith.divf %d, %nf : f32
    fuse.yield %r : f32
  }
  return %m : tensor<?xf32>
}

// -----

// A scan of rows along the split dimension: the shard's totals are a row
// (a reduction over dim 0), gathered one row a shard; the rows of the
// shards from this one on become the identity before the fold, and the
// fold is broadcast along the rows into every element.
// CHECK-LABEL: func.func @scan_rows
// CHECK: %[[RANK:.+]], %{{.+}} = fuse.shard_rank
// CHECK: %[[TOT:.+]] = fuse.reduce add %arg0 dims [0] : tensor<?x4xf32> -> tensor<4xf32>
// CHECK: %[[Y:.+]] = fuse.scan inclusive add %arg0 dim 0 : tensor<?x4xf32> -> tensor<?x4xf32>
// CHECK: %[[ALL:.+]] = fuse.all_gather %[[TOT]] : tensor<4xf32> -> tensor<?x4xf32>
// CHECK: %[[ROW:.+]] = fuse.iota %{{.+}} : tensor<?x4xi64>
// CHECK: %[[MINE:.+]] = arith.index_cast %[[RANK]] : index to i64
// CHECK: %[[MASK:.+]] = fuse.map %[[ROW]]
// CHECK: arith.cmpi slt, %{{.+}}, %[[MINE]] : i64
// CHECK: %[[MASKED:.+]] = fuse.map %[[ALL]], %[[MASK]]
// CHECK: arith.select
// CHECK: %[[OFF:.+]] = fuse.reduce add %[[MASKED]] dims [0] : tensor<?x4xf32> -> tensor<4xf32>
// CHECK: %[[B:.+]] = fuse.broadcast %[[OFF]] dims [0]
// CHECK: fuse.map %[[B]], %[[Y]]
func.func @scan_rows(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = fuse.scan inclusive add %x dim 0 : tensor<?x4xf32> -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// An `index` argument that is the split size is the shard's own size
// (fuse-run passes each shard its rows): it sizes the local iota, and its
// arithmetic use (a mean's divisor) sees the total over the shards.
// CHECK-LABEL: func.func @sized
// CHECK: %{{.+}}, %{{.+}} = fuse.shard_rank
// CHECK: %[[ROWS:.+]] = tensor.dim %arg0
// CHECK: %[[L:.+]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: %[[LT:.+]] = tensor.from_elements %[[L]] : tensor<i64>
// CHECK: %[[ALL:.+]] = fuse.all_gather %[[LT]]
// CHECK: %[[SUM:.+]] = fuse.reduce add %[[ALL]]
// CHECK: %[[E:.+]] = tensor.extract %[[SUM]][]
// CHECK: %[[TOT:.+]] = arith.index_cast %[[E]] : i64 to index
// CHECK: fuse.iota %arg1 : tensor<?xi64>
// CHECK: arith.index_cast %[[TOT]] : index to i64
func.func @sized(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<f32>) {
  %i = fuse.iota %n : tensor<?xf32>
  %y = fuse.map %x, %i : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %t = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %m = fuse.map %t : tensor<f32> -> tensor<f32> {
  ^bb0(%a: f32):
    %d = arith.divf %a, %nf : f32
    fuse.yield %d : f32
  }
  return %y, %m : tensor<?xf32>, tensor<f32>
}
