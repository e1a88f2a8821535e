// REQUIRES: cuda-toolkit
// Elementwise and full-reduction groups over rank-2 tensors run as flat
// kernels: every tensor of the group has the group's shape, so element
// (0, ..., 0, i) in row-major order is the flat element i. A group of 0-d
// tensors (a map of 0-d arguments, scalar0d) is a flat kernel of one
// element. The kernel
// bodies are the rank-1 ones (16-byte vector loads, no spills); the entry
// takes each dimension and launches over their product.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-compile %s --emit=header -o %t.h
// RUN: FileCheck %s --check-prefix=HDR < %t.h

// CHECK-DAG: .entry scale2d_g0_ew(
// CHECK-DAG: .entry sum2d_g0_partial(
// CHECK-DAG: .entry scalar0d_g0_ew(
// CHECK-DAG: ld.global.v4.{{b32|f32}}
// CHECK-DAG: st.global.v4.{{b32|f32}}
// PTXAS-COUNT-5: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// HDR: fuse_status_t scale2d(const float *in0, int64_t in0_d0, int64_t in0_d1, const float *in1, int64_t in1_d0, int64_t in1_d1, float *out0, fuse_stream_t stream);
// HDR: fuse_status_t sum2d(const float *in0, int64_t in0_d0, int64_t in0_d1, float *out0, fuse_stream_t stream);
// HDR: fuse_status_t double0d(const double *in0, int64_t in0_d0, double *out0, double *out1, double *out2, fuse_stream_t stream);

func.func @scale2d(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = fuse.map %x, %y : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    %c = arith.constant 2.0 : f32
    %r = arith.addf %m, %c : f32
    fuse.yield %r : f32
  }
  return %z : tensor<?x?xf32>
}

func.func @sum2d(%x: tensor<?x?xf32>) -> tensor<f32> {
  %s = fuse.reduce add %x dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// Reduced from a random program (gen-pipelines seed 99): a map of the
// broadcast product comes first in the program; fusion moves its group
// after the 0-d map, which joins the reduction's group.
// CHECK-DAG: .entry double0d_g0_partial(
// CHECK-DAG: .entry double0d_g1_ew(
func.func @double0d(%x: tensor<?xf64>) -> (tensor<f64>, tensor<f64>, tensor<?xf64>) {
  %p = fuse.reduce mul %x : tensor<?xf64> -> tensor<f64>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %b = fuse.broadcast %p dims [0] (%n) : tensor<f64> -> tensor<?xf64>
  %prod = fuse.map %b, %x : tensor<?xf64>, tensor<?xf64> -> tensor<?xf64> {
  ^bb0(%u: f64, %v: f64):
    %m = arith.mulf %v, %u : f64
    fuse.yield %m : f64
  }
  %d = fuse.map %p, %p : tensor<f64>, tensor<f64> -> tensor<f64> {
  ^bb0(%a: f64, %c: f64):
    %s = arith.addf %a, %c : f64
    fuse.yield %s : f64
  }
  return %d, %p, %prod : tensor<f64>, tensor<f64>, tensor<?xf64>
}

func.func @scalar0d(%s: tensor<f64>) -> tensor<f64> {
  %d = fuse.map %s, %s : tensor<f64>, tensor<f64> -> tensor<f64> {
  ^bb0(%a: f64, %c: f64):
    %r = arith.addf %a, %c : f64
    fuse.yield %r : f64
  }
  return %d : tensor<f64>
}
