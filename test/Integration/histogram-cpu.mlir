// fuse.histogram on the CPU backend, with the expected counts written out by
// hand: bins below 0 and at or past the bin count are not counted (i64 and
// i8 indices, a static and a dynamic bin count, i32 counts), an empty input,
// a rank-2 input, and a histogram of bins computed by a map, fused with the
// map into one group that also returns another map of the same input (with
// and without fusion).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/b.npy '<i8' 11 '0,1,1,4,5,-1,2,2,2,9,3'
// RUN: %python %S/Inputs/make_npy.py -- %t/e.npy '<i8' 0 ''
// RUN: %python %S/Inputs/make_npy.py -- %t/s.npy '<i1' 2,3 '-128,127,0,1,1,3'
// RUN: %python %S/Inputs/make_npy.py -- %t/x.npy '<f4' 8 '0.1,0.3,0.6,0.9,0.95,-0.5,2.0,0.25'
// RUN: fuse-run %s --entry=counts --arg=%t/b.npy --arg=scalar:3 --print | FileCheck %s --check-prefix=COUNTS
// RUN: fuse-run %s --entry=counts --no-fusion --arg=%t/b.npy --arg=scalar:3 --print | FileCheck %s --check-prefix=COUNTS
// RUN: fuse-run %s --entry=counts --arg=%t/e.npy --arg=scalar:0 --print | FileCheck %s --check-prefix=EMPTY
// RUN: fuse-run %s --entry=small --arg=%t/s.npy --print | FileCheck %s --check-prefix=SMALL
// RUN: fuse-run %s --entry=fused --arg=%t/x.npy --print | FileCheck %s --check-prefix=FUSED
// RUN: fuse-run %s --entry=fused --no-fusion --arg=%t/x.npy --print | FileCheck %s --check-prefix=FUSED
// RUN: not fuse-run %s --entry=counts --arg=%t/b.npy --arg=scalar:-2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: fuse-opt %s --fuse-fusion | FileCheck %s --check-prefix=FUSION
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// COUNTS: result #0: int64 array of shape (6,)
// COUNTS-NEXT: [1, 2, 3, 1, 1, 1]
// COUNTS: result #1: int32 array of shape (3,)
// COUNTS-NEXT: [1, 2, 3]
// EMPTY: result #0: int64 array of shape (6,)
// EMPTY-NEXT: [0, 0, 0, 0, 0, 0]
// EMPTY: result #1: int32 array of shape (0,)
// NEGATIVE: in1 is -2, but it sizes a tensor and cannot be negative
func.func @counts(%b: tensor<?xi64>, %n: index) -> (tensor<6xi64>, tensor<?xi32>) {
  %c = fuse.histogram %b : tensor<?xi64> -> tensor<6xi64>
  %d = fuse.histogram %b bins(%n) : tensor<?xi64> -> tensor<?xi32>
  return %c, %d : tensor<6xi64>, tensor<?xi32>
}

// SMALL: result #0: int64 array of shape (4,)
// SMALL-NEXT: [1, 2, 0, 1]
func.func @small(%s: tensor<?x3xi8>) -> tensor<4xi64> {
  %c = fuse.histogram %s : tensor<?x3xi8> -> tensor<4xi64>
  return %c : tensor<4xi64>
}

// Bins floor(4 x): -0.5 and 2.0 fall outside [0, 4).
// FUSED: result #0: int64 array of shape (4,)
// FUSED-NEXT: [1, 2, 1, 2]
// FUSED: result #1: float32 array of shape (8,)
// FUSED-NEXT: [0.010000001, 0.090000004, 0.36000001, 0.80999994, 0.90249997, 0.25, 4, 0.0625]
// FUSION-LABEL: func.func @fused
// FUSION: fuse.group histogram
// FUSION: fuse.map
// FUSION: fuse.histogram
// FUSION: fuse.map
// FUSION: fuse.yield
// FUSION-NOT: fuse.group
// FUSION: return
// EXPLAIN: total for @fused: 1 pass, 1 kernel, read 4*n bytes, write 4*n + 32 bytes; where n = dim 0 of argument #0
func.func @fused(%x: tensor<?xf32>) -> (tensor<4xi64>, tensor<?xf32>) {
  %b = fuse.map %x : tensor<?xf32> -> tensor<?xi64> {
  ^bb0(%a: f32):
    %c4 = arith.constant 4.0 : f32
    %m = arith.mulf %a, %c4 : f32
    %f = math.floor %m : f32
    %i = arith.fptosi %f : f32 to i64
    fuse.yield %i : i64
  }
  %c = fuse.histogram %b : tensor<?xi64> -> tensor<4xi64>
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  return %c, %y : tensor<4xi64>, tensor<?xf32>
}
