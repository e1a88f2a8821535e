// RUN: fuse-opt %s --convert-fuse-to-gpu -split-input-file | FileCheck %s
// fuse-fusion's Welford tuple reduction (marked fuse.welford, element
// tuples (1, x, 0)) takes the grid-stride reduce kernels with shifted sums;
// without the marker, or with other element tuples, the ordered kernels.

// Shifted sums: the thread's shift and the grid's base x[0] are loaded
// behind n > 0; the main loop does sub, add and fma per element (16-byte
// vector loads) and counts elements; one division per thread converts to
// (count, mean - x[0], M2); Chan merges (xor butterflies) follow. The
// finish kernel adds x[0] back before the init and the epilogue.
// CHECK-LABEL: module attributes
// CHECK-NOT: _opartial
// CHECK: gpu.func @var_g0_partial(
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: arith.subf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: llvm.intr.fma
// CHECK: arith.divf
// CHECK: gpu.shuffle  xor
// CHECK: gpu.func @var_g0_finish(
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK-NOT: _opartial
func.func @var(%x: tensor<?xf32>) -> tensor<f32> {
  %v = fuse.group "reduce" (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %c0 = arith.constant 0 : i64
    %f0 = arith.constant 0.0 : f32
    %t:2 = fuse.map %a : tensor<?xf32> -> tensor<?xi64>, tensor<?xf32> {
    ^bb0(%e: f32):
      %one = arith.constant 1 : i64
      %zero = arith.constant 0.0 : f32
      fuse.yield %one, %zero : i64, f32
    }
    %w:3 = fuse.reduce %t#0, %a, %t#1 init(%c0, %f0, %f0 : i64, f32, f32) {fuse.welford} : tensor<?xi64>, tensor<?xf32>, tensor<?xf32> -> tensor<i64>, tensor<f32>, tensor<f32> {
    ^bb0(%na: i64, %ma: f32, %qa: f32, %nb: i64, %mb: f32, %qb: f32):
      %n = arith.addi %na, %nb : i64
      %nf = arith.sitofp %n : i64 to f32
      %naf = arith.sitofp %na : i64 to f32
      %nbf = arith.sitofp %nb : i64 to f32
      %z = arith.constant 0 : i64
      %empty = arith.cmpi eq, %n, %z : i64
      %one = arith.constant 1.0 : f32
      %safe = arith.select %empty, %one, %nf : f32
      %d = arith.subf %mb, %ma : f32
      %wb = arith.divf %nbf, %safe : f32
      %dw = arith.mulf %d, %wb : f32
      %mean = arith.addf %ma, %dw : f32
      %dd = arith.mulf %d, %d : f32
      %t1 = arith.mulf %dd, %naf : f32
      %t2 = arith.mulf %t1, %wb : f32
      %q1 = arith.addf %qa, %qb : f32
      %q = arith.addf %q1, %t2 : f32
      fuse.yield %n, %mean, %q : i64, f32, f32
    }
    %var = fuse.map %w#0, %w#2 : tensor<i64>, tensor<f32> -> tensor<f32> {
    ^bb0(%cnt: i64, %m2: f32):
      %cf = arith.sitofp %cnt : i64 to f32
      %r = arith.divf %m2, %cf : f32
      fuse.yield %r : f32
    }
    fuse.yield %var : tensor<f32>
  }
  return %v : tensor<f32>
}

// -----

// Without the marker: the ordered kernels.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @nomark_g0_opartial(
// CHECK: gpu.func @nomark_g0_ofinish(
func.func @nomark(%x: tensor<?xf32>) -> tensor<f32> {
  %v = fuse.group "reduce" (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %c0 = arith.constant 0 : i64
    %f0 = arith.constant 0.0 : f32
    %t:2 = fuse.map %a : tensor<?xf32> -> tensor<?xi64>, tensor<?xf32> {
    ^bb0(%e: f32):
      %one = arith.constant 1 : i64
      %zero = arith.constant 0.0 : f32
      fuse.yield %one, %zero : i64, f32
    }
    %w:3 = fuse.reduce %t#0, %a, %t#1 init(%c0, %f0, %f0 : i64, f32, f32) : tensor<?xi64>, tensor<?xf32>, tensor<?xf32> -> tensor<i64>, tensor<f32>, tensor<f32> {
    ^bb0(%na: i64, %ma: f32, %qa: f32, %nb: i64, %mb: f32, %qb: f32):
      %n = arith.addi %na, %nb : i64
      %m = arith.addf %ma, %mb : f32
      %q = arith.addf %qa, %qb : f32
      fuse.yield %n, %m, %q : i64, f32, f32
    }
    fuse.yield %w#2 : tensor<f32>
  }
  return %v : tensor<f32>
}

// -----

// Marked, but the element tuples are not (1, x, 0): the ordered kernels.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @twos_g0_opartial(
// CHECK: gpu.func @twos_g0_ofinish(
func.func @twos(%x: tensor<?xf32>) -> tensor<f32> {
  %v = fuse.group "reduce" (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %c0 = arith.constant 0 : i64
    %f0 = arith.constant 0.0 : f32
    %t:2 = fuse.map %a : tensor<?xf32> -> tensor<?xi64>, tensor<?xf32> {
    ^bb0(%e: f32):
      %two = arith.constant 2 : i64
      %zero = arith.constant 0.0 : f32
      fuse.yield %two, %zero : i64, f32
    }
    %w:3 = fuse.reduce %t#0, %a, %t#1 init(%c0, %f0, %f0 : i64, f32, f32) {fuse.welford} : tensor<?xi64>, tensor<?xf32>, tensor<?xf32> -> tensor<i64>, tensor<f32>, tensor<f32> {
    ^bb0(%na: i64, %ma: f32, %qa: f32, %nb: i64, %mb: f32, %qb: f32):
      %n = arith.addi %na, %nb : i64
      %m = arith.addf %ma, %mb : f32
      %q = arith.addf %qa, %qb : f32
      fuse.yield %n, %m, %q : i64, f32, f32
    }
    fuse.yield %w#2 : tensor<f32>
  }
  return %v : tensor<f32>
}
