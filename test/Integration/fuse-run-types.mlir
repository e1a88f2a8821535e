// fuse-run on every supported element type, scalar and rank-0 arguments,
// static shapes, several results and empty inputs; the values are checked
// against hand-computed ones. Also --print elision, --repeat, --dump-llvm.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/i32.npy '<i4' 4 1,2,3,-10
// RUN: fuse-run %s --entry sum_i32 --arg %t/i32.npy --print | FileCheck %s --check-prefix=I32
// I32: result #0: int32 array of shape ()
// I32-NEXT: -4
// RUN: fuse-run %s --entry sum_i32 --arg rand:0 --print | FileCheck %s --check-prefix=EMPTY
// EMPTY: result #0: int32 array of shape ()
// EMPTY-NEXT: {{^}}0{{$}}
func.func @sum_i32(%x: tensor<?xi32>) -> tensor<i32> {
  %s = fuse.reduce add %x : tensor<?xi32> -> tensor<i32>
  return %s : tensor<i32>
}

// RUN: %python %S/Inputs/make_npy.py %t/f64.npy '<f8' 2 0.5,-2 --version 2
// RUN: fuse-run %s --entry scale_f64 --arg %t/f64.npy --arg scalar:3 --print --save-inputs --out %t/scale | FileCheck %s --check-prefix=F64
// F64: result #0: float64 array of shape (2,)
// F64-NEXT: [1.5, -6]
// RUN: fuse-run %s --entry scale_f64 --arg %t/scale/result0.npy --arg scalar:-0.5 --print | FileCheck %s --check-prefix=REREAD
// REREAD: [-0.75, 3]
func.func @scale_f64(%x: tensor<?xf64>, %s: f64) -> tensor<?xf64> {
  %y = fuse.map %x : tensor<?xf64> -> tensor<?xf64> {
  ^bb0(%a: f64):
    %p = arith.mulf %a, %s : f64
    fuse.yield %p : f64
  }
  return %y : tensor<?xf64>
}

// RUN: %python %S/Inputs/make_npy.py %t/f16.npy '<f2' 2 1.5,-0.25
// RUN: fuse-run %s --entry neg_f16 --arg %t/f16.npy --print | FileCheck %s --check-prefix=F16
// F16: result #0: float16 array of shape (2,)
// F16-NEXT: [-1.5, 0.25]
func.func @neg_f16(%x: tensor<2xf16>) -> tensor<2xf16> {
  %y = fuse.map %x : tensor<2xf16> -> tensor<2xf16> {
  ^bb0(%a: f16):
    %n = arith.negf %a : f16
    fuse.yield %n : f16
  }
  return %y : tensor<2xf16>
}

// bf16 .npy files hold the 2-byte void type "<V2" (what NumPy saves
// ml_dtypes.bfloat16 arrays as): 1.5 is 0x3FC0, -0.25 0xBE80.
// RUN: fuse-run %s --entry neg_bf16 --arg rand:3 --print | FileCheck %s --check-prefix=BF16
// BF16: result #0: bfloat16 array of shape (3,)
// RUN: %python %S/Inputs/make_npy.py %t/bf16.npy '<V2' 2 16320,48768
// RUN: fuse-run %s --entry neg_bf16 --arg %t/bf16.npy --print --out %t/bf | FileCheck %s --check-prefix=BF16NPY
// BF16NPY: result #0: bfloat16 array of shape (2,)
// BF16NPY-NEXT: [-1.5, 0.25]
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); print(d[10:30], d[-4:].hex())" %t/bf/result0.npy | FileCheck %s --check-prefix=BF16OUT
// BF16OUT: {'descr': '<V2'
// BF16OUT-SAME: c0bf803e
func.func @neg_bf16(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %y = fuse.map %x : tensor<?xbf16> -> tensor<?xbf16> {
  ^bb0(%a: bf16):
    %n = arith.negf %a : bf16
    fuse.yield %n : bf16
  }
  return %y : tensor<?xbf16>
}

// RUN: %python %S/Inputs/make_npy.py %t/b.npy '|b1' 3 0,1,0
// RUN: fuse-run %s --entry any_not_i1 --arg %t/b.npy --print | FileCheck %s --check-prefix=I1
// I1: result #0: bool array of shape ()
// I1-NEXT: True
// I1-NEXT: result #1: bool array of shape (3,)
// I1-NEXT: [True, False, True]
func.func @any_not_i1(%x: tensor<?xi1>) -> (tensor<i1>, tensor<?xi1>) {
  %true = arith.constant true
  %any = fuse.reduce or %x : tensor<?xi1> -> tensor<i1>
  %not = fuse.map %x : tensor<?xi1> -> tensor<?xi1> {
  ^bb0(%a: i1):
    %n = arith.xori %a, %true : i1
    fuse.yield %n : i1
  }
  return %any, %not : tensor<i1>, tensor<?xi1>
}

// RUN: %python %S/Inputs/make_npy.py %t/i8.npy '|i1' 3 -- -5,7,3
// RUN: %python %S/Inputs/make_npy.py %t/i16.npy '<i2' 2 300,-200
// RUN: fuse-run %s --entry max_i8_min_i16 --arg %t/i8.npy --arg %t/i16.npy --print | FileCheck %s --check-prefix=SMALLINT
// SMALLINT: result #0: int8 array of shape ()
// SMALLINT-NEXT: 7
// SMALLINT-NEXT: result #1: int16 array of shape ()
// SMALLINT-NEXT: -200
func.func @max_i8_min_i16(%a: tensor<?xi8>, %b: tensor<?xi16>) -> (tensor<i8>, tensor<i16>) {
  %m = fuse.reduce max %a : tensor<?xi8> -> tensor<i8>
  %n = fuse.reduce min %b : tensor<?xi16> -> tensor<i16>
  return %m, %n : tensor<i8>, tensor<i16>
}

// RUN: %python %S/Inputs/make_npy.py %t/r0.npy '<f4' '' 2.5
// RUN: fuse-run %s --entry inc_rank0 --arg %t/r0.npy --print | FileCheck %s --check-prefix=RANK0
// RANK0: result #0: float32 array of shape ()
// RANK0-NEXT: 3.5
// RUN: fuse-run %s --entry inc_rank0 --arg rand:scalar --print | FileCheck %s --check-prefix=RANK0R
// RANK0R: result #0: float32 array of shape ()
func.func @inc_rank0(%x: tensor<f32>) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %y = fuse.map %x : tensor<f32> -> tensor<f32> {
  ^bb0(%a: f32):
    %p = arith.addf %a, %one : f32
    fuse.yield %p : f32
  }
  return %y : tensor<f32>
}

// RUN: fuse-run %s --entry iota_i64 --arg scalar:4 --print --out %t/iota | FileCheck %s --check-prefix=IOTA
// IOTA: result #0: int64 array of shape (4,)
// IOTA-NEXT: [0, 1, 2, 3]
func.func @iota_i64(%n: index) -> tensor<?xi64> {
  %i = fuse.iota %n : tensor<?xi64>
  return %i : tensor<?xi64>
}

// The chain example on hand-computed values: relu(1.5x+0.25)*0.5+x.
// RUN: %python %S/Inputs/make_npy.py %t/chain.npy '<f4' 4 1,-1,2,0.5
// RUN: fuse-run %fuse_src_root/examples/chain.mlir --arg %t/chain.npy --print | FileCheck %s --check-prefix=CHAIN
// CHAIN: result #0: float32 array of shape (4,)
// CHAIN-NEXT: [1.875, -1, 3.625, 1]

// Long arrays are elided as numpy does; rows too.
// RUN: fuse-run %fuse_src_root/examples/copy.mlir --arg rand:2000 --print | FileCheck %s --check-prefix=ELIDE
// ELIDE: result #0: float32 array of shape (2000,)
// ELIDE-NEXT: {{^\[[^,]+, [^,]+, [^,]+, \.\.\., [^,]+, [^,]+, [^,]+\]$}}
// RUN: fuse-run %fuse_src_root/examples/softmax_rows.mlir --arg rand:100x20 --print | FileCheck %s --check-prefix=ROWS
// ROWS: result #0: float32 array of shape (100, 20)
// ROWS-NEXT: {{^\[\[[^,]+, [^,]+, [^,]+, \.\.\., [^,]+, [^,]+, [^,]+\],$}}
// ROWS-NEXT: {{^}} [{{.*}}],
// ROWS-NEXT: {{^}} [{{.*}}],
// ROWS-NEXT: {{^}} ...,
// ROWS-NEXT: {{^}} [{{.*}}],

// RUN: fuse-run %fuse_src_root/examples/sumsq.mlir --arg rand:1000 --repeat 3 | FileCheck %s --check-prefix=TIME
// TIME: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms over 3 runs

// RUN: fuse-run %fuse_src_root/examples/sumsq.mlir --dump-llvm | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.func @sumsq(
// LLVM-NOT: fuse.

// RUN: fuse-run --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --arg=<SPEC>
// HELP-DAG: --dump-llvm
// HELP-DAG: --entry=<NAME>
// HELP-DAG: --no-fusion
// HELP-DAG: --out=<DIR>
// HELP-DAG: --print
// HELP-DAG: --repeat=<N>
// HELP-DAG: --save-inputs
// HELP-DAG: --seed

// The same seed gives the same inputs; another seed, others.
// RUN: fuse-run %fuse_src_root/examples/copy.mlir --seed 7 --arg rand:100 --save-inputs --out %t/s7a
// RUN: fuse-run %fuse_src_root/examples/copy.mlir --seed 7 --arg rand:100 --save-inputs --out %t/s7b
// RUN: fuse-run %fuse_src_root/examples/copy.mlir --seed 8 --arg rand:100 --save-inputs --out %t/s8
// RUN: diff %t/s7a/arg0.npy %t/s7b/arg0.npy
// RUN: not diff %t/s7a/arg0.npy %t/s8/arg0.npy

// The module can come from stdin.
// RUN: fuse-run - --arg %t/chain.npy --print < %fuse_src_root/examples/chain.mlir | FileCheck %s --check-prefix=CHAIN

// Results that alias an input, each other or a constant: copied out, each
// buffer freed once (an input's or a global's never).
// RUN: %python %S/Inputs/make_npy.py %t/al.npy '<f4' 3 1,-2,0.25
// RUN: fuse-run %s --entry aliases --arg %t/al.npy --print --repeat 2 | FileCheck %s --check-prefix=ALIAS
// ALIAS: result #0: float32 array of shape (3,)
// ALIAS-NEXT: [1, -2, 0.25]
// ALIAS-NEXT: result #1: float32 array of shape (3,)
// ALIAS-NEXT: [2, -4, 0.5]
// ALIAS-NEXT: result #2: int32 array of shape (3,)
// ALIAS-NEXT: [4, 5, 6]
// ALIAS-NEXT: result #3: float32 array of shape (3,)
// ALIAS-NEXT: [2, -4, 0.5]
// ALIAS-NEXT: time: median
func.func @aliases(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<3xi32>, tensor<?xf32>) {
  %c = arith.constant dense<[4, 5, 6]> : tensor<3xi32>
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.addf %a, %a : f32
    fuse.yield %p : f32
  }
  return %x, %y, %c, %y : tensor<?xf32>, tensor<?xf32>, tensor<3xi32>, tensor<?xf32>
}
