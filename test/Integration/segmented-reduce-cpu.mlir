// fuse.segmented_reduce on the CPU backend, with the expected results
// written out by hand. The segments of x = 1..10 cover an ordinary range,
// an empty one, one that starts before 0 and one that ends past n (both
// clamped), ends before starts (empty) and one wholly past n; an add with
// the identity as init, a min and a max with inits over i32 offsets, an
// argmax combiner region (ties keep the first index), a non-commutative
// region keeping the last element (the order of the elements), no
// segments, and a sum of squares over CSR offsets whose starts and ends
// are gathers, fused with the square and an epilogue into one group (with
// and without fusion).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/x.npy '<f4' 10 '1,2,3,4,5,6,7,8,9,10'
// RUN: %python %S/Inputs/make_npy.py -- %t/y.npy '<i4' 10 '5,-3,7,0,2,9,1,1,4,8'
// RUN: %python %S/Inputs/make_npy.py -- %t/v.npy '<f4' 10 '3,1,3,2,5,5,0,1,2,2'
// RUN: %python %S/Inputs/make_npy.py -- %t/s.npy '<i8' 8 '0,3,3,8,-2,7,9,12'
// RUN: %python %S/Inputs/make_npy.py -- %t/e.npy '<i8' 8 '3,3,8,10,2,5,15,14'
// RUN: %python %S/Inputs/make_npy.py -- %t/s32.npy '<i4' 8 '0,3,3,8,-2,7,9,12'
// RUN: %python %S/Inputs/make_npy.py -- %t/e32.npy '<i4' 8 '3,3,8,10,2,5,15,14'
// RUN: %python %S/Inputs/make_npy.py -- %t/none.npy '<i8' 0 ''
// RUN: %python %S/Inputs/make_npy.py -- %t/o.npy '<i8' 5 '0,3,3,8,10'
// RUN: fuse-run %s --entry=sums --arg=%t/x.npy --arg=%t/s.npy --arg=%t/e.npy --print | FileCheck %s --check-prefix=SUMS
// RUN: fuse-run %s --entry=sums --arg=%t/x.npy --arg=%t/none.npy --arg=%t/none.npy --print | FileCheck %s --check-prefix=NONE
// RUN: fuse-run %s --entry=minmax --arg=%t/x.npy --arg=%t/y.npy --arg=%t/s32.npy --arg=%t/e32.npy --print | FileCheck %s --check-prefix=MINMAX
// RUN: fuse-run %s --entry=argmax --arg=%t/v.npy --arg=%t/s.npy --arg=%t/e.npy --print | FileCheck %s --check-prefix=ARGMAX
// RUN: fuse-run %s --entry=last --arg=%t/x.npy --arg=%t/s.npy --arg=%t/e.npy --print | FileCheck %s --check-prefix=LAST
// RUN: fuse-run %s --entry=csr --arg=%t/x.npy --arg=%t/o.npy --print | FileCheck %s --check-prefix=CSR
// RUN: fuse-run %s --entry=csr --no-fusion --arg=%t/x.npy --arg=%t/o.npy --print | FileCheck %s --check-prefix=CSR
// RUN: not fuse-run %s --entry=sums --arg=%t/x.npy --arg=%t/s.npy --arg=%t/o.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: fuse-opt %s --fuse-fusion | FileCheck %s --check-prefix=FUSION
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// SUMS: result #0: float32 array of shape (8,)
// SUMS-NEXT: [6, 0, 30, 19, 3, 0, 10, 0]
// NONE: result #0: float32 array of shape (0,)
// MISMATCH: size mismatch: in2 dimension 0 is 5 but in1 dimension 0 is 8
func.func @sums(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) -> tensor<?xf32> {
  %r = fuse.segmented_reduce add %x segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// MINMAX: result #0: float32 array of shape (8,)
// MINMAX-NEXT: [1, 100, 4, 9, 1, 100, 10, 100]
// MINMAX: result #1: int32 array of shape (8,)
// MINMAX-NEXT: [7, -1, 9, 8, 5, -1, 8, -1]
func.func @minmax(%x: tensor<?xf32>, %y: tensor<?xi32>, %s: tensor<?xi32>, %e: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %c100 = arith.constant 100.0 : f32
  %cm1 = arith.constant -1 : i32
  %a, %b = fuse.segmented_reduce (min, max) %x, %y init(%c100, %cm1 : f32, i32)
      segments(%s, %e : tensor<?xi32>, tensor<?xi32>)
      : tensor<?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xi32>
  return %a, %b : tensor<?xf32>, tensor<?xi32>
}

// ARGMAX: result #0: float32 array of shape (8,)
// ARGMAX-NEXT: [3, -inf, 5, 2, 3, -inf, 2, -inf]
// ARGMAX: result #1: int64 array of shape (8,)
// ARGMAX-NEXT: [0, -1, 4, 8, 0, -1, 9, -1]
func.func @argmax(%v: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %i = fuse.iota %n : tensor<?xi64>
  %ninf = arith.constant 0xFF800000 : f32
  %cm1 = arith.constant -1 : i64
  %mv, %mi = fuse.segmented_reduce %v, %i init(%ninf, %cm1 : f32, i64)
      segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %v2 = arith.select %gt, %bv, %av : f32
    %i2 = arith.select %gt, %bi, %ai : i64
    fuse.yield %v2, %i2 : f32, i64
  }
  return %mv, %mi : tensor<?xf32>, tensor<?xi64>
}

// LAST: result #0: float32 array of shape (8,)
// LAST-NEXT: [3, -1, 8, 10, 2, -1, 10, -1]
func.func @last(%x: tensor<?xf32>, %s: tensor<?xi64>, %e: tensor<?xi64>) -> tensor<?xf32> {
  %cm1 = arith.constant -1.0 : f32
  %r = fuse.segmented_reduce %x init(%cm1 : f32)
      segments(%s, %e : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %b : f32
  }
  return %r : tensor<?xf32>
}

// Sums of squares over [0, 3), [3, 3), [3, 8), [8, 10), plus one.
// CSR: result #0: float32 array of shape (4,)
// CSR-NEXT: [15, 1, 191, 182]
// FUSION-LABEL: func.func @csr
// FUSION: fuse.group segmented_reduce
// FUSION-DAG: fuse.gather
// FUSION-DAG: fuse.gather
// FUSION: fuse.segmented_reduce add
// FUSION: fuse.map
// FUSION: fuse.yield
// FUSION-NOT: fuse.group
// FUSION: return
// EXPLAIN-LABEL: total for @csr: 1 pass, 1 kernel
func.func @csr(%x: tensor<?xf32>, %o: tensor<?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %no = tensor.dim %o, %c0 : tensor<?xi64>
  %m = arith.subi %no, %c1 : index
  %i = fuse.iota %m : tensor<?xi64>
  %st = fuse.gather %o[%i] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %i1 = fuse.map %i : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %one = arith.constant 1 : i64
    %b = arith.addi %a, %one : i64
    fuse.yield %b : i64
  }
  %en = fuse.gather %o[%i1] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %sq = arith.mulf %a, %a : f32
    fuse.yield %sq : f32
  }
  %s = fuse.segmented_reduce add %y segments(%st, %en : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32>
  %r = fuse.map %s : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %b = arith.addf %a, %one : f32
    fuse.yield %b : f32
  }
  return %r : tensor<?xf32>
}
