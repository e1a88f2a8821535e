// A min or max of an iota reads one position of each reduced dimension
// other than the iota's (ReduceIdempotentIota, FuseFolds.cpp): the values
// against hand-computed ones, with empty dimensions (the result is the
// init) and size-1 ones.
// RUN: fuse-run %s --entry iota_extremes --arg rand:3x4x5 --print | FileCheck %s --check-prefix=FULL
// RUN: fuse-run %s --entry iota_extremes --arg rand:0x4x5 --print | FileCheck %s --check-prefix=EMPTY
// RUN: fuse-run %s --entry iota_extremes --arg rand:3x0x2 --print | FileCheck %s --check-prefix=NOIOTA
// RUN: fuse-run %s --entry iota_extremes --arg rand:2x1x3 --print | FileCheck %s --check-prefix=ONE
// RUN: fuse-opt %s --canonicalize | FileCheck %s --check-prefix=IR

// FULL: result #0: float64 array of shape ()
// FULL-NEXT: 3
// FULL-NEXT: result #1: int32 array of shape (5,)
// FULL-NEXT: [0, 0, 0, 0, 0]
// EMPTY: result #0: float64 array of shape ()
// EMPTY-NEXT: -1
// EMPTY-NEXT: result #1: int32 array of shape (5,)
// EMPTY-NEXT: [100, 100, 100, 100, 100]
// NOIOTA: -1
// NOIOTA: [100, 100]
// ONE: result #0: float64 array of shape ()
// ONE-NEXT: 0
// ONE-NEXT: result #1: int32 array of shape (3,)
// ONE-NEXT: [0, 0, 0]
// Two dimensions of the full reduction, one of the other.
// IR-COUNT-3: arith.minui
// IR-NOT: arith.minui
func.func @iota_extremes(%x: tensor<?x?x?xf32>) -> (tensor<f64>, tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %c = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %i = fuse.iota %b, %n, %c dim 1 : tensor<?x?x?xf64>
  %init = arith.constant -1.0 : f64
  %mx = fuse.reduce max %i init(%init : f64) : tensor<?x?x?xf64> -> tensor<f64>
  %j = fuse.iota %b, %n, %c dim 1 : tensor<?x?x?xi32>
  %big = arith.constant 100 : i32
  %mn = fuse.reduce umin %j init(%big : i32) dims [0, 1] : tensor<?x?x?xi32> -> tensor<?xi32>
  return %mx, %mn : tensor<f64>, tensor<?xi32>
}
