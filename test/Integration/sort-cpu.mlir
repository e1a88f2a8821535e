// fuse.sort on the CPU backend, with the expected results written out by
// hand: the key order (NaN of either sign, both zeros, infinities), the
// stability of both orders (a key-value sort of an iota is an argsort) and
// unsigned integer keys. A map before the sort stays its own group: fusion
// leaves the sort outside with its reason.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/k.npy '<f4' 8 'nan,-0.0,1.5,-inf,0.0,-nan,1.5,inf'
// RUN: %python %S/Inputs/make_npy.py -- %t/u.npy '<i4' 5 '-1,7,0,-2147483648,7'
// RUN: fuse-run %s --entry=keys --arg=%t/k.npy --print | FileCheck %s --check-prefix=KEYS
// RUN: fuse-run %s --entry=argsort_down --arg=%t/k.npy --print | FileCheck %s --check-prefix=DOWN
// RUN: fuse-run %s --entry=unsigned_keys --arg=%t/u.npy --print | FileCheck %s --check-prefix=UNSIGNED
// RUN: fuse-run %s --entry=unsigned_keys --no-fusion --arg=%t/u.npy --print | FileCheck %s --check-prefix=UNSIGNED
// RUN: %python %S/Inputs/make_npy.py -- %t/s.npy '<i4' 5 '3,1,3,0,1'
// RUN: %python %S/Inputs/make_npy.py -- %t/v.npy '<f4' 5 '0.5,1.5,2.5,3.5,4.5'
// RUN: fuse-run %s --entry=static_pairs --arg=%t/s.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=STATIC
// RUN: fuse-opt %s --fuse-fusion | FileCheck %s --check-prefix=FUSION
// RUN: %python %S/Inputs/make_npy.py -- %t/m.npy '<f4' 8 '2.0,-1.5,0.5,1.5,-2.0,0.25,-0.5,1.5'
// RUN: fuse-run %s --entry=by_magnitude --arg=%t/m.npy --print | FileCheck %s --check-prefix=MAGNITUDE
// RUN: fuse-run %s --entry=by_magnitude --no-fusion --arg=%t/m.npy --print | FileCheck %s --check-prefix=MAGNITUDE
// RUN: fuse-run %s --entry=by_magnitude_down --arg=%t/m.npy --print | FileCheck %s --check-prefix=MAGDOWN
// The `positions` form gives what the iota form gives.
// RUN: fuse-run %s --entry=positions_down --arg=%t/k.npy --print | FileCheck %s --check-prefix=DOWN
// RUN: fuse-run %s --entry=positions_by_magnitude --arg=%t/m.npy --print | FileCheck %s --check-prefix=MAGNITUDE
// RUN: fuse-run %s --entry=positions_static --arg=%t/s.npy --print | FileCheck %s --check-prefix=POSSTATIC

// KEYS: result #0: float32 array of shape (8,)
// KEYS-NEXT: [nan, -inf, -0, 0, 1.5, 1.5, inf, nan]
// FUSION-LABEL: func.func @keys
// FUSION: fuse.group elementwise
// FUSION: fuse.sort ascending %{{.+}} {fuse.not_fused = ["a sort is a device-wide algorithm (a radix sort over the whole input): it is not fused"]}
func.func @keys(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c = arith.constant 1.0 : f32
    %m = arith.mulf %a, %c : f32
    fuse.yield %m : f32
  }
  %s = fuse.sort ascending %y : tensor<?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// The negative NaN (index 5) comes first ascending, so last descending;
// -0.0 (1) and 0.0 (4) keep their input order in both.
// DOWN: result #0: float32 array of shape (8,)
// DOWN-NEXT: [nan, inf, 1.5, 1.5, -0, 0, -inf, nan]
// DOWN: result #1: int64 array of shape (8,)
// DOWN-NEXT: [0, 7, 2, 6, 1, 4, 3, 5]
func.func @argsort_down(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = fuse.iota %n : tensor<?xi64>
  %k, %p = fuse.sort descending %x, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
  return %k, %p : tensor<?xf32>, tensor<?xi64>
}

// As unsigned, -1 is the largest and -2^31 above 7.
// UNSIGNED: result #0: int32 array of shape (5,)
// UNSIGNED-NEXT: [0, 7, 7, -2147483648, -1]
func.func @unsigned_keys(%x: tensor<?xi32>) -> tensor<?xi32> {
  %s = fuse.sort ascending unsigned %x : tensor<?xi32> -> tensor<?xi32>
  return %s : tensor<?xi32>
}

// Static keys with dynamic values (the lowering's copies keep each
// operand's type).
// STATIC: result #0: int32 array of shape (5,)
// STATIC-NEXT: [0, 1, 1, 3, 3]
// STATIC: result #1: float32 array of shape (5,)
// STATIC-NEXT: [3.5, 1.5, 4.5, 0.5, 2.5]
func.func @static_pairs(%k: tensor<5xi32>, %v: tensor<?xf32>) -> (tensor<5xi32>, tensor<?xf32>) {
  %a, %b = fuse.sort ascending %k, %v : tensor<5xi32>, tensor<?xf32> -> tensor<5xi32>, tensor<?xf32>
  return %a, %b : tensor<5xi32>, tensor<?xf32>
}

// A comparator region gives the order (|a| < |b|); keys equal under it
// (-1.5, 1.5, 1.5 and 2.0, -2.0) keep their input order ascending and
// descending.
// FUSION-LABEL: func.func @by_magnitude
// FUSION: fuse.sort ascending %{{.+}}, %{{.+}} {fuse.not_fused = ["a sort is a device-wide algorithm (a merge sort by its comparator over the whole input): it is not fused"]}
// MAGNITUDE: result #0: float32 array of shape (8,)
// MAGNITUDE-NEXT: [0.25, 0.5, -0.5, -1.5, 1.5, 1.5, 2, -2]
// MAGNITUDE: result #1: int64 array of shape (8,)
// MAGNITUDE-NEXT: [5, 2, 6, 1, 3, 7, 0, 4]
func.func @by_magnitude(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = fuse.iota %n : tensor<?xi64>
  %k, %p = fuse.sort ascending %x, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: f32):
    %ma = math.absf %a : f32
    %mb = math.absf %b : f32
    %lt = arith.cmpf olt, %ma, %mb : f32
    fuse.yield %lt : i1
  }
  return %k, %p : tensor<?xf32>, tensor<?xi64>
}

// MAGDOWN: result #0: float32 array of shape (8,)
// MAGDOWN-NEXT: [2, -2, -1.5, 1.5, 1.5, 0.5, -0.5, 0.25]
func.func @by_magnitude_down(%x: tensor<?xf32>) -> tensor<?xf32> {
  %k = fuse.sort descending %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %ma = math.absf %a : f32
    %mb = math.absf %b : f32
    %lt = arith.cmpf olt, %ma, %mb : f32
    fuse.yield %lt : i1
  }
  return %k : tensor<?xf32>
}

func.func @positions_down(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %k, %p = fuse.sort descending positions %x : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
  return %k, %p : tensor<?xf32>, tensor<?xi64>
}

func.func @positions_by_magnitude(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %k, %p = fuse.sort ascending positions %x : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: f32):
    %ma = math.absf %a : f32
    %mb = math.absf %b : f32
    %lt = arith.cmpf olt, %ma, %mb : f32
    fuse.yield %lt : i1
  }
  return %k, %p : tensor<?xf32>, tensor<?xi64>
}

// POSSTATIC: result #0: int32 array of shape (5,)
// POSSTATIC-NEXT: [0, 1, 1, 3, 3]
// POSSTATIC: result #1: int64 array of shape (5,)
// POSSTATIC-NEXT: [3, 1, 4, 0, 2]
func.func @positions_static(%k: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi64>) {
  %a, %b = fuse.sort ascending positions %k : tensor<5xi32> -> tensor<5xi32>, tensor<5xi64>
  return %a, %b : tensor<5xi32>, tensor<5xi64>
}
