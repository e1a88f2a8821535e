// fuse.prefix on the CPU backend, with the expected results written out by
// hand: a count inside the source, counts below 0 and past the end
// (clamped: nothing, everything), a count of 0, a prefix returned as it is
// and one mapped, reduced and scanned (with and without fusion), a prefix
// of an i1 tensor, and a count computed in the same function (a filter's
// kept count taken back as a rank-0 tensor, as an earlier pipeline's
// NAME_ws would leave it on the device).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py -- %t/x.npy '<f4' 6 '1.0,2.0,3.0,4.0,5.0,6.0'
// RUN: fuse-run %s --entry=steps --arg=%t/x.npy --arg=scalar:4 --print | FileCheck %s --check-prefix=FOUR
// RUN: fuse-run %s --entry=steps --no-fusion --arg=%t/x.npy --arg=scalar:4 --print | FileCheck %s --check-prefix=FOUR
// RUN: fuse-run %s --entry=steps --arg=%t/x.npy --arg=scalar:-3 --print | FileCheck %s --check-prefix=NONE
// RUN: fuse-run %s --entry=steps --arg=%t/x.npy --arg=scalar:0 --print | FileCheck %s --check-prefix=NONE
// RUN: fuse-run %s --entry=steps --arg=%t/x.npy --arg=scalar:1000 --print | FileCheck %s --check-prefix=ALL
// RUN: fuse-run %s --entry=bools --arg=rand:9 --arg=scalar:3 --print | FileCheck %s --check-prefix=BOOLS
// RUN: fuse-run %s --entry=counted --arg=%t/x.npy --print | FileCheck %s --check-prefix=COUNTED
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// FOUR: result #0: float32 array of shape (4,)
// FOUR-NEXT: [1, 2, 3, 4]
// FOUR: result #1: float32 array of shape (4,)
// FOUR-NEXT: [2, 4, 6, 8]
// FOUR: result #2: float32 array of shape ()
// FOUR-NEXT: 10
// FOUR: result #3: float32 array of shape (4,)
// FOUR-NEXT: [1, 3, 6, 10]
// NONE: result #0: float32 array of shape (0,)
// NONE: result #1: float32 array of shape (0,)
// NONE: result #2: float32 array of shape ()
// NONE-NEXT: 0
// ALL: result #0: float32 array of shape (6,)
// ALL-NEXT: [1, 2, 3, 4, 5, 6]
// ALL: result #2: float32 array of shape ()
// ALL-NEXT: 21
// ALL: result #3: float32 array of shape (6,)
// ALL-NEXT: [1, 3, 6, 10, 15, 21]
// EXPLAIN: remark: fuse.prefix: a view of its source{{.*}} no pass
// EXPLAIN-NEXT: not fused: a prefix is a view of its source{{.*}}
// EXPLAIN: total for @steps: 2 passes, 3 kernels, read 8*m bytes
func.func @steps(%x: tensor<?xf32>, %n: tensor<i64>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>) {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %d = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.addf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %p : tensor<?xf32> -> tensor<?xf32>
  return %p, %d, %s, %c : tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>
}

// BOOLS: result #0: bool array of shape (3,)
func.func @bools(%b: tensor<?xi1>, %n: tensor<i64>) -> tensor<?xi1> {
  %p = fuse.prefix %b, %n : tensor<?xi1>, tensor<i64> -> tensor<?xi1>
  return %p : tensor<?xi1>
}

// The elements above 2.5 are 3, 4, 5, 6: the count 4 of them, taken as a
// prefix of the input (its first four, 1 to 4), summed: 10.
// COUNTED: result #0: float32 array of shape ()
// COUNTED-NEXT: 10
func.func @counted(%x: tensor<?xf32>) -> tensor<f32> {
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 2.5 : f32
    %q = arith.cmpf ogt, %a, %t : f32
    fuse.yield %q : i1
  }
  %c0 = arith.constant 0 : index
  %kn = tensor.dim %k, %c0 : tensor<?xf32>
  %ki = arith.index_cast %kn : index to i64
  %n = tensor.from_elements %ki : tensor<i64>
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
