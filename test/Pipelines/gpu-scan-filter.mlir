// REQUIRES: cuda-toolkit
// Single-pass scan and filter kernels: one kernel per group with a tile
// counter, relaxed atomic look-back status words, warp ballots, 16-byte vector
// loads/stores on full tiles; blocks loop over tiles (the host launches at
// most the resident blocks); the C header declares the filter's count
// pointers.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: not grep -E "st\.release|ld\.acquire" %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-compile %s --emit=all -o %t.aot
// RUN: cc -fsyntax-only -Wall -Werror -I %fuse_src_root/runtime/include -x c %t.aot.h
// RUN: FileCheck %s --check-prefix=HDR < %t.aot.h
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST

// CHECK-DAG: .entry scan_sq_g0_scan(
// CHECK-DAG: .entry scan_excl_max_g0_scan(
// CHECK-DAG: .entry scan_pair_g0_scan(
// CHECK-DAG: .entry select_pos_g0_filter(
// CHECK-DAG: .entry select_pair_g0_filter(
// CHECK-DAG: atom.global.add.u32
// Packed status words (value and flag in one 8-byte word): relaxed
// gpu-scope atomics, no release/acquire fences: also scan_pair's f64 and
// i32, published as three 32-bit pieces, each in its own word with a
// ready bit.
// CHECK-DAG: st.relaxed.gpu.global.b64
// CHECK-DAG: ld.relaxed.gpu.global.b64
// CHECK-DAG: vote.sync.ballot.b32
// CHECK-DAG: shfl.sync.up.b32
// CHECK-DAG: ld.global.v4.{{b32|f32}}
// CHECK-DAG: st.global.v4.{{b32|f32}}
// Staged filters, 512-thread scans and the look-back delays (below).
// CHECK-DAG: .minnctapersm 4
// CHECK-DAG: .maxntid 512, 1, 1
// CHECK-DAG: nanosleep.u32 {{.*}}1500;
// CHECK-DAG: nanosleep.u32 {{.*}}500;
// CHECK-NOT: .entry scan_sq_g1

// Filters stage tiles in shared memory (the default, gpu-scan-staged.mlir
// has both kinds): 4 blocks of 256 threads per SM at 64 registers. Scans
// run 512-thread x 32-item tiles in registers, one block per SM (128
// registers; measured faster than 1024 x 16 and 256 x 16, docs/performance.md).
// The look-back sleeps 1500 ns after publishing the tile aggregate and
// 500 ns between reads of a window that is not ready.
// PTXAS-LABEL: 'select_pair_g0_filter'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-LABEL: 'select_pos_g0_filter'
// PTXAS: {{[0-8]}} bytes stack frame, {{[0-8]}} bytes spill stores, {{[0-8]}} bytes spill loads
// PTXAS-LABEL: 'scan_excl_max_g0_scan'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers
// PTXAS-LABEL: 'scan_sq_g0_scan'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// HDR: fuse_status_t scan_sq(const float *in0, int64_t in0_d0, float *out0, fuse_stream_t stream);
// HDR: fuse_status_t scan_excl_max(const int32_t *in0, int64_t in0_d0, int32_t in1, int32_t *out0, fuse_stream_t stream);
// HDR: out0_count: host pointer
// HDR: fuse_status_t select_pos(const float *in0, int64_t in0_d0, float *out0, int64_t *out0_count, fuse_stream_t stream);
// HDR: fuse_status_t select_pair(const float *in0, int64_t in0_d0, const int32_t *in1, int64_t in1_d0, float *out0, int32_t *out1, int64_t *out0_count, int64_t *out1_count, fuse_stream_t stream);

// HOST-LABEL: func.func @select_pos(
// HOST: call @fuse_memset
// HOST: call @fuse_launch
// HOST: call @fuse_memcpy_dtoh
// HOST: call @fuse_stream_synchronize

func.func @scan_sq(%x: tensor<?xf32>) -> tensor<?xf32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %y = fuse.scan inclusive add %sq : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @scan_excl_max(%x: tensor<?xi32>, %init: i32) -> tensor<?xi32> {
  %y = fuse.scan exclusive max %x init(%init : i32) : tensor<?xi32> -> tensor<?xi32>
  return %y : tensor<?xi32>
}

func.func @scan_pair(%x: tensor<?xf64>, %i: tensor<?xi32>) -> (tensor<?xf64>, tensor<?xi32>) {
  %y:2 = fuse.scan inclusive (add, max) %x, %i : tensor<?xf64>, tensor<?xi32> -> tensor<?xf64>, tensor<?xi32>
  return %y#0, %y#1 : tensor<?xf64>, tensor<?xi32>
}

func.func @select_pos(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}

func.func @select_pair(%x: tensor<?xf32>, %i: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %zero = arith.constant 0.0 : f32
  %y:2 = fuse.filter %x, %i : tensor<?xf32>, tensor<?xi32> -> tensor<?xf32>, tensor<?xi32> {
  ^bb0(%a: f32, %b: i32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y#0, %y#1 : tensor<?xf32>, tensor<?xi32>
}
