// RUN: fuse-opt %s --split-input-file --fuse-builtin-combiners | FileCheck %s
// RUN: fuse-opt %s --split-input-file --canonicalize | FileCheck %s --check-prefix=CANON

// A float add region as `acc + x`: the add kind, init kept (also a
// canonicalization of the op).
// CHECK-LABEL: func.func @float_add(
// CHECK-SAME: %[[X:.+]]: tensor<?x?x?xf64>, %[[I:.+]]: f64)
// CHECK: %[[S:.+]] = fuse.reduce add %[[X]] init(%[[I]] : f64) dims [0, 2] : tensor<?x?x?xf64> -> tensor<?xf64>
// CHECK-NOT: ^bb0
// CHECK: return %[[S]]
// CANON-LABEL: func.func @float_add(
// CANON: fuse.reduce add %{{.+}} init(%{{.+}} : f64) dims [0, 2]
func.func @float_add(%x: tensor<?x?x?xf64>, %i: f64) -> tensor<?xf64> {
  %s = fuse.reduce %x init(%i : f64) dims [0, 2] : tensor<?x?x?xf64> -> tensor<?xf64> {
  ^bb0(%a: f64, %b: f64):
    %m = arith.addf %a, %b : f64
    fuse.yield %m : f64
  }
  return %s : tensor<?xf64>
}

// -----

// A tuple scan of integer ops, one taking (x, acc): commutative on
// integers, so both become kinds.
// CHECK-LABEL: func.func @int_scan(
// CHECK: fuse.scan exclusive (umax, xor) %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : i32, i32) : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>, tensor<?xi32>
// CHECK-NOT: ^bb0
func.func @int_scan(%x: tensor<?xi32>, %y: tensor<?xi32>, %i: i32) -> (tensor<?xi32>, tensor<?xi32>) {
  %s:2 = fuse.scan exclusive %x, %y init(%i, %i : i32, i32) : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>, tensor<?xi32> {
  ^bb0(%a: i32, %c: i32, %b: i32, %d: i32):
    %m = arith.maxui %b, %a : i32
    %n = arith.xori %c, %d : i32
    fuse.yield %m, %n : i32, i32
  }
  return %s#0, %s#1 : tensor<?xi32>, tensor<?xi32>
}

// -----

// Segmented reductions too; float max is maximumf (NaN-propagating).
// CHECK-LABEL: func.func @segments(
// CHECK: fuse.segmented_reduce (max, min) %{{.+}}, %{{.+}} init(%{{.+}}, %{{.+}} : f32, i64) segments(
// CHECK-NOT: ^bb0
func.func @segments(%x: tensor<?xf32>, %k: tensor<?xi64>, %s: tensor<?xi64>, %e: tensor<?xi64>, %i: f32, %j: i64) -> (tensor<?xf32>, tensor<?xi64>) {
  %r:2 = fuse.segmented_reduce %x, %k init(%i, %j : f32, i64)
      segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: i64, %c: f32, %d: i64):
    %m = arith.maximumf %a, %c : f32
    %n = arith.minsi %d, %b : i64
    fuse.yield %m, %n : f32, i64
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}

// -----

// bf16 max is exact in any type: rewritten; i1 add (xor-like wrap) too.
// CHECK-LABEL: func.func @half_max(
// CHECK: fuse.reduce (max, add) %{{.+}}, %{{.+}} init(
func.func @half_max(%x: tensor<?xbf16>, %y: tensor<?xi1>, %i: bf16, %j: i1) -> (tensor<bf16>, tensor<i1>) {
  %r:2 = fuse.reduce %x, %y init(%i, %j : bf16, i1) : tensor<?xbf16>, tensor<?xi1> -> tensor<bf16>, tensor<i1> {
  ^bb0(%a: bf16, %b: i1, %c: bf16, %d: i1):
    %m = arith.maximumf %a, %c : bf16
    %n = arith.addi %b, %d : i1
    fuse.yield %m, %n : bf16, i1
  }
  return %r#0, %r#1 : tensor<bf16>, tensor<i1>
}

// -----

// Left alone: a float op as `x (+) acc` (a NaN's payload can depend on
// the order); an f16 sum (kinds accumulate f16 in f32, a region in f16);
// maxnumf (no kind ignores NaN); an element of another input; an op
// whose result is used twice; a region with a second op (which the
// canonicalizer removes first when it is dead, as here).
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-6: ^bb0
// CANON-LABEL: func.func @left_alone(
// CANON-COUNT-5: ^bb0
// CANON-NOT: ^bb0
func.func @left_alone(%x: tensor<?xf32>, %h: tensor<?xf16>, %y: tensor<?xi32>, %i: f32, %hi: f16, %j: i32)
    -> (tensor<f32>, tensor<f16>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) {
  %0 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.addf %b, %a : f32
    fuse.yield %m : f32
  }
  %1 = fuse.reduce %h init(%hi : f16) : tensor<?xf16> -> tensor<f16> {
  ^bb0(%a: f16, %b: f16):
    %m = arith.addf %a, %b : f16
    fuse.yield %m : f16
  }
  %2 = fuse.reduce %x init(%i : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    fuse.yield %m : f32
  }
  %3:2 = fuse.reduce %y, %y init(%j, %j : i32, i32) : tensor<?xi32>, tensor<?xi32> -> tensor<i32>, tensor<i32> {
  ^bb0(%a: i32, %b: i32, %c: i32, %d: i32):
    %m = arith.addi %a, %d : i32
    %n = arith.addi %b, %c : i32
    fuse.yield %m, %n : i32, i32
  }
  %4:2 = fuse.reduce %y, %y init(%j, %j : i32, i32) : tensor<?xi32>, tensor<?xi32> -> tensor<i32>, tensor<i32> {
  ^bb0(%a: i32, %b: i32, %c: i32, %d: i32):
    %m = arith.addi %a, %c : i32
    fuse.yield %m, %m : i32, i32
  }
  %5 = fuse.reduce %y init(%j : i32) : tensor<?xi32> -> tensor<i32> {
  ^bb0(%a: i32, %b: i32):
    %k = arith.constant 1 : i32
    %m = arith.addi %a, %b : i32
    fuse.yield %m : i32
  }
  return %0, %1, %2, %3#0, %3#1, %4#0, %4#1, %5 : tensor<f32>, tensor<f16>, tensor<f32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
}
