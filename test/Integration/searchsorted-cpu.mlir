// fuse.searchsorted on the CPU backend, with the expected results written
// out by hand (NumPy's np.searchsorted gives the same): both sides over
// ties, needles below, between and above the elements, NaN (after every
// number; equal to every NaN), -0.0 equal to 0.0, unsigned integers, an
// empty sorted tensor, and a searchsorted fused between maps (one group,
// with and without fusion).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/a.npy '<f4' 7 '-inf,-1.0,0.0,0.0,2.5,nan,nan'
// RUN: %python %S/Inputs/make_npy.py -- %t/v.npy '<f4' 9 '-inf,-2.0,-0.0,0.0,1.0,2.5,3.0,inf,nan'
// RUN: %python %S/Inputs/make_npy.py -- %t/e.npy '<f4' 0 ''
// RUN: %python %S/Inputs/make_npy.py -- %t/u.npy '<i4' 4 '0,7,-2147483648,-1'
// RUN: %python %S/Inputs/make_npy.py -- %t/w.npy '<i4' 5 '-1,8,7,0,-2147483647'
// RUN: fuse-run %s --entry=both --arg=%t/a.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=BOTH
// RUN: fuse-run %s --entry=both --no-fusion --arg=%t/a.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=BOTH
// RUN: fuse-run %s --entry=both --arg=%t/e.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=EMPTY
// RUN: fuse-run %s --entry=unsigned_right --arg=%t/u.npy --arg=%t/w.npy --print | FileCheck %s --check-prefix=UNSIGNED
// RUN: fuse-run %s --entry=fused --arg=%t/a.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=FUSED
// RUN: fuse-run %s --entry=fused --no-fusion --arg=%t/a.npy --arg=%t/v.npy --print | FileCheck %s --check-prefix=FUSED
// RUN: fuse-run %s --entry=materialised --arg=%t/a.npy --print | FileCheck %s --check-prefix=MAT
// RUN: fuse-opt %s --fuse-fusion | FileCheck %s --check-prefix=FUSION
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// BOTH: result #0: int64 array of shape (9,)
// BOTH-NEXT: [0, 1, 2, 2, 4, 4, 5, 5, 5]
// BOTH: result #1: int64 array of shape (9,)
// BOTH-NEXT: [1, 1, 4, 4, 4, 5, 5, 5, 7]
// EMPTY: result #0: int64 array of shape (9,)
// EMPTY-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0]
// EMPTY: result #1: int64 array of shape (9,)
// EMPTY-NEXT: [0, 0, 0, 0, 0, 0, 0, 0, 0]
func.func @both(%a: tensor<?xf32>, %v: tensor<?xf32>)
    -> (tensor<?xi64>, tensor<?xi64>) {
  %l = fuse.searchsorted left %a, %v : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  %r = fuse.searchsorted right %a, %v : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  return %l, %r : tensor<?xi64>, tensor<?xi64>
}

// As unsigned the sorted tensor is 0 < 7 < 2^31 < 2^32-1.
// UNSIGNED: result #0: int64 array of shape (5,)
// UNSIGNED-NEXT: [4, 2, 2, 1, 3]
func.func @unsigned_right(%a: tensor<?xi32>, %v: tensor<?xi32>) -> tensor<?xi64> {
  %r = fuse.searchsorted right unsigned %a, %v : tensor<?xi32>, tensor<?xi32> -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// The needles are v + 1 and the positions are doubled: one group.
// FUSED: result #0: int64 array of shape (9,)
// FUSED-NEXT: [0, 2, 8, 8, 8, 10, 10, 10, 10]
// The sorted tensor counts once (the least a search can read).
// EXPLAIN: total for @fused: 1 pass, 1 kernel, read 4*n + 4*m bytes, write 8*m bytes; where n = dim 0 of argument #0; m = dim 0 of argument #1
// FUSION-LABEL: func.func @fused
// FUSION: fuse.group elementwise
// FUSION: fuse.map
// FUSION: fuse.searchsorted left
// FUSION: fuse.map
// FUSION: fuse.yield
// FUSION-NOT: fuse.group
// FUSION: return
func.func @fused(%a: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xi64> {
  %w = fuse.map %v : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%x: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.addf %x, %c : f32
    fuse.yield %s : f32
  }
  %i = fuse.searchsorted left %a, %w : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  %d = fuse.map %i : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%x: i64):
    %s = arith.addi %x, %x : i64
    fuse.yield %s : i64
  }
  return %d : tensor<?xi64>
}

// The sorted tensor comes from a map: it is read at computed positions,
// not the needle's, so the map cannot join as a producer; being cheap, it
// is recomputed at each position the search reads.
// MAT: result #0: int64 array of shape (7,)
// MAT-NEXT: [1, 2, 4, 4, 5, 7, 7]
// FUSION-LABEL: func.func @materialised
// FUSION: fuse.group elementwise
// FUSION-SAME: the searchsorted reads fuse.map at {{.+}} at positions computed from data, not at its own: a cheap map is recomputed at each position read, anything else is materialised
// FUSION: fuse.map %arg1
// FUSION: fuse.searchsorted right %{{[0-9]+}}, %{{[0-9]+}}
// FUSION-NOT: fuse.group
// FUSION: return
func.func @materialised(%a: tensor<?xf32>) -> tensor<?xi64> {
  %s = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%x: f32):
    %c = arith.constant 1.0 : f32
    %m = arith.mulf %x, %c : f32
    fuse.yield %m : f32
  }
  %p = fuse.searchsorted right %s, %s : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  return %p : tensor<?xi64>
}
