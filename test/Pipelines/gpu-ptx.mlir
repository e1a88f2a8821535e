// REQUIRES: cuda-toolkit
// PTX of the fused WORKLOADS patterns: 16-byte vector loads, butterfly
// shuffles in reductions, the kernels of each group, and no local memory
// (spills/stack) in ptxas's report.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-compile %s --emit=all -o %t.aot
// RUN: nm %t.aot.o | FileCheck %s --check-prefix=NM
// RUN: cc -fsyntax-only -Wall -Werror -I %fuse_src_root/runtime/include -x c %t.aot.h
// RUN: c++ -fsyntax-only -Wall -Werror -I %fuse_src_root/runtime/include -x c++ %t.aot.h
// RUN: FileCheck %s --check-prefix=HDR < %t.aot.h

// CHECK-DAG: .entry sumsq_g0_partial(
// CHECK-DAG: .entry sumsq_g0_finish(
// CHECK-DAG: .entry chain_g0_ew(
// CHECK-DAG: ld.global.v4.{{b32|f32}}
// CHECK-DAG: st.global.v4.{{b32|f32}}
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: bar.sync
// CHECK-NOT: .entry sumsq_g1

// PTXAS: Compiling entry function
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// NM-DAG: T chain
// NM-DAG: T sumsq
// NM-DAG: U fuse_launch
// NM-DAG: U fuse_module_load

// HDR: fuse_status_t sumsq(const float *in0, int64_t in0_d0, float *out0, fuse_stream_t stream);
// HDR: fuse_status_t chain(const float *in0, int64_t in0_d0, float *out0, fuse_stream_t stream);

func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %p = arith.mulf %e, %e : f32
      fuse.yield %p : f32
    }
    %r = fuse.reduce add %m : tensor<?xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %c = arith.constant 1.5 : f32
    %z = arith.constant 0.0 : f32
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %p = arith.mulf %e, %c : f32
      %r = arith.maximumf %p, %z : f32
      %s = arith.addf %r, %e : f32
      fuse.yield %s : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}
