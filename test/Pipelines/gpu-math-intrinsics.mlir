// REQUIRES: cuda-toolkit
// Math ops without a libdevice call on the GPU path are lowered to LLVM
// intrinsics (convert-math-to-llvm after convert-gpu-to-nvvm): trunc,
// ctlz, cttz, ctpop and absi at every width. Before, the PTX emission
// failed with "missing LLVMTranslationDialectInterface registration for
// dialect for op: math.trunc" (the CPU path runs them).
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx

// CHECK-LABEL: .entry trunc32_g0
// CHECK: cvt.rzi.f32.f32
// CHECK-LABEL: .entry trunc64_g0
// CHECK: cvt.rzi.f64.f64
// CHECK-LABEL: .entry bits32_g0
// CHECK-DAG: clz.b32
// CHECK-DAG: popc.b32
// CHECK-LABEL: .entry bits64_g0
// CHECK-DAG: clz.b64
// CHECK-DAG: popc.b64
// CHECK-LABEL: .entry absi16_g0
// CHECK: abs.s16
func.func @trunc32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = math.trunc %a : f32
    fuse.yield %t : f32
  }
  return %y : tensor<?xf32>
}
func.func @trunc64(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = fuse.map %x : tensor<?xf64> -> tensor<?xf64> {
  ^bb0(%a: f64):
    %t = math.trunc %a : f64
    fuse.yield %t : f64
  }
  return %y : tensor<?xf64>
}
func.func @bits32(%x: tensor<?xi32>) -> tensor<?xi32> {
  %y = fuse.map %x : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32):
    %l = math.ctlz %a : i32
    %t = math.cttz %a : i32
    %p = math.ctpop %a : i32
    %s = arith.addi %l, %t : i32
    %r = arith.addi %s, %p : i32
    fuse.yield %r : i32
  }
  return %y : tensor<?xi32>
}
func.func @bits64(%x: tensor<?xi64>) -> tensor<?xi64> {
  %y = fuse.map %x : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %l = math.ctlz %a : i64
    %p = math.ctpop %a : i64
    %r = arith.addi %l, %p : i64
    fuse.yield %r : i64
  }
  return %y : tensor<?xi64>
}
func.func @absi16(%x: tensor<?xi16>) -> tensor<?xi16> {
  %y = fuse.map %x : tensor<?xi16> -> tensor<?xi16> {
  ^bb0(%a: i16):
    %r = math.absi %a : i16
    fuse.yield %r : i16
  }
  return %y : tensor<?xi16>
}
