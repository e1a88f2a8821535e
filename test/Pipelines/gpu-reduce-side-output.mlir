// REQUIRES: cuda-toolkit
// A reduce group that also returns an elementwise value of its domain
// (fusion's multi-output case: y = x * x is returned and summed) is one
// kernel pass: the partial kernel stores y with 16-byte vector stores as it
// reduces, and the host aligns the vector path on the output pointer too.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST

// CHECK: .entry sq_and_sum_g0_partial(
// CHECK: ld.global.v4.{{b32|f32}}
// CHECK: st.global.v4.{{b32|f32}}
// CHECK: shfl.sync.bfly
// CHECK: .entry sq_and_sum_g0_finish(
// CHECK-NOT: .entry sq_and_sum_g1
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The vector path is taken only when the input and y's buffer are both
// 16-byte aligned (two pointer checks before the launches).
// HOST-LABEL: func.func @sq_and_sum(
// HOST-COUNT-2: llvm.ptrtoint
// HOST: call @fuse_launch

func.func @sq_and_sum(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %y : tensor<?xf32> -> tensor<f32>
  return %y, %s : tensor<?xf32>, tensor<f32>
}
