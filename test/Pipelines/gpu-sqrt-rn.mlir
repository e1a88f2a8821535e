// REQUIRES: cuda-toolkit
// math.sqrt on the GPU is correctly rounded (sqrt.rn), as on the CPU:
// libdevice's __nv_sqrtf (convert-gpu-to-nvvm's choice) is sqrt.approx.f32
// unless __CUDA_PREC_SQRT is set. Found by the GPU value-edge checks
// (test/Python/gpu_check.py, docs/reliability.md F8).
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx

// CHECK-LABEL: .entry sqrt32_g0
// CHECK: sqrt.rn.f32
// CHECK-LABEL: .entry sqrt64_g0
// CHECK: sqrt.rn.f64
// CHECK-NOT: sqrt.approx
func.func @sqrt32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %s = math.sqrt %a : f32
    fuse.yield %s : f32
  }
  return %y : tensor<?xf32>
}
func.func @sqrt64(%x: tensor<?xf64>) -> tensor<?xf64> {
  %y = fuse.map %x : tensor<?xf64> -> tensor<?xf64> {
  ^bb0(%a: f64):
    %s = math.sqrt %a : f64
    fuse.yield %s : f64
  }
  return %y : tensor<?xf64>
}
