// RUN: fuse-opt %s --convert-fuse-to-gpu -split-input-file | FileCheck %s
// fuse-fusion's Welford tuple reduction (element tuples (1, x, 0), the
// combiner region exactly the Chan merge fuse-fusion builds) takes the
// grid-stride reduce kernels with shifted sums; another combiner (even
// under the attribute older versions of fuse trusted) or other element
// tuples take the ordered kernels.

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
  %v = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
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
      %9 = arith.addi %na, %nb : i64
      %10 = arith.sitofp %9 : i64 to f32
      %11 = arith.sitofp %na : i64 to f32
      %12 = arith.sitofp %nb : i64 to f32
      %c0_i64_2 = arith.constant 0 : i64
      %13 = arith.cmpi eq, %9, %c0_i64_2 : i64
      %cst_3 = arith.constant 1.000000e+00 : f32
      %14 = arith.select %13, %cst_3, %10 : f32
      %15 = arith.subf %mb, %ma : f32
      %16 = arith.divf %12, %14 : f32
      %17 = arith.mulf %15, %16 : f32
      %18 = arith.addf %ma, %17 : f32
      %cst_4 = arith.constant 0x7F800000 : f32
      %cst_5 = arith.constant 0xFF800000 : f32
      %19 = arith.cmpf one, %15, %cst_5 : f32
      %20 = arith.cmpf one, %15, %cst_4 : f32
      %21 = arith.andi %20, %19 : i1
      %22 = arith.subf %cst_3, %16 : f32
      %23 = arith.mulf %mb, %16 : f32
      %24 = arith.mulf %ma, %22 : f32
      %25 = arith.addf %24, %23 : f32
      %26 = arith.cmpf uno, %15, %15 : f32
      %27 = arith.ori %21, %26 : i1
      %28 = arith.select %27, %18, %25 : f32
      %29 = arith.mulf %15, %15 : f32
      %30 = arith.mulf %29, %11 : f32
      %31 = arith.mulf %30, %16 : f32
      %32 = arith.addf %qa, %qb : f32
      %33 = arith.addf %32, %31 : f32
      %34 = arith.cmpi eq, %na, %c0_i64_2 : i64
      %35 = arith.cmpi eq, %nb, %c0_i64_2 : i64
      %36 = arith.select %35, %ma, %28 : f32
      %37 = arith.select %34, %mb, %36 : f32
      %38 = arith.select %35, %qa, %33 : f32
      %39 = arith.select %34, %qb, %38 : f32
      fuse.yield %9, %37, %39 : i64, f32, f32
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

// Chan's merge with one constant changed (the safe count 2.0 instead of
// 1.0): not the merge fusion builds, so the ordered kernels.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @altered_g0_opartial(
// CHECK: gpu.func @altered_g0_ofinish(
func.func @altered(%x: tensor<?xf32>) -> tensor<f32> {
  %v = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
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
      %9 = arith.addi %na, %nb : i64
      %10 = arith.sitofp %9 : i64 to f32
      %11 = arith.sitofp %na : i64 to f32
      %12 = arith.sitofp %nb : i64 to f32
      %c0_i64_2 = arith.constant 0 : i64
      %13 = arith.cmpi eq, %9, %c0_i64_2 : i64
      %cst_3 = arith.constant 2.000000e+00 : f32
      %14 = arith.select %13, %cst_3, %10 : f32
      %15 = arith.subf %mb, %ma : f32
      %16 = arith.divf %12, %14 : f32
      %17 = arith.mulf %15, %16 : f32
      %18 = arith.addf %ma, %17 : f32
      %cst_4 = arith.constant 0x7F800000 : f32
      %cst_5 = arith.constant 0xFF800000 : f32
      %19 = arith.cmpf one, %15, %cst_5 : f32
      %20 = arith.cmpf one, %15, %cst_4 : f32
      %21 = arith.andi %20, %19 : i1
      %22 = arith.subf %cst_3, %16 : f32
      %23 = arith.mulf %mb, %16 : f32
      %24 = arith.mulf %ma, %22 : f32
      %25 = arith.addf %24, %23 : f32
      %26 = arith.cmpf uno, %15, %15 : f32
      %27 = arith.ori %21, %26 : i1
      %28 = arith.select %27, %18, %25 : f32
      %29 = arith.mulf %15, %15 : f32
      %30 = arith.mulf %29, %11 : f32
      %31 = arith.mulf %30, %16 : f32
      %32 = arith.addf %qa, %qb : f32
      %33 = arith.addf %32, %31 : f32
      %34 = arith.cmpi eq, %na, %c0_i64_2 : i64
      %35 = arith.cmpi eq, %nb, %c0_i64_2 : i64
      %36 = arith.select %35, %ma, %28 : f32
      %37 = arith.select %34, %mb, %36 : f32
      %38 = arith.select %35, %qa, %33 : f32
      %39 = arith.select %34, %qb, %38 : f32
      fuse.yield %9, %37, %39 : i64, f32, f32
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

// The element tuples (1, x, 0) with plain sums as the combiner: the region
// is not Chan's merge, so the ordered kernels run it as written.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @nomark_g0_opartial(
// CHECK: gpu.func @nomark_g0_ofinish(
func.func @nomark(%x: tensor<?xf32>) -> tensor<f32> {
  %v = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
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

// The element tuples are not (1, x, 0): the ordered kernels.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @twos_g0_opartial(
// CHECK: gpu.func @twos_g0_ofinish(
func.func @twos(%x: tensor<?xf32>) -> tensor<f32> {
  %v = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %c0 = arith.constant 0 : i64
    %f0 = arith.constant 0.0 : f32
    %t:2 = fuse.map %a : tensor<?xf32> -> tensor<?xi64>, tensor<?xf32> {
    ^bb0(%e: f32):
      %two = arith.constant 2 : i64
      %zero = arith.constant 0.0 : f32
      fuse.yield %two, %zero : i64, f32
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
