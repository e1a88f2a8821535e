// REQUIRES: cuda-toolkit
// An argument returned as it is (beside computed results, twice, 0-d):
// every result of a GPU entry is written by a kernel into the caller's
// output, so convert-fuse-to-gpu copies each such result with a map (an
// elementwise group of its own; fuse's Python GPU trace makes the copy
// earlier, fused with the results of its shape). Run on a GPU against the
// CPU backend: test/Integration/GPU/extra/returned_argument.mlir.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=TWICE
// RUN: fuse-compile %s --emit=header -o - | FileCheck %s --check-prefix=HDR
// RUN: fuse-opt %s --fuse-fusion --fuse-bool-bytes | FileCheck %s --check-prefix=THRICE
// RUN: fuse-compile %s --emit=ptx -o %t.ptx

// Four elementwise kernels: the square, then a copy for each returned
// argument (%x twice: two outputs, two copies; 0-d %s: a one-element copy).
// CHECK-LABEL: func.func @returned_argument(
// CHECK-COUNT-4: call @fuse_launch(
// CHECK-NOT: call @fuse_launch(
// CHECK: return
// CHECK-DAG: gpu.func @returned_argument_g0_ew(
// CHECK-DAG: gpu.func @returned_argument_g1_ew(
// CHECK-DAG: gpu.func @returned_argument_g2_ew(
// CHECK-DAG: gpu.func @returned_argument_g3_{{.*}}(

// HDR: out0: device pointer to tensor<?xf32>, caller-allocated, in0_d0.
// HDR: out2: device pointer to tensor<f32>, caller-allocated, 1 element.
// HDR: out3: device pointer to tensor<?xf32>, caller-allocated, in0_d0.
// HDR: fuse_status_t returned_argument(const float *in0, int64_t in0_d0, const float *in1, float *out0, float *out1, float *out2, float *out3, fuse_stream_t stream);
func.func @returned_argument(%x: tensor<?xf32>, %s: tensor<f32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  return %x, %y, %s, %x : tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>
}

// A computed value returned twice (what the folds make of two maps, one a
// copy of the other): its group yields it a second time, so one kernel
// writes both outputs (a copy after the group moved the value twice more;
// this aborted in the entry's output description before that).
// TWICE-LABEL: func.func @computed_twice(
// TWICE-COUNT-1: call @fuse_launch(
// TWICE-NOT: call @fuse_launch(
// TWICE: return
// TWICE: gpu.func @computed_twice_g0_ew(%{{.+}}: !llvm.ptr<1>, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>)
// HDR: fuse_status_t computed_twice(const float *in0, int64_t in0_d0, float *out0, float *out1, fuse_stream_t stream);
func.func @computed_twice(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  return %y, %y : tensor<?xf32>, tensor<?xf32>
}

// Returned three times: each return after the first names another result
// of the one group (the rebuilt group's value, not the erased one's).
// THRICE-LABEL: func.func @computed_thrice(
// THRICE: %[[G:.+]]:3 = fuse.group elementwise
// THRICE: return %[[G]]#0, %[[G]]#1, %[[G]]#2
func.func @computed_thrice(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  return %y, %y, %y : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
