// Run-time size checks (EntrySizeChecks.h): every equality between sizes
// the caller passes that the pipeline implies is checked before any work;
// a mismatch is an error naming the arguments, the dimension and both
// sizes, with exit 1 and no stack dump. Matching sizes run as before.
// RUN: rm -rf %t && mkdir -p %t
//
// The GPU entries (the C ABI of fuse-compile) check the same equalities in
// their host code, before the first launch, and format the message with
// the runtime's fuse_set_size_error.
// RUN: fuse-opt %s --fuse-fusion --convert-fuse-to-gpu | FileCheck %s --check-prefix=GPU
// The AOT header documents them under each entry (#fuse.entry's checks).
// RUN: fuse-compile %s --emit=header -o - 2>/dev/null | FileCheck %s --check-prefix=HDR
// HDR: Sizes checked before any work (FUSE_ERROR_INVALID_ARGUMENT otherwise):
// HDR-NEXT: in1_d0 == in0_d0.
// HDR: fuse_status_t dot(
// HDR: in2_d0 == in0_d0, in1_d0 == in0_d1, in2_d1 == in0_d1.
// HDR: fuse_status_t rows(
// HDR: in1 >= 0, in1 == in0_d0.
// HDR: fuse_status_t ramp(
// HDR: in1_d0 == 4.
// HDR: fuse_status_t fixed(
// GPU-DAG: @__fuse_msg_dot_{{[0-9]+}}("dot: size mismatch: in1 dimension 0 is %lld but in0 dimension 0 is %lld; the pipeline combines them, so they must be equal\00")
// GPU-DAG: @__fuse_msg_rows_{{[0-9]+}}("rows: size mismatch: in1 dimension 0 is %lld but in0 dimension 1 is %lld;
// GPU-DAG: @__fuse_msg_rows_{{[0-9]+}}("rows: size mismatch: in2 dimension 0 is %lld but in0 dimension 0 is %lld;
// GPU-DAG: @__fuse_msg_ramp_{{[0-9]+}}("ramp: invalid size: in1 is %lld, but it sizes a tensor and cannot be negative\00")
// GPU-DAG: @__fuse_msg_fixed_{{[0-9]+}}("fixed: size mismatch: in1 dimension 0 is %lld but the pipeline's type says %lld\00")
// GPU-DAG: @__fuse_msg_pick_{{[0-9]+}}("pick: size mismatch: in1 dimension 0 is %lld but in0 dimension 0 is %lld;
// GPU-DAG: @__fuse_msg_keptpair_{{[0-9]+}}("keptpair: size mismatch: the filter at {{.*}}size-checks.mlir:{{[0-9]+}}:8 keeps %lld elements but the filter at {{.*}}size-checks.mlir:{{[0-9]+}}:8 keeps %lld; the pipeline combines them, so they must be equal\00")
// GPU-LABEL: func.func @dot(%arg0: !llvm.ptr
// GPU: arith.cmpi ne, %arg3, %arg1 : i64
// GPU: call @fuse_set_size_error(%{{.*}}, %{{.*}}, %arg3, %arg1) : (i32, !llvm.ptr, i64, i64) -> i32
// GPU: call @fuse_init
//
// zip of two vectors (examples/dot.mlir's shape): both orders, and a size
// that once crashed fuse-run.
// RUN: not fuse-run %s --entry dot --arg rand:1000 --arg rand:10 2>&1 | FileCheck %s --check-prefix=DOT
// DOT: fuse-run: dot: size mismatch: in1 dimension 0 is 10 but in0 dimension 0 is 1000; the pipeline combines them, so they must be equal
// DOT-NOT: Stack dump
// RUN: not fuse-run %s --entry dot --arg rand:10 --arg rand:1000 2>&1 | FileCheck %s --check-prefix=DOT2
// DOT2: fuse-run: dot: size mismatch: in1 dimension 0 is 1000 but in0 dimension 0 is 10;
// RUN: not fuse-run %s --entry dot --arg rand:100000000 --arg rand:1 2>&1 | FileCheck %s --check-prefix=DOT3
// DOT3: fuse-run: dot: size mismatch: in1 dimension 0 is 1 but in0 dimension 0 is 100000000;
// RUN: fuse-run %s --entry dot --arg rand:7 --arg rand:7 --print | FileCheck %s --check-prefix=DOTOK
// DOTOK: result #0: float32 array of shape ()
func.func @dot(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %p = fuse.map %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// A row vector against the rows of a matrix (a broadcast along dim 0),
// and the matrix's rows against a second matrix.
// RUN: not fuse-run %s --entry rows --arg rand:4x5 --arg rand:6 --arg rand:4x5 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: fuse-run: rows: size mismatch: in1 dimension 0 is 6 but in0 dimension 1 is 5;
// RUN: not fuse-run %s --entry rows --arg rand:4x5 --arg rand:5 --arg rand:3x5 2>&1 | FileCheck %s --check-prefix=ROWS2
// ROWS2: fuse-run: rows: size mismatch: in2 dimension 0 is 3 but in0 dimension 0 is 4;
// RUN: fuse-run %s --entry rows --arg rand:4x5 --arg rand:5 --arg rand:4x5 --print | FileCheck %s --check-prefix=ROWSOK
// ROWSOK: result #0: float32 array of shape (4, 5)
func.func @rows(%m: tensor<?x?xf32>, %v: tensor<?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %m, %c0 : tensor<?x?xf32>
  %b = fuse.broadcast %v dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %m, %b, %w : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %c: f32, %d: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.mulf %s, %d : f32
    fuse.yield %t : f32
  }
  return %y : tensor<?x?xf32>
}

// An iota sized by a scalar argument, zipped with a tensor: the scalar must
// equal the tensor's length and cannot be negative.
// RUN: not fuse-run %s --entry ramp --arg rand:8 --arg scalar:9 2>&1 | FileCheck %s --check-prefix=RAMP
// RAMP: fuse-run: ramp: size mismatch: in1 is 9 but in0 dimension 0 is 8;
// RUN: not fuse-run %s --entry ramp --arg rand:8 --arg scalar:-3 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: fuse-run: ramp: invalid size: in1 is -3, but it sizes a tensor and cannot be negative
// RUN: fuse-run %s --entry ramp --arg rand:3 --arg scalar:3 --print | FileCheck %s --check-prefix=RAMPOK
// RAMPOK: result #0: float32 array of shape (3,)
func.func @ramp(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %i = fuse.iota %n : tensor<?xf32>
  %y = fuse.map %x, %i : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %y : tensor<?xf32>
}

// A dynamic argument zipped with a static one takes its size.
// RUN: not fuse-run %s --entry fixed --arg rand:5 --arg rand:4 2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: fuse-run: fixed: size mismatch: in0 dimension 0 is 5 but the pipeline's type says 4
func.func @fixed(%x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %y2 = fuse.map %x, %y : tensor<?xf32>, tensor<4xf32> -> tensor<4xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %a, %b : f32
    fuse.yield %s : f32
  }
  return %y2 : tensor<4xf32>
}

// Two inputs of a filter, then a map of the kept values with a third
// tensor: the filter's inputs must match; the kept count is known only
// after the filter, so the map's operand is not checked up front.
// RUN: not fuse-run %s --entry pick --arg rand:6 --arg rand:7 2>&1 | FileCheck %s --check-prefix=PICK
// PICK: fuse-run: pick: size mismatch: in1 dimension 0 is 7 but in0 dimension 0 is 6;
func.func @pick(%x: tensor<?xf32>, %k: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %r:2 = fuse.filter %x, %k : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>, tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.cmpf ogt, %b, %z : f32
    fuse.yield %p : i1
  }
  return %r#0 : tensor<?xf32>
}

// A kept value zipped with an argument: the argument's length must equal
// the filter's count, known only while running. Not checked up front, so
// fuse-run and fuse-compile warn at the filter; the CPU entry checks it
// after the filter (fuse-cpu-count-checks), fused and unfused, and a
// mismatch is fuse-run's error with both sizes, whichever is larger.
// With matching sizes the pipeline runs as written.
// RUN: fuse-run %s --entry keptzip --arg rand:4 --arg rand:4 --print 2>&1 | FileCheck %s --check-prefixes=KEPT,KEPTOK
// RUN: fuse-compile %s --emit=header -o %t/keptzip.h 2>&1 | FileCheck %s --check-prefix=KEPT
// KEPT: size-checks.mlir:[[@LINE+12]]:8: warning: 'keptzip': in1 dimension 0 must equal the number of elements this filter keeps (they are combined); that number is known only while the pipeline runs, so it is checked then, not before the call: another size fails the call with a size mismatch after the steps before it have run
// KEPTOK: result #0: float32 array of shape (4,)
// RUN: not fuse-run %s --entry keptzip --arg rand:4 --arg rand:3 2>&1 | FileCheck %s --check-prefix=KEPTSHORT
// RUN: not fuse-run %s --entry keptzip --arg rand:4 --arg rand:3 --no-fusion 2>&1 | FileCheck %s --check-prefix=KEPTSHORT
// KEPTSHORT: fuse-run: keptzip: size mismatch: in1 dimension 0 is 3 but the filter keeps 4 elements; the pipeline combines them, so they must be equal
// KEPTSHORT-NOT: result #0
// RUN: not fuse-run %s --entry keptzip --arg rand:4 --arg rand:100000000 2>&1 | FileCheck %s --check-prefix=KEPTLONG
// KEPTLONG: fuse-run: keptzip: size mismatch: in1 dimension 0 is 100000000 but the filter keeps 4 elements;
// RUN: not fuse-run %s --entry keptzip --arg rand:0 --arg rand:1 2>&1 | FileCheck %s --check-prefix=KEPTNONE
// KEPTNONE: fuse-run: keptzip: size mismatch: in1 dimension 0 is 1 but the filter keeps 0 elements;
func.func @keptzip(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant -2.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %m = fuse.map %k, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}

// A prefix zipped with an argument: likewise, its count is in memory
// (clamped to the source's size before the check: 40 takes 6).
// RUN: fuse-run %s --entry prefixzip --arg rand:6 --arg scalar:4 --arg rand:4 2>&1 | FileCheck %s --check-prefix=PREFIX
// RUN: fuse-compile %s --emit=header -o %t/prefixzip.h 2>&1 | FileCheck %s --check-prefix=PREFIX
// PREFIX: size-checks.mlir:[[@LINE+7]]:8: warning: 'prefixzip': in2 dimension 0 must equal the number of elements this prefix takes (they are combined); that number is known only while the pipeline runs, so it is checked then, not before the call: another size fails the call with a size mismatch after the steps before it have run
// RUN: not fuse-run %s --entry prefixzip --arg rand:6 --arg scalar:4 --arg rand:5 2>&1 | FileCheck %s --check-prefix=PREFIXBAD
// RUN: not fuse-run %s --entry prefixzip --arg rand:6 --arg scalar:4 --arg rand:5 --no-fusion 2>&1 | FileCheck %s --check-prefix=PREFIXBAD
// PREFIXBAD: fuse-run: prefixzip: size mismatch: in2 dimension 0 is 5 but the prefix takes 4 elements; the pipeline combines them, so they must be equal
// RUN: not fuse-run %s --entry prefixzip --arg rand:6 --arg scalar:40 --arg rand:40 2>&1 | FileCheck %s --check-prefix=PREFIXCLAMP
// PREFIXCLAMP: fuse-run: prefixzip: size mismatch: in2 dimension 0 is 40 but the prefix takes 6 elements;
func.func @prefixzip(%x: tensor<?xf32>, %n: tensor<i64>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %m = fuse.map %p, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}

// A sort's values move with its keys: their lengths must match (the
// values' length once went unchecked, and the sort read past them).
// RUN: not fuse-run %s --entry pairs --arg rand:5 --arg rand:7 2>&1 | FileCheck %s --check-prefix=PAIRS
// RUN: not fuse-run %s --entry pairs --no-fusion --arg rand:5 --arg rand:7 2>&1 | FileCheck %s --check-prefix=PAIRS
// PAIRS: fuse-run: pairs: size mismatch: in1 dimension 0 is 7 but in0 dimension 0 is 5;
func.func @pairs(%k: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xf32> {
  %sk, %sv = fuse.sort ascending %k, %v : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>, tensor<?xf32>
  return %sv : tensor<?xf32>
}

// Two filters' kept values zipped: the two counts must be equal, and both
// exist only once the filters ran. fuse-run and fuse-compile warn at the
// second filter; the CPU entry checks after it, the GPU entry once its
// host code has read both counts (GPU-DAG above). Both filters here keep
// every element, so the counts are the inputs' sizes.
// RUN: fuse-run %s --entry keptpair --arg rand:5 --arg rand:5 --print 2>&1 | FileCheck %s --check-prefixes=PAIRWARN,PAIROK
// PAIRWARN: size-checks.mlir:[[@LINE+15]]:8: warning: 'keptpair': the number of elements this filter keeps must equal the number the filter at {{.*}}size-checks.mlir:[[@LINE+10]]:8 keeps (they are combined); both are known only while the pipeline runs, so they are checked then: different numbers fail the call with a size mismatch after the steps before it have run
// PAIROK: result #0: float32 array of shape (5,)
// RUN: not fuse-run %s --entry keptpair --arg rand:5 --arg rand:7 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not fuse-run %s --entry keptpair --arg rand:5 --arg rand:7 --no-fusion 2>&1 | FileCheck %s --check-prefix=PAIR
// PAIR: fuse-run: keptpair: size mismatch: the filter at {{.*}}size-checks.mlir:[[@LINE+6]]:8 keeps 5 elements but the filter at {{.*}}size-checks.mlir:[[@LINE+11]]:8 keeps 7; the pipeline combines them, so they must be equal
// PAIR-NOT: result #0
// RUN: not fuse-run %s --entry keptpair --arg rand:1000003 --arg rand:0 2>&1 | FileCheck %s --check-prefix=PAIR0
// PAIR0: fuse-run: keptpair: size mismatch: the filter at {{.*}} keeps 1000003 elements but the filter at {{.*}} keeps 0;
func.func @keptpair(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant -2.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %j = fuse.filter %y : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %m = fuse.map %k, %j : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}

// A dead op's sizes: the map of %x and %y computes nothing a result needs,
// so the fusing pipelines remove it, and its check with it (docs/dialect.md,
// "Verification and canonical forms"), on the CPU as the GPU entries do;
// the unfused reference (--no-fusion) keeps every op, so it checks them.
// RUN: fuse-run %s --entry dead --arg rand:5 --arg rand:7 --print | FileCheck %s --check-prefix=DEADOK
// DEADOK: result #0: float32 array of shape (5,)
// RUN: not fuse-run %s --entry dead --arg rand:5 --arg rand:7 --no-fusion 2>&1 | FileCheck %s --check-prefix=DEADREF
// DEADREF: fuse-run: dead: size mismatch: in1 dimension 0 is 7 but in0 dimension 0 is 5;
func.func @dead(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %unused = fuse.map %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  %r = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %s = arith.mulf %a, %a : f32
    fuse.yield %s : f32
  }
  return %r : tensor<?xf32>
}
