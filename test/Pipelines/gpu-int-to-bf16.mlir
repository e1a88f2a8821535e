// REQUIRES: cuda-toolkit
// Integers wider than f32's significand convert to bf16 with one rounding
// on the GPU, as on the CPU: NVPTX's sitofp to bfloat goes through an f32
// and rounds twice (16842753 -> 16777216 instead of 16908288). Found by
// the GPU dtype checks (test/Python/dtype_check.py).
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fuse-opt %s --fuse-exact-int-to-bf16 | FileCheck %s --check-prefix=PASS

// CHECK-LABEL: .entry s64_g0
// CHECK: clz.b64
// CHECK-LABEL: .entry u32_g0
// CHECK: clz.b32
// CHECK-LABEL: .entry s16_g0
// CHECK-NOT: clz
// CHECK: ret;

// PASS-LABEL: func.func @s64
// PASS: math.ctlz
// PASS: arith.uitofp {{.*}} : i64 to f32
// PASS: arith.truncf {{.*}} : f32 to bf16
// PASS-LABEL: func.func @u32
// PASS: math.ctlz
// PASS-NOT: arith.uitofp {{.*}} to bf16
// PASS-LABEL: func.func @s16
// PASS-NOT: math.ctlz
// PASS: arith.sitofp {{.*}} : i16 to bf16
func.func @s64(%x: tensor<?xi64>) -> tensor<?xbf16> {
  %y = fuse.map %x : tensor<?xi64> -> tensor<?xbf16> {
  ^bb0(%a: i64):
    %s = arith.sitofp %a : i64 to bf16
    fuse.yield %s : bf16
  }
  return %y : tensor<?xbf16>
}
func.func @u32(%x: tensor<?xi32>) -> tensor<?xbf16> {
  %y = fuse.map %x : tensor<?xi32> -> tensor<?xbf16> {
  ^bb0(%a: i32):
    %s = arith.uitofp %a : i32 to bf16
    fuse.yield %s : bf16
  }
  return %y : tensor<?xbf16>
}
func.func @s16(%x: tensor<?xi16>) -> tensor<?xbf16> {
  %y = fuse.map %x : tensor<?xi16> -> tensor<?xbf16> {
  ^bb0(%a: i16):
    %s = arith.sitofp %a : i16 to bf16
    fuse.yield %s : bf16
  }
  return %y : tensor<?xbf16>
}
