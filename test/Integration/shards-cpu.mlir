// fuse-run --shards=N: the entry rewritten by fuse-shard runs on N threads,
// each shard on its part of the split arguments, the shards meeting in
// fuse.all_gather; fuse-run joins the shards' results (split ones along
// the leading dimension; the others must be the same on every shard) and
// checks them against the unsharded run: integers exactly, floats to
// within a tolerance of the result's largest magnitude. More shards than
// elements leave some shards empty.
//
// RUN: fuse-run %s --entry colsum --arg rand:1001x5 --shards=7 | FileCheck %s --check-prefix=COL
// COL: shards: 7
// COL-NEXT: result #0: the same on every shard, matches the unsharded run (largest difference {{.*}} of its largest magnitude)
//
// Scans with an init (on shard 0 only) and exclusive, a reduction with an
// init; integers, so exact. 3 elements on 8 shards: 5 empty shards.
// RUN: fuse-run %s --entry scan_init --arg rand:1000 --shards=5 | FileCheck %s --check-prefix=SCAN
// RUN: fuse-run %s --entry scan_init --arg rand:3 --shards=8 | FileCheck %s --check-prefix=SCAN
// RUN: fuse-run %s --entry scan_init --arg rand:0 --shards=2 | FileCheck %s --check-prefix=SCAN
// SCAN: result #0: split, matches the unsharded run
// SCAN-NEXT: result #1: split, matches the unsharded run
// SCAN-NEXT: result #2: the same on every shard, matches the unsharded run
//
// An iota along the split dimension: each shard starts where the shards
// before it end.
// RUN: fuse-run %s --entry ramp --arg rand:100003 --shards=6 | FileCheck %s --check-prefix=RAMP
// RAMP: result #0: split, matches the unsharded run (largest difference 0 of its largest magnitude)
//
// Kept elements stay split (each shard keeps its own); their sum is
// gathered.
// RUN: fuse-run %s --entry keptsum --arg rand:100003 --shards=6 --print | FileCheck %s --check-prefix=KEPT
// KEPT: result #0: int64 array of shape ([[N:[0-9]+]],)
// KEPT: result #1: int64 array of shape ()
// KEPT: shards: 6
// KEPT-NEXT: result #0: split, matches the unsharded run
// KEPT-NEXT: result #1: the same on every shard, matches the unsharded run
//
// Counts of split indices are summed over the shards.
// RUN: fuse-run %s --entry hist --arg rand:100003 --shards=4 --out %t.hist | FileCheck %s --check-prefix=HIST
// RUN: test -f %t.hist/result0.npy
// HIST: result #0: the same on every shard, matches the unsharded run
//
// An `index` argument that is the split size: each shard gets its own
// rows' count; a mean divides by the total.
// RUN: fuse-run %S/../Transforms/shard.mlir --entry sized --arg rand:10007 --arg scalar:10007 --shards=3 | FileCheck %s --check-prefix=SIZED
// SIZED: result #0: split, matches the unsharded run
// SIZED-NEXT: result #1: the same on every shard, matches the unsharded run
//
// Static split sizes: each shard its own rows, a constant array read at
// the shard's part, iotas and a broadcast sized by the local rows, and the
// size constant the total in a mean (8 rows on 1, 3 and 11 shards).
// RUN: fuse-run %S/../Transforms/shard.mlir --entry static --arg rand:8 --shards=3 | FileCheck %s --check-prefix=STATIC
// RUN: fuse-run %S/../Transforms/shard.mlir --entry static --arg rand:8 --shards=11 | FileCheck %s --check-prefix=STATIC
// RUN: fuse-run %S/../Transforms/shard.mlir --entry static --arg rand:8 --shards=1 | FileCheck %s --check-prefix=STATIC
// STATIC: result #0: split, matches the unsharded run
// STATIC-NEXT: result #1: the same on every shard, matches the unsharded run
//
// A prefix of split data: the first n elements of the whole array, each
// shard its own of them; counts inside a shard, at the ends, past the
// end, negative and the most negative.
// RUN: fuse-run %S/../Transforms/shard.mlir --entry prefix_split --arg rand:1000 --arg scalar:500 --shards=7 | FileCheck %s --check-prefix=PREFIX
// RUN: fuse-run %S/../Transforms/shard.mlir --entry prefix_split --arg rand:1000 --arg scalar:1000 --shards=7 | FileCheck %s --check-prefix=PREFIX
// RUN: fuse-run %S/../Transforms/shard.mlir --entry prefix_split --arg rand:1000 --arg scalar:3000 --shards=3 | FileCheck %s --check-prefix=PREFIX
// RUN: fuse-run %S/../Transforms/shard.mlir --entry prefix_split --arg rand:10 --arg scalar:1 --shards=16 | FileCheck %s --check-prefix=PREFIX
// RUN: fuse-run %S/../Transforms/shard.mlir --entry prefix_split --arg rand:1000 --arg scalar:-3 --shards=4 | FileCheck %s --check-prefix=PREFIX
// RUN: fuse-run %S/../Transforms/shard.mlir --entry prefix_split --arg rand:1000 --arg scalar:-9223372036854775808 --shards=4 --print | FileCheck %s --check-prefix=PREFIX0
// PREFIX: result #0: split, matches the unsharded run
// PREFIX-NEXT: result #1: the same on every shard, matches the unsharded run
// PREFIX0: result #0: float32 array of shape (0,)
// PREFIX0: result #0: split, matches the unsharded run
//
// Scans of rows along the split dimension (a column at a time): the
// totals are a row a shard, and the rows of the shards from this one on
// are masked to the identity (built-in kinds) or marked absent (regions;
// the affine-map composition is not commutative). 13 rows on 1 to 40
// shards.
// RUN: fuse-run %s --entry scan_rows --arg rand:13x4 --arg rand:13x4 --shards=1 | FileCheck %s --check-prefix=ROWSCAN
// RUN: fuse-run %s --entry scan_rows --arg rand:13x4 --arg rand:13x4 --shards=3 | FileCheck %s --check-prefix=ROWSCAN
// RUN: fuse-run %s --entry scan_rows --arg rand:13x4 --arg rand:13x4 --shards=40 | FileCheck %s --check-prefix=ROWSCAN
// RUN: fuse-run %s --entry scan_rows --arg rand:1001x3 --arg rand:1001x3 --shards=7 | FileCheck %s --check-prefix=ROWSCAN
// ROWSCAN: result #0: split, matches the unsharded run
// ROWSCAN-NEXT: result #1: split, matches the unsharded run
// ROWSCAN-NEXT: result #2: split, matches the unsharded run
// ROWSCAN-NEXT: result #3: split, matches the unsharded run
//
// --shard-arg picks the split argument: the indices of a gather split, the
// source whole on every shard (no all_concat), the sort of the source the
// same on every shard.
// RUN: fuse-run %S/../Transforms/shard.mlir --entry gather_split --arg rand:100 --arg rand:57 --shards=4 --shard-arg=1 | FileCheck %s --check-prefix=PICK
// PICK: result #0: split, matches the unsharded run
// PICK-NEXT: result #1: the same on every shard, matches the unsharded run
// RUN: not fuse-run %S/../Transforms/shard.mlir --entry gather_split --arg rand:100 --arg rand:5 --shards=2 --shard-arg=7 2>&1 | FileCheck %s --check-prefix=PICK7
// PICK7: error: cannot run sharded: no argument #7 to split
// PICK7: fuse-run: 'gather_split' cannot run sharded
// RUN: not fuse-run %S/../Transforms/shard.mlir --entry gather_split --arg rand:100 --arg rand:5 --shard-arg=1 2>&1 | FileCheck %s --check-prefix=PICKALONE
// PICKALONE: fuse-run: --shard-arg goes with --shards
// RUN: not fuse-run %S/../Transforms/shard.mlir --entry gather_split --arg rand:100 --arg rand:5 --shards=2 --shard-arg=-2 2>&1 | FileCheck %s --check-prefix=PICKNEG
// PICKNEG: fuse-run: --shard-arg=-2: an argument's number, counting from 0
//
// An element of the split input read at the top by the shard holding it,
// bit for bit: -0.0 and a NaN with a payload among ordinary values, the
// first, a middle and the last element, 10 elements on 1, 4 and 16 shards.
// RUN: %python -c "import numpy as np; x = np.arange(10, dtype=np.float32); x[3] = -0.0; x[7] = np.frombuffer(np.uint32(0x7fc01234).tobytes(), np.float32)[0]; np.save('%t.special.npy', x)"
// RUN: fuse-run %S/../Transforms/shard.mlir --entry element --arg %t.special.npy --arg scalar:3 --shards=4 --print | FileCheck %s --check-prefix=ELEMNEG
// ELEMNEG: result #1: float32 array of shape ()
// ELEMNEG-NEXT: -0
// ELEMNEG: result #1: the same on every shard, matches the unsharded run
// RUN: fuse-run %S/../Transforms/shard.mlir --entry element --arg %t.special.npy --arg scalar:7 --shards=16 --out %t.nan | FileCheck %s --check-prefix=ELEM
// RUN: %python -c "import numpy as np; v = np.load('%t.nan/result1.npy'); assert v.view(np.uint32) == 0x7fc01234, hex(int(v.view(np.uint32)))"
// RUN: fuse-run %S/../Transforms/shard.mlir --entry element --arg %t.special.npy --arg scalar:0 --shards=1 | FileCheck %s --check-prefix=ELEM
// RUN: fuse-run %S/../Transforms/shard.mlir --entry element --arg %t.special.npy --arg scalar:9 --shards=4 | FileCheck %s --check-prefix=ELEM
// ELEM: result #0: split, matches the unsharded run
// ELEM-NEXT: result #1: the same on every shard, matches the unsharded run
//
// A map body reading the split input from above: its first element (of
// the whole array) and its size (the total).
// RUN: fuse-run %S/../Transforms/shard.mlir --entry body_reads --arg rand:1000 --shards=3 | FileCheck %s --check-prefix=BODY
// RUN: fuse-run %S/../Transforms/shard.mlir --entry body_reads --arg rand:2 --shards=5 | FileCheck %s --check-prefix=BODY
// BODY: result #0: split, matches the unsharded run
//
// Combiner regions over the split dimension: an argmax (13 shards of 1003
// elements), an affine-map composition scanned inclusively and
// exclusively (not commutative; 6 shards of 3 elements), column maxima.
// RUN: fuse-run %s --entry argmax --arg rand:1003 --arg rand:1003 --shards=13 | FileCheck %s --check-prefix=ARGMAX
// ARGMAX: result #0: the same on every shard, matches the unsharded run
// ARGMAX-NEXT: result #1: the same on every shard, matches the unsharded run
// RUN: fuse-run %s --entry affine --arg rand:57 --arg rand:57 --shards=5 | FileCheck %s --check-prefix=AFFINE
// RUN: fuse-run %s --entry affine --arg rand:3 --arg rand:3 --shards=6 | FileCheck %s --check-prefix=AFFINE
// AFFINE: result #0: split, matches the unsharded run
// AFFINE-NEXT: result #1: split, matches the unsharded run
// AFFINE-NEXT: result #2: split, matches the unsharded run
// AFFINE-NEXT: result #3: split, matches the unsharded run
// RUN: fuse-run %s --entry colmax --arg rand:1001x7 --shards=6 | FileCheck %s --check-prefix=COLMAX
// COLMAX: result #0: the same on every shard, matches the unsharded run
//
// What fuse-shard cannot split yet is an error at the op, and --shards is
// a CPU simulation.
// RUN: not fuse-run %S/../Transforms/shard.mlir --entry static_rows --arg rand:4x3 --shards=2 2>&1 | FileCheck %s --check-prefix=REFUSE
// REFUSE: error: cannot run sharded: this array of rank 2 or more has the split rows but no split input
// REFUSE: fuse-run: 'static_rows' cannot run sharded
//
// Ops that read split data at positions of the whole array read it whole
// (fuse.all_concat): a gather, a sort (each shard keeps its part of the
// sorted array; 5 shards of 11 elements).
// RUN: fuse-run %s --entry whole --arg rand:11 --shards=5 | FileCheck %s --check-prefix=WHOLE
// WHOLE: result #0: split, matches the unsharded run
// WHOLE-NEXT: result #1: split, matches the unsharded run
// WHOLE-NEXT: result #2: split, matches the unsharded run
// RUN: not fuse-run %s --entry hist --arg rand:10 --shards=2 --gpu 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: fuse-run: --shards simulates the shards on the CPU; it does not go with --gpu
// RUN: not fuse-run %s --entry hist --arg rand:10 --shards=5000 2>&1 | FileCheck %s --check-prefix=MANY
// MANY: fuse-run: --shards=5000: at most 1024 shards (each runs on a thread of its own)
//
// The examples: maps, reductions, variance (the total size in the mean),
// a scan, a filter, and row groups (local).
// RUN: fuse-run %fuse_src_root/examples/variance.mlir --arg rand:1000003 --shards=4 | FileCheck %s --check-prefix=EX1
// RUN: fuse-run %fuse_src_root/examples/scan.mlir --arg rand:1000003 --shards=3 | FileCheck %s --check-prefix=EX1
// RUN: fuse-run %fuse_src_root/examples/select.mlir --arg rand:1000003 --shards=3 | FileCheck %s --check-prefix=EX1
// RUN: fuse-run %fuse_src_root/examples/dot.mlir --arg rand:1000003 --arg rand:1000003 --shards=2 | FileCheck %s --check-prefix=EX1
// RUN: fuse-run %fuse_src_root/examples/softmax_rows.mlir --arg rand:1001x37 --shards=3 | FileCheck %s --check-prefix=EX1
// EX1: shards: {{[0-9]+}}
// EX1-NEXT: result #0: {{.*}}matches the unsharded run

func.func @colsum(%m: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce add %m dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
func.func @scan_init(%x: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<i32>) {
  %c5 = arith.constant 5 : i32
  %y = fuse.scan inclusive add %x init(%c5 : i32) : tensor<?xi32> -> tensor<?xi32>
  %e = fuse.scan exclusive max %x : tensor<?xi32> -> tensor<?xi32>
  %m = fuse.reduce min %x init(%c5 : i32) : tensor<?xi32> -> tensor<i32>
  return %y, %e, %m : tensor<?xi32>, tensor<?xi32>, tensor<i32>
}
func.func @ramp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = fuse.iota %n : tensor<?xf32>
  %y = fuse.map %x, %i : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %y : tensor<?xf32>
}
func.func @keptsum(%x: tensor<?xi64>) -> (tensor<?xi64>, tensor<i64>) {
  %z = arith.constant 0 : i64
  %k = fuse.filter %x : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %p = arith.cmpi sgt, %a, %z : i64
    fuse.yield %p : i1
  }
  %s = fuse.reduce add %k : tensor<?xi64> -> tensor<i64>
  return %k, %s : tensor<?xi64>, tensor<i64>
}
func.func @hist(%x: tensor<?xi64>) -> tensor<200xi64> {
  %c100 = arith.constant 100 : i64
  %b = fuse.map %x : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %s = arith.addi %a, %c100 : i64
    fuse.yield %s : i64
  }
  %h = fuse.histogram %b : tensor<?xi64> -> tensor<200xi64>
  return %h : tensor<200xi64>
}
func.func @argmax(%x: tensor<?xf32>, %i: tensor<?xi64>) -> (tensor<f32>, tensor<i64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %v, %j = fuse.reduce %x, %i init(%ninf, %c0 : f32, i64) : tensor<?xf32>, tensor<?xi64> -> tensor<f32>, tensor<i64> {
  ^bb0(%av: f32, %ai: i64, %bv: f32, %bi: i64):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %v2 = arith.select %gt, %bv, %av : f32
    %i2 = arith.select %gt, %bi, %ai : i64
    fuse.yield %v2, %i2 : f32, i64
  }
  return %v, %j : tensor<f32>, tensor<i64>
}
func.func @affine(%a: tensor<?xi64>, %b: tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %p, %q = fuse.scan inclusive %a, %b init(%one, %zero : i64, i64) : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>, tensor<?xi64> {
  ^bb0(%a1: i64, %b1: i64, %a2: i64, %b2: i64):
    %m = arith.muli %a2, %a1 : i64
    %t = arith.muli %a2, %b1 : i64
    %s = arith.addi %t, %b2 : i64
    fuse.yield %m, %s : i64, i64
  }
  %e, %f = fuse.scan exclusive %a, %b init(%one, %zero : i64, i64) : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>, tensor<?xi64> {
  ^bb0(%a1: i64, %b1: i64, %a2: i64, %b2: i64):
    %m = arith.muli %a2, %a1 : i64
    %t = arith.muli %a2, %b1 : i64
    %s = arith.addi %t, %b2 : i64
    fuse.yield %m, %s : i64, i64
  }
  return %p, %q, %e, %f : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}
func.func @colmax(%m: tensor<?x?xf32>) -> tensor<?xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %r = fuse.reduce %m init(%ninf : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maximumf %a, %b : f32
    fuse.yield %c : f32
  }
  return %r : tensor<?xf32>
}
func.func @whole(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = fuse.iota %n : tensor<?xi64>
  // x reversed: x[n - 1 - i], positions of the whole array
  %r = fuse.map %i : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %ni = arith.index_cast %n : index to i64
    %m = arith.subi %ni, %a : i64
    %one = arith.constant 1 : i64
    %j = arith.subi %m, %one : i64
    fuse.yield %j : i64
  }
  %g = fuse.gather %x[%r] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  %s, %p = fuse.sort ascending %x, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
  return %g, %s, %p : tensor<?xf32>, tensor<?xf32>, tensor<?xi64>
}

func.func @scan_rows(%x: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %a = fuse.scan inclusive add %x dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %y, %z = fuse.map %x, %v : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xi64>, tensor<?x?xi64> {
  ^bb0(%p: f32, %q: f32):
    %k = arith.constant 100.0 : f32
    %pk = arith.mulf %p, %k : f32
    %qk = arith.mulf %q, %k : f32
    %pi = arith.fptosi %pk : f32 to i64
    %qi = arith.fptosi %qk : f32 to i64
    fuse.yield %pi, %qi : i64, i64
  }
  %c = arith.constant 5 : i64
  %b = fuse.scan exclusive max %y init(%c : i64) dim 0 : tensor<?x?xi64> -> tensor<?x?xi64>
  %one = arith.constant 1 : i64
  %zero = arith.constant 0 : i64
  %m, %n = fuse.scan inclusive %y, %z init(%one, %zero : i64, i64) dim 0 : tensor<?x?xi64>, tensor<?x?xi64> -> tensor<?x?xi64>, tensor<?x?xi64> {
  ^bb0(%a1: i64, %b1: i64, %a2: i64, %b2: i64):
    %mm = arith.muli %a2, %a1 : i64
    %t = arith.muli %a2, %b1 : i64
    %s = arith.addi %t, %b2 : i64
    fuse.yield %mm, %s : i64, i64
  }
  return %a, %b, %m, %n : tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xi64>, tensor<?x?xi64>
}
