// Folds and canonicalization patterns of FuseFolds.cpp.
// RUN: fuse-opt %s --canonicalize --split-input-file | FileCheck %s

// A map that forwards its input folds away.
// CHECK-LABEL: func.func @map_identity
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>)
// CHECK-NOT: fuse.map
// CHECK: return %[[X]]
func.func @map_identity(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %y : tensor<?xf32>
}

// -----

// A swizzle of two inputs of one static shape folds to them, crossed.
// CHECK-LABEL: func.func @map_swap
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>, %[[Y:.+]]: tensor<8xi32>)
// CHECK-NOT: fuse.map
// CHECK: return %[[Y]], %[[X]]
func.func @map_swap(%x: tensor<8xf32>, %y: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xf32>) {
  %r:2 = fuse.map %x, %y : tensor<8xf32>, tensor<8xi32> -> tensor<8xi32>, tensor<8xf32> {
  ^bb0(%a: f32, %b: i32):
    fuse.yield %b, %a : i32, f32
  }
  return %r#0, %r#1 : tensor<8xi32>, tensor<8xf32>
}

// -----

// With dynamic sizes the swizzle stays: it is where the entry checks that
// the two sizes are equal.
// CHECK-LABEL: func.func @map_swap_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[Y:.+]]: tensor<?xi32>)
// CHECK: %[[R:.+]]:2 = fuse.map %[[X]], %[[Y]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @map_swap_dynamic(%x: tensor<?xf32>, %y: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xf32>) {
  %r:2 = fuse.map %x, %y : tensor<?xf32>, tensor<?xi32> -> tensor<?xi32>, tensor<?xf32> {
  ^bb0(%a: f32, %b: i32):
    fuse.yield %b, %a : i32, f32
  }
  return %r#0, %r#1 : tensor<?xi32>, tensor<?xf32>
}

// -----

// A forwarded result whose type differs from its input's (static vs
// dynamic) stays.
// CHECK-LABEL: func.func @map_identity_cast
// CHECK: %[[M:.+]] = fuse.map
// CHECK: return %[[M]]
func.func @map_identity_cast(%x: tensor<4xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<4xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %y : tensor<?xf32>
}

// -----

// One result forwards an input, the other computes. Over inputs of one
// static shape, the forwarded one is replaced by the input, the map keeps
// one result and the input the body no longer reads goes.
// CHECK-LABEL: func.func @map_partial_forward
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>, %[[Y:.+]]: tensor<8xf32>)
// CHECK: %[[M:.+]] = fuse.map %[[X]] : tensor<8xf32> -> tensor<8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32):
// CHECK-NEXT: %[[S:.+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT: fuse.yield %[[S]] : f32
// CHECK: return %[[M]], %[[Y]]
func.func @map_partial_forward(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %r:2 = fuse.map %x, %y : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>, tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    fuse.yield %s, %b : f32, f32
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// The same over dynamic sizes keeps both results and both inputs: the map
// is where the entry checks that the sizes are equal.
// CHECK-LABEL: func.func @map_partial_forward_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[Y:.+]]: tensor<?xf32>)
// CHECK: %[[M:.+]]:2 = fuse.map %[[X]], %[[Y]] : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>, tensor<?xf32> {
// CHECK: return %[[M]]#0, %[[M]]#1
func.func @map_partial_forward_dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r:2 = fuse.map %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>, tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %a, %a : f32
    fuse.yield %s, %b : f32, f32
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// Unread inputs go where a kept input shows their shape: a repeated value,
// or the same static shape.
// CHECK-LABEL: func.func @map_unread_inputs
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[S:.+]]: tensor<4xf32>, %[[T:.+]]: tensor<4xi8>)
// CHECK: fuse.map %[[X]], %[[T]] : tensor<?xf32>, tensor<4xi8> -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %{{.+}}: i8):
// CHECK-NEXT: arith.addf %[[A]], %[[A]]
func.func @map_unread_inputs(%x: tensor<?xf32>, %s: tensor<4xf32>, %t: tensor<4xi8>) -> tensor<4xf32> {
  %r = fuse.map %x, %x, %t, %s : tensor<?xf32>, tensor<?xf32>, tensor<4xi8>, tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32, %c: i8, %d: f32):
    %e = arith.addf %a, %a : f32
    fuse.yield %e : f32
  }
  return %r : tensor<4xf32>
}

// -----

// An unused result is dropped; its now-dead body ops are removed.
// CHECK-LABEL: func.func @map_unused_result
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>)
// CHECK: %[[M:.+]] = fuse.map %[[X]] {tag = 1 : i64} : tensor<?xf32> -> tensor<?xi1> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32):
// CHECK-NOT: arith.mulf
// CHECK: arith.cmpf
// CHECK: fuse.yield %{{.+}} : i1
// CHECK: return %[[M]]
func.func @map_unused_result(%x: tensor<?xf32>) -> tensor<?xi1> {
  %r:2 = fuse.map %x {tag = 1} : tensor<?xf32> -> tensor<?xf32>, tensor<?xi1> {
  ^bb0(%a: f32):
    %s = arith.mulf %a, %a : f32
    %c = arith.cmpf ogt, %a, %a : f32
    fuse.yield %s, %c : f32, i1
  }
  return %r#1 : tensor<?xi1>
}

// -----

// A map whose body reads none of its inputs keeps those of different
// sizes: they give the shape, and their sizes must agree. A repeat of one
// goes.
// CHECK-LABEL: func.func @map_constant_body
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[Y:.+]]: tensor<?xf32>)
// CHECK: fuse.map %[[X]], %[[Y]] : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: f32):
func.func @map_constant_body(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c = arith.constant 2.0 : f32
  %r = fuse.map %x, %y, %x : tensor<?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32, %d: f32):
    fuse.yield %c : f32
  }
  return %r : tensor<?xf32>
}

// -----

// A broadcast that adds no dimension folds to its input.
// CHECK-LABEL: func.func @broadcast_no_dims
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT: fuse.broadcast
// CHECK: return %[[X]]
func.func @broadcast_no_dims(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %b = fuse.broadcast %x dims [] : tensor<?x4xf32> -> tensor<?x4xf32>
  return %b : tensor<?x4xf32>
}

// -----

// A broadcast that adds a dimension stays.
// CHECK-LABEL: func.func @broadcast_kept
// CHECK: fuse.broadcast
func.func @broadcast_kept(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %b = fuse.broadcast %x dims [0] : tensor<4xf32> -> tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}

// -----

// A reduction over no dimensions is the map init (+) x, with the kind's
// identity when there is no init.
// CHECK-LABEL: func.func @reduce_no_dims
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>, %[[Y:.+]]: tensor<?x4xi32>, %[[I:.+]]: i32)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %{{.+}}:2 = fuse.map %[[X]], %[[Y]] : tensor<?x4xf32>, tensor<?x4xi32> -> tensor<?x4xf32>, tensor<?x4xi32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: i32):
// CHECK-DAG: arith.addf %[[A]], %[[ZERO]] : f32
// CHECK-DAG: arith.maxsi %[[I]], %[[B]] : i32
// CHECK-NOT: fuse.reduce
func.func @reduce_no_dims(%x: tensor<?x4xf32>, %y: tensor<?x4xi32>, %i: i32) -> (tensor<?x4xf32>, tensor<?x4xi32>) {
  %z = arith.constant 0.0 : f32
  %r:2 = fuse.reduce (add, max) %x, %y init(%z, %i : f32, i32) dims []
      : tensor<?x4xf32>, tensor<?x4xi32> -> tensor<?x4xf32>, tensor<?x4xi32>
  return %r#0, %r#1 : tensor<?x4xf32>, tensor<?x4xi32>
}

// -----

// The identity is combined in, not dropped: 0.0 + -0.0 is 0.0 (arith
// canonicalization moves the constant to the right-hand side).
// CHECK-LABEL: func.func @reduce_rank0_identity
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: fuse.map
// CHECK: arith.addf %{{.+}}, %[[ZERO]] : f32
func.func @reduce_rank0_identity(%x: tensor<f32>) -> tensor<f32> {
  %r = fuse.reduce add %x : tensor<f32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A custom combiner over no dimensions is inlined with the inits.
// CHECK-LABEL: func.func @reduce_no_dims_custom
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[I:.+]]: f32)
// CHECK: fuse.map %[[X]] : tensor<?xf32> -> tensor<?xf32> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[I]], %[[A]] : f32
// CHECK-NEXT: fuse.yield %[[D]] : f32
func.func @reduce_no_dims_custom(%x: tensor<?xf32>, %i: f32) -> tensor<?xf32> {
  %r = fuse.reduce %x init(%i : f32) dims [] : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%acc: f32, %e: f32):
    %d = arith.subf %acc, %e : f32
    fuse.yield %d : f32
  }
  return %r : tensor<?xf32>
}

// -----

// A reduction over a dimension stays.
// CHECK-LABEL: func.func @reduce_kept
// CHECK: fuse.reduce add
func.func @reduce_kept(%x: tensor<?xf32>) -> tensor<f32> {
  %r = fuse.reduce add %x dims [0] : tensor<?xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A min or max of an iota reads one position of each reduced dimension
// other than the iota's: min(size, 1) dynamic, 1 static; the iota's own
// dimension, kept dimensions and sizes already at most one stay. Once
// shrunk, the pattern does not apply again.
// CHECK-LABEL: func.func @reduce_iota_idempotent
// CHECK-SAME: (%[[B:.+]]: index, %[[N:.+]]: index, %[[C:.+]]: index)
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[B1:.+]] = arith.minui %[[B]], %[[ONE]] : index
// CHECK-DAG: %[[C1:.+]] = arith.minui %[[C]], %[[ONE]] : index
// CHECK: %[[I:.+]] = fuse.iota %[[B1]], %[[N]], %[[C1]] dim 1 : tensor<?x?x?xf64>
// CHECK: fuse.reduce min %[[I]] : tensor<?x?x?xf64> -> tensor<f64>
// CHECK: %[[J:.+]] = fuse.iota %[[N]] dim 1 : tensor<1x?x5xi32>
// CHECK: fuse.reduce umax %[[J]] dims [0, 1] : tensor<1x?x5xi32> -> tensor<5xi32>
// CHECK-NOT: arith.minui
func.func @reduce_iota_idempotent(%b: index, %n: index, %c: index) -> (tensor<f64>, tensor<5xi32>) {
  %i = fuse.iota %b, %n, %c dim 1 : tensor<?x?x?xf64>
  %r = fuse.reduce min %i : tensor<?x?x?xf64> -> tensor<f64>
  %j = fuse.iota %n dim 1 : tensor<7x?x5xi32>
  %s = fuse.reduce umax %j dims [0, 1] : tensor<7x?x5xi32> -> tensor<5xi32>
  return %r, %s : tensor<f64>, tensor<5xi32>
}

// -----

// Sibling reductions of iotas of other size values stay: they stand for
// the run-time check that the sizes are equal.
// CHECK-LABEL: func.func @reduce_iotas_other_sizes
// CHECK-NOT: arith.minui
// CHECK: fuse.reduce (min, max)
func.func @reduce_iotas_other_sizes(%a: index, %b: index, %n: index) -> (tensor<i32>, tensor<i32>) {
  %i = fuse.iota %a, %n dim 1 : tensor<?x?xi32>
  %j = fuse.iota %b, %n dim 1 : tensor<?x?xi32>
  %r:2 = fuse.reduce (min, max) %i, %j : tensor<?x?xi32>, tensor<?x?xi32> -> tensor<i32>, tensor<i32>
  return %r#0, %r#1 : tensor<i32>, tensor<i32>
}

// -----

// Inside a fuse.group (after fusion) the reduction of an iota stays: the
// group's kernels take no index arithmetic between its operands.
// CHECK-LABEL: func.func @reduce_iota_in_group
// CHECK-NOT: arith.minui
// CHECK: fuse.reduce min
func.func @reduce_iota_in_group(%b: index, %n: index) -> tensor<f64> {
  %g = fuse.group reduce (%b, %n) : (index, index) -> tensor<f64> {
  ^bb0(%x: index, %y: index):
    %i = fuse.iota %x, %y dim 1 : tensor<?x?xf64>
    %r = fuse.reduce min %i : tensor<?x?xf64> -> tensor<f64>
    fuse.yield %r : tensor<f64>
  }
  return %g : tensor<f64>
}

// -----

// Sums and products depend on how often a value occurs, a combiner region
// is not looked into, and a reduction along the iota's own dimension alone
// has nothing to shrink.
// CHECK-LABEL: func.func @reduce_iota_kept
// CHECK-NOT: arith.minui
// CHECK: fuse.reduce add %{{.+}} : tensor<?x?xf32> -> tensor<f32>
// CHECK: fuse.reduce max %{{.+}} dims [1] : tensor<?x?xf32> -> tensor<?xf32>
func.func @reduce_iota_kept(%r: index, %c: index) -> (tensor<f32>, tensor<?xf32>) {
  %i = fuse.iota %r, %c dim 1 : tensor<?x?xf32>
  %s = fuse.reduce add %i : tensor<?x?xf32> -> tensor<f32>
  %m = fuse.reduce max %i dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %s, %m : tensor<f32>, tensor<?xf32>
}

// -----

// A filter whose predicate is constant true keeps everything.
// CHECK-LABEL: func.func @filter_true
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[S:.+]]: tensor<8xi32>)
// CHECK-NOT: fuse.filter
// CHECK: %[[C:.+]] = tensor.cast %[[S]] : tensor<8xi32> to tensor<?xi32>
// CHECK: return %[[X]], %[[C]]
func.func @filter_true(%x: tensor<?xf32>, %s: tensor<8xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %r = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  %q = fuse.filter %s : tensor<8xi32> -> tensor<?xi32> {
  ^bb0(%a: i32):
    %t = arith.constant true
    fuse.yield %t : i1
  }
  return %r, %q : tensor<?xf32>, tensor<?xi32>
}

// -----

// A data-dependent predicate stays.
// CHECK-LABEL: func.func @filter_kept
// CHECK: fuse.filter
func.func @filter_kept(%x: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %r = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  return %r : tensor<?xf32>
}

// -----

// An inclusive scan whose combiner keeps the element (drops the
// accumulator) is its input, whatever the init.
// CHECK-LABEL: func.func @scan_keep_element
// CHECK-SAME: (%[[X:.+]]: tensor<?xi32>)
// CHECK-NOT: fuse.scan
// CHECK: return %[[X]]
func.func @scan_keep_element(%x: tensor<?xi32>) -> tensor<?xi32> {
  %i = arith.constant 42 : i32
  %y = fuse.scan inclusive %x init(%i : i32) : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%acc: i32, %e: i32):
    fuse.yield %e : i32
  }
  return %y : tensor<?xi32>
}

// -----

// Exclusive, the same combiner shifts the elements by one: it stays. So
// does one over two inputs of dynamic sizes (their sizes are checked
// there) and one that keeps the accumulator.
// CHECK-LABEL: func.func @scan_keep_element_stays
// CHECK-COUNT-3: fuse.scan
func.func @scan_keep_element_stays(%x: tensor<?xi32>, %y: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<?xf32>, tensor<?xi32>) {
  %i = arith.constant 42 : i32
  %f = arith.constant 1.0 : f32
  %e = fuse.scan exclusive %x init(%i : i32) : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%acc: i32, %v: i32):
    fuse.yield %v : i32
  }
  %p:2 = fuse.scan inclusive %x, %y init(%i, %f : i32, f32) : tensor<?xi32>, tensor<?xf32> -> tensor<?xi32>, tensor<?xf32> {
  ^bb0(%a: i32, %b: f32, %c: i32, %d: f32):
    fuse.yield %c, %d : i32, f32
  }
  %k = fuse.scan inclusive %x init(%i : i32) : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%acc: i32, %v: i32):
    fuse.yield %acc : i32
  }
  return %e, %p#0, %p#1, %k : tensor<?xi32>, tensor<?xi32>, tensor<?xf32>, tensor<?xi32>
}

// -----

// A sort whose positions or values are never read sorts its keys alone;
// values of a length only the run time can check against the keys' stay.
// CHECK-LABEL: func @sort_unused_carry
// CHECK: %[[A:.+]] = fuse.sort descending unsigned %arg0 : tensor<?xi32> -> tensor<?xi32>
// CHECK: %[[B:.+]] = fuse.sort ascending %arg0 : tensor<?xi32> -> tensor<?xi32> {
// CHECK: arith.cmpi ult
// CHECK: %[[C:.+]]:2 = fuse.sort ascending %arg0, %arg2
// CHECK: %[[D:.+]] = fuse.sort ascending %arg1 : tensor<8xf32> -> tensor<8xf32>
// CHECK: %[[E:.+]]:2 = fuse.sort ascending positions %arg0
// CHECK: return %[[A]], %[[B]], %[[C]]#0, %[[D]], %[[E]]#1
func.func @sort_unused_carry(%k: tensor<?xi32>, %s: tensor<8xf32>, %v: tensor<?xf32>, %w: tensor<8xi64>)
    -> (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<8xf32>, tensor<?xi64>) {
  %a, %ap = fuse.sort descending unsigned positions %k : tensor<?xi32> -> tensor<?xi32>, tensor<?xi64>
  %b, %bp = fuse.sort ascending positions %k : tensor<?xi32> -> tensor<?xi32>, tensor<?xi64> {
  ^bb0(%x: i32, %y: i32):
    %lt = arith.cmpi ult, %x, %y : i32
    fuse.yield %lt : i1
  }
  %c, %cv = fuse.sort ascending %k, %v : tensor<?xi32>, tensor<?xf32> -> tensor<?xi32>, tensor<?xf32>
  %d, %dv = fuse.sort ascending %s, %w : tensor<8xf32>, tensor<8xi64> -> tensor<8xf32>, tensor<8xi64>
  %e, %ep = fuse.sort ascending positions %k : tensor<?xi32> -> tensor<?xi32>, tensor<?xi64>
  return %a, %b, %c, %d, %ep : tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<8xf32>, tensor<?xi64>
}

// -----

// Broadcasts (BroadcastFolds.cpp): a searchsorted of broadcast needles
// searches the needles once and broadcasts the positions.
// CHECK-LABEL: func.func @searchsorted_broadcast
// CHECK-SAME: (%[[S:.+]]: tensor<?xi64>, %[[V:.+]]: tensor<?xi64>, %[[N:.+]]: index)
// CHECK: %[[P:.+]] = fuse.searchsorted left unsigned %[[S]], %[[V]] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
// CHECK: %[[B:.+]] = fuse.broadcast %[[P]] dims [0] (%[[N]]) : tensor<?xi64> -> tensor<?x?xi64>
// CHECK: return %[[B]]
func.func @searchsorted_broadcast(%s: tensor<?xi64>, %v: tensor<?xi64>, %n: index) -> tensor<?x?xi64> {
  %b = fuse.broadcast %v dims [0] (%n) : tensor<?xi64> -> tensor<?x?xi64>
  %p = fuse.searchsorted left unsigned %s, %b : tensor<?xi64>, tensor<?x?xi64> -> tensor<?x?xi64>
  return %p : tensor<?x?xi64>
}

// -----

// A reduction along dimensions the broadcast kept: the reduction of its
// input (dims renumbered), broadcast along the added dims (renumbered in
// the result); the combiner region moves with it.
// CHECK-LABEL: func.func @reduce_broadcast_kept_dims
// CHECK-SAME: (%[[X:.+]]: tensor<?x5xf32>, %[[Y:.+]]: tensor<?x5xi32>, %[[N:.+]]: index, %[[I:.+]]: f32)
// CHECK: %[[R:.+]] = fuse.reduce add %[[X]] dims [1] : tensor<?x5xf32> -> tensor<?xf32>
// CHECK: fuse.broadcast %[[R]] dims [0, 2] (%[[N]]) : tensor<?xf32> -> tensor<?x?x3xf32>
// CHECK: %[[C:.+]]:2 = fuse.reduce %[[X]], %[[Y]] init(%[[I]], %{{.+}} : f32, i32) dims [0] : tensor<?x5xf32>, tensor<?x5xi32> -> tensor<5xf32>, tensor<5xi32>
// CHECK: arith.sitofp
// CHECK: fuse.broadcast %[[C]]#0 dims [0, 2] (%[[N]]) : tensor<5xf32> -> tensor<?x5x3xf32>
// CHECK: fuse.broadcast %[[C]]#1 dims [0, 2] (%[[N]]) : tensor<5xi32> -> tensor<?x5x3xi32>
func.func @reduce_broadcast_kept_dims(%x: tensor<?x5xf32>, %y: tensor<?x5xi32>, %n: index, %i: f32) -> (tensor<?x?x3xf32>, tensor<?x5x3xf32>, tensor<?x5x3xi32>) {
  %b = fuse.broadcast %x dims [0, 3] (%n) : tensor<?x5xf32> -> tensor<?x?x5x3xf32>
  %r = fuse.reduce add %b dims [2] : tensor<?x?x5x3xf32> -> tensor<?x?x3xf32>
  %c = fuse.broadcast %y dims [0, 3] (%n) : tensor<?x5xi32> -> tensor<?x?x5x3xi32>
  %z = arith.constant 0 : i32
  %t:2 = fuse.reduce %b, %c init(%i, %z : f32, i32) dims [1] : tensor<?x?x5x3xf32>, tensor<?x?x5x3xi32> -> tensor<?x5x3xf32>, tensor<?x5x3xi32> {
  ^bb0(%a0: f32, %a1: i32, %e0: f32, %e1: i32):
    %f = arith.sitofp %e1 : i32 to f32
    %s0 = arith.addf %a0, %e0 : f32
    %s = arith.addf %s0, %f : f32
    %m = arith.maxsi %a1, %e1 : i32
    fuse.yield %s, %m : f32, i32
  }
  return %r, %t#0, %t#1 : tensor<?x?x3xf32>, tensor<?x5x3xf32>, tensor<?x5x3xi32>
}

// -----

// A reduction along an added dimension stays (a sum counts the repeats);
// so does one over broadcasts of other sizes.
// CHECK-LABEL: func.func @reduce_broadcast_stays
// CHECK: fuse.reduce add %{{.+}} dims [0] : tensor<?x?xf32> -> tensor<?xf32>
// CHECK: fuse.reduce (max, max) %{{.+}}, %{{.+}} dims [1] : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
func.func @reduce_broadcast_stays(%x: tensor<?xf32>, %n: index, %m: index) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %b = fuse.broadcast %x dims [0] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %c = fuse.broadcast %x dims [0] (%m) : tensor<?xf32> -> tensor<?x?xf32>
  %r = fuse.reduce add %b dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %t:2 = fuse.reduce (max, max) %b, %c dims [1] : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
  return %r, %t#0, %t#1 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// A scan along a dimension of the broadcast's input: the scan of the
// input, broadcast (exclusive too).
// CHECK-LABEL: func.func @scan_broadcast_input_dim
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>, %[[N:.+]]: index)
// CHECK: %[[S:.+]] = fuse.scan exclusive add %[[X]] dim 0 : tensor<?xf32> -> tensor<?xf32>
// CHECK: %[[B:.+]] = fuse.broadcast %[[S]] dims [1] (%[[N]]) : tensor<?xf32> -> tensor<?x?xf32>
// CHECK: return %[[B]]
func.func @scan_broadcast_input_dim(%x: tensor<?xf32>, %n: index) -> tensor<?x?xf32> {
  %b = fuse.broadcast %x dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %s = fuse.scan exclusive add %b dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// -----

// An inclusive idempotent scan along an added dimension is its input, or
// init (+) x with an init; a sum or an exclusive scan stays.
// CHECK-LABEL: func.func @scan_broadcast_added_dim
// CHECK-SAME: (%[[X:.+]]: tensor<?xi8>, %[[N:.+]]: index)
// CHECK: %[[B:.+]] = fuse.broadcast %[[X]] dims [1] (%[[N]]) : tensor<?xi8> -> tensor<?x?xi8>
// CHECK: %[[M:.+]] = fuse.map %[[B]]
// CHECK: arith.minui
// CHECK: %[[A:.+]] = fuse.scan inclusive add %[[B]]
// CHECK: %[[E:.+]] = fuse.scan exclusive umin %[[B]]
// CHECK: return %[[B]], %[[M]], %[[A]], %[[E]]
func.func @scan_broadcast_added_dim(%x: tensor<?xi8>, %n: index) -> (tensor<?x?xi8>, tensor<?x?xi8>, tensor<?x?xi8>, tensor<?x?xi8>) {
  %b = fuse.broadcast %x dims [1] (%n) : tensor<?xi8> -> tensor<?x?xi8>
  %i = arith.constant 7 : i8
  %s = fuse.scan inclusive umin %b : tensor<?x?xi8> -> tensor<?x?xi8>
  %t = fuse.scan inclusive umin %b init(%i : i8) : tensor<?x?xi8> -> tensor<?x?xi8>
  %a = fuse.scan inclusive add %b : tensor<?x?xi8> -> tensor<?x?xi8>
  %e = fuse.scan exclusive umin %b : tensor<?x?xi8> -> tensor<?x?xi8>
  return %s, %t, %a, %e : tensor<?x?xi8>, tensor<?x?xi8>, tensor<?x?xi8>, tensor<?x?xi8>
}
