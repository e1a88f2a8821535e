// Values of the ops' edge semantics through fuse-to-cpu and fuse-run,
// against hand-computed results (docs/dialect.md states the rules).
// RUN: fuse-run %s --entry scan_exclusive_init --print | FileCheck %s --check-prefix=SCAN
// RUN: fuse-run %s --entry reduce_order --print | FileCheck %s --check-prefix=ORDER
// RUN: fuse-run %s --entry reduce_order --no-fusion --print | FileCheck %s --check-prefix=ORDER
// RUN: fuse-run %s --entry gather_out_of_range --print | FileCheck %s --check-prefix=GATHER
// RUN: fuse-run %s --entry filter_count --print | FileCheck %s --check-prefix=FILTER
// RUN: fuse-run %s --entry iota_broadcast --print | FileCheck %s --check-prefix=IOTA
// RUN: fuse-run %s --entry max_nan --print | FileCheck %s --check-prefix=NAN

// Exclusive: y[i] = init + x[0] + ... + x[i-1], along dim 1 per row.
// SCAN: [10, 11, 13]
// SCAN: [10, 14, 19]
func.func @scan_exclusive_init() -> tensor<2x3xi32> {
  %x = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %i = arith.constant 10 : i32
  %y = fuse.scan exclusive add %x init(%i : i32) dim 1 : tensor<2x3xi32> -> tensor<2x3xi32>
  return %y : tensor<2x3xi32>
}

// A non-commutative (but associative, as combiners must be) combiner:
// composing affine maps x -> a*x + b, acc then element. From (1, 0) over
// (2,1), (3,1), (4,1): a = 24, b = ((0*2+1)*3+1)*4+1 = 17. Swapping the
// operands (element then acc) would give b = 9.
// ORDER: result #0: float32 array of shape ()
// ORDER-NEXT: 24
// ORDER: result #1: float32 array of shape ()
// ORDER-NEXT: 17
func.func @reduce_order() -> (tensor<f32>, tensor<f32>) {
  %a = arith.constant dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %b = arith.constant dense<[1.0, 1.0, 1.0]> : tensor<3xf32>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %ra, %rb = fuse.reduce %a, %b init(%one, %zero : f32, f32)
      : tensor<3xf32>, tensor<3xf32> -> tensor<f32>, tensor<f32> {
  ^bb0(%acc_a: f32, %acc_b: f32, %e_a: f32, %e_b: f32):
    %na = arith.mulf %acc_a, %e_a : f32
    %t = arith.mulf %acc_b, %e_a : f32
    %nb = arith.addf %t, %e_b : f32
    fuse.yield %na, %nb : f32, f32
  }
  return %ra, %rb : tensor<f32>, tensor<f32>
}

// Indices -1, 0, 2, 3, 2^31-1 on a 3-element source: out of range reads 0.
// GATHER: [0, 7, 9, 0, 0]
func.func @gather_out_of_range() -> tensor<5xf32> {
  %s = arith.constant dense<[7.0, 8.0, 9.0]> : tensor<3xf32>
  %i = arith.constant dense<[-1, 0, 2, 3, 2147483647]> : tensor<5xi32>
  %g = fuse.gather %s[%i] : tensor<3xf32>, tensor<5xi32> -> tensor<5xf32>
  return %g : tensor<5xf32>
}

// Keeps x > 0 with its index; the result length is the count (3).
// FILTER: result #0: float32 array of shape (3,)
// FILTER-NEXT: [2, 5, 1]
// FILTER: result #1: int64 array of shape (3,)
// FILTER-NEXT: [1, 3, 4]
func.func @filter_count() -> (tensor<?xf32>, tensor<?xi64>) {
  %x = arith.constant dense<[-1.0, 2.0, 0.0, 5.0, 1.0]> : tensor<5xf32>
  %c5 = arith.constant 5 : index
  %idx = fuse.iota %c5 : tensor<?xi64>
  %xd = tensor.cast %x : tensor<5xf32> to tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %r:2 = fuse.filter %xd, %idx : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: i64):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi64>
}

// iota along dim 1 plus a row vector broadcast along dim 0:
// y[i][j] = j + 10 * (i + 1).
// IOTA: [10, 11, 12]
// IOTA: [20, 21, 22]
func.func @iota_broadcast() -> tensor<2x3xi32> {
  %j = fuse.iota dim 1 : tensor<2x3xi32>
  %col = arith.constant dense<[10, 20]> : tensor<2xi32>
  %b = fuse.broadcast %col dims [1] : tensor<2xi32> -> tensor<2x3xi32>
  %y = fuse.map %j, %b : tensor<2x3xi32>, tensor<2x3xi32> -> tensor<2x3xi32> {
  ^bb0(%a: i32, %c: i32):
    %s = arith.addi %a, %c : i32
    fuse.yield %s : i32
  }
  return %y : tensor<2x3xi32>
}

// max propagates NaN; without NaN it is the plain maximum.
// NAN: result #0: float32 array of shape ()
// NAN-NEXT: nan
// NAN: result #1: float32 array of shape ()
// NAN-NEXT: 3
func.func @max_nan() -> (tensor<f32>, tensor<f32>) {
  %x = arith.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %y = arith.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %a = fuse.reduce max %x : tensor<3xf32> -> tensor<f32>
  %b = fuse.reduce max %y : tensor<3xf32> -> tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}
