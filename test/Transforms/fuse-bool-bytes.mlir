// RUN: fuse-opt %s --split-input-file --fuse-fusion --fuse-bool-bytes | FileCheck %s

// An i1 argument read by a map and an i1 result: the group takes and gives
// bytes (a truncating map inside, a widening one before the yield); the
// argument is viewed as bytes (arith.extui) and the result as i1
// (arith.trunci), the same buffers on the GPU.
// CHECK-LABEL: func.func @argument_and_result(
// CHECK-SAME: %[[M:.+]]: tensor<?xi1>, %[[X:.+]]: tensor<?xf32>)
// CHECK: %[[B:.+]] = arith.extui %[[M]] : tensor<?xi1> to tensor<?xi8>
// CHECK: %[[G:.+]]:2 = fuse.group elementwise (%[[B]], %[[X]]) : (tensor<?xi8>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi8>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<?xi8>, %{{.+}}: tensor<?xf32>):
// CHECK-NEXT: %[[T:.+]] = fuse.map %[[A]] : tensor<?xi8> -> tensor<?xi1>
// CHECK: arith.trunci %{{.+}} : i8 to i1
// CHECK: fuse.map %[[T]], %{{.+}} : tensor<?xi1>, tensor<?xf32> -> tensor<?xf32>
// CHECK: %[[W:.+]] = fuse.map %{{.+}} : tensor<?xi1> -> tensor<?xi8>
// CHECK: arith.extui %{{.+}} : i1 to i8
// CHECK: fuse.yield %{{.+}}, %[[W]] : tensor<?xf32>, tensor<?xi8>
// CHECK: %[[R:.+]] = arith.trunci %[[G]]#1 : tensor<?xi8> to tensor<?xi1>
// CHECK: return %[[G]]#0, %[[R]]
func.func @argument_and_result(%m: tensor<?xi1>, %x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi1>) {
  %y = fuse.map %m, %x : tensor<?xi1>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: i1, %b: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.select %a, %b, %z : f32
    fuse.yield %s : f32
  }
  %c = fuse.map %x : tensor<?xf32> -> tensor<?xi1> {
  ^bb0(%b: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %b, %z : f32
    fuse.yield %p : i1
  }
  return %y, %c : tensor<?xf32>, tensor<?xi1>
}

// -----

// Between groups: the scan group yields bytes that the filter group reads
// directly (no view); the filter compacts bytes (its input widened, its
// predicate truncating the element); the reductions over i1 reduce bytes
// with the kinds that give the same bits (add: xor, signed max: and, with
// init 1 so that an empty and is 1).
// CHECK-LABEL: func.func @between_groups(
// CHECK: %[[S:.+]] = fuse.group scan (%{{.+}}) : (tensor<?xf32>) -> tensor<?xi8>
// CHECK: fuse.scan inclusive xor %{{.+}} : tensor<?xi1> -> tensor<?xi1>
// CHECK: fuse.map %{{.+}} : tensor<?xi1> -> tensor<?xi8>
// CHECK: %[[K:.+]] = fuse.group filter (%[[S]]) {{.*}}: (tensor<?xi8>) -> tensor<?xi8>
// CHECK: %[[F:.+]] = fuse.filter %{{.+}} : tensor<?xi8> -> tensor<?xi8>
// CHECK-NEXT: ^bb0(%[[E:.+]]: i8):
// CHECK-NEXT: arith.trunci %[[E]] : i8 to i1
// CHECK: fuse.yield %[[F]] : tensor<?xi8>
// CHECK: arith.trunci %[[K]] : tensor<?xi8> to tensor<?xi1>
// CHECK: fuse.group reduce
// CHECK: %[[Z:.+]] = arith.constant 0 : i8
// CHECK: %[[ONE:.+]] = arith.constant 1 : i8
// CHECK: fuse.reduce (xor, and) %{{.+}}, %{{.+}} init(%[[Z]], %[[ONE]] : i8, i8) : tensor<?xi8>, tensor<?xi8> -> tensor<i8>, tensor<i8>
// CHECK: arith.trunci %{{.+}} : tensor<i8> to tensor<i1>
func.func @between_groups(%x: tensor<?xf32>) -> (tensor<?xi1>, tensor<i1>, tensor<i1>) {
  %c = fuse.map %x : tensor<?xf32> -> tensor<?xi1> {
  ^bb0(%b: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %b, %z : f32
    fuse.yield %p : i1
  }
  %s = fuse.scan inclusive xor %c : tensor<?xi1> -> tensor<?xi1>
  %k = fuse.filter %s : tensor<?xi1> -> tensor<?xi1> {
  ^bb0(%a: i1):
    fuse.yield %a : i1
  }
  %r:2 = fuse.reduce (add, max) %c, %c : tensor<?xi1>, tensor<?xi1> -> tensor<i1>, tensor<i1>
  return %k, %r#0, %r#1 : tensor<?xi1>, tensor<i1>, tensor<i1>
}

// -----

// A gather of an i1 table moves bytes, then a map truncates them. A
// searchsorted's i1 table stays i1 (the GPU rejects it at the boundary).
// CHECK-LABEL: func.func @gathered(
// CHECK: fuse.group elementwise (%{{.+}}, %{{.+}}) : (tensor<?xi8>, tensor<?xi64>) -> tensor<?xi8>
// CHECK: fuse.gather %{{.+}}[%{{.+}}] : tensor<?xi8>, tensor<?xi64> -> tensor<?xi8>
// CHECK-LABEL: func.func @searched(
// CHECK: fuse.group elementwise (%{{.+}}, %{{.+}}) : (tensor<?xi1>, tensor<?xi8>) -> tensor<?xi64>
func.func @gathered(%t: tensor<?xi1>, %i: tensor<?xi64>) -> tensor<?xi1> {
  %g = fuse.gather %t[%i] : tensor<?xi1>, tensor<?xi64> -> tensor<?xi1>
  return %g : tensor<?xi1>
}
func.func @searched(%t: tensor<?xi1>, %v: tensor<?xi1>) -> tensor<?xi64> {
  %p = fuse.searchsorted left %t, %v : tensor<?xi1>, tensor<?xi1> -> tensor<?xi64>
  return %p : tensor<?xi64>
}

// -----

// An i1 argument returned as it is is copied by a group first (as
// convert-fuse-to-gpu would), which then moves bytes.
// CHECK-LABEL: func.func @returned(
// CHECK: %[[B:.+]] = arith.extui %{{.+}} : tensor<?xi1> to tensor<?xi8>
// CHECK: %[[G:.+]] = fuse.group elementwise (%[[B]]) : (tensor<?xi8>) -> tensor<?xi8>
// CHECK: %[[R:.+]] = arith.trunci %[[G]] : tensor<?xi8> to tensor<?xi1>
// CHECK: return %[[R]]
func.func @returned(%m: tensor<?xi1>) -> tensor<?xi1> {
  return %m : tensor<?xi1>
}

// -----

// A combiner region over an i1 input and an index: the i1 position as
// bytes in place (input and init widened, the region truncating its
// arguments and widening its new accumulator); the index untouched.
// CHECK-LABEL: func.func @region(
// CHECK: %[[R:.+]]:2 = fuse.reduce %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : i8, i64) : tensor<?xi8>, tensor<?xi64> -> tensor<i8>, tensor<i64> {
// CHECK-NEXT: ^bb0(%[[A:.+]]: i8, %{{.+}}: i64, %[[E:.+]]: i8, %{{.+}}: i64):
// CHECK-DAG: arith.trunci %[[A]] : i8 to i1
// CHECK-DAG: arith.trunci %[[E]] : i8 to i1
// CHECK: %[[W:.+]] = arith.extui %{{.+}} : i1 to i8
// CHECK: fuse.yield %[[W]], %{{.+}} : i8, i64
// CHECK: fuse.yield %[[R]]#0, %[[R]]#1 : tensor<i8>, tensor<i64>
func.func @region(%b: tensor<?xi1>, %i: tensor<?xi64>) -> (tensor<i1>, tensor<i64>) {
  %f = arith.constant false
  %m = arith.constant -1 : i64
  %r:2 = fuse.reduce %b, %i init(%f, %m : i1, i64) : tensor<?xi1>, tensor<?xi64> -> tensor<i1>, tensor<i64> {
  ^bb0(%av: i1, %ai: i64, %bv: i1, %bi: i64):
    %gt = arith.cmpi ugt, %bv, %av : i1
    %v = arith.select %gt, %bv, %av : i1
    %j = arith.select %gt, %bi, %ai : i64
    fuse.yield %v, %j : i1, i64
  }
  return %r#0, %r#1 : tensor<i1>, tensor<i64>
}
