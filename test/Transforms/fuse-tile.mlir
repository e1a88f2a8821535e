// RUN: fuse-opt %s --split-input-file --fuse-tile | FileCheck %s
// RUN: fuse-opt %s --split-input-file --fuse-tile="block-threads=128 items-per-thread=8 vector-width=2 grid=7 index-bitwidth=64" | FileCheck %s --check-prefix=OVR
// RUN: not fuse-opt %s --split-input-file --fuse-tile="index-bitwidth=48" 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: fuse-tile: index-bitwidth must be 32 or 64, not 48

// Dynamic f32 reduce: 16-byte vectors of 4, 64 bytes in flight per thread
// (16 items), persistent grid 132 SMs * (2048 / 256) blocks, 64-bit indices.
// CHECK-LABEL: func @dyn
// CHECK: fuse.tiling = {block_threads = 256 : i64, grid = 1056 : i64, index_bitwidth = 64 : i64, items_per_thread = 16 : i64, vector_width = 4 : i64}
// OVR-LABEL: func @dyn
// OVR: fuse.tiling = {block_threads = 128 : i64, grid = 7 : i64, index_bitwidth = 64 : i64, items_per_thread = 8 : i64, vector_width = 2 : i64}
func.func @dyn(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.group "reduce" (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %r = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// Static 4096 f32: one block of 256 threads * 16 items covers it; all
// offsets stay far below 2^31, so 32-bit indices.
// CHECK-LABEL: func @small
// CHECK: fuse.tiling = {block_threads = 256 : i64, grid = 1 : i64, index_bitwidth = 32 : i64, items_per_thread = 16 : i64, vector_width = 4 : i64}
func.func @small(%x: tensor<4096xf32>) -> tensor<f32> {
  %s = fuse.group "reduce" (%x) : (tensor<4096xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4096xf32>):
    %r = fuse.reduce add %a : tensor<4096xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// Static but 2^29 f32 (2 GiB of bytes): offsets reach 2^31, so 64-bit.
// f64 dot: 2 elements per 16-byte vector, 16 bytes per element over two
// inputs: 4 items.
// CHECK-LABEL: func @big
// CHECK: fuse.tiling = {block_threads = 256 : i64, grid = 1056 : i64, index_bitwidth = 64 : i64, items_per_thread = 4 : i64, vector_width = 2 : i64}
func.func @big(%x: tensor<536870912xf64>, %y: tensor<536870912xf64>) -> tensor<f64> {
  %s = fuse.group "reduce" (%x, %y) : (tensor<536870912xf64>, tensor<536870912xf64>) -> tensor<f64> {
  ^bb0(%a: tensor<536870912xf64>, %b: tensor<536870912xf64>):
    %p = fuse.map %a, %b : tensor<536870912xf64>, tensor<536870912xf64> -> tensor<536870912xf64> {
    ^bb0(%u: f64, %v: f64):
      %m = arith.mulf %u, %v : f64
      fuse.yield %m : f64
    }
    %r = fuse.reduce add %p : tensor<536870912xf64> -> tensor<f64>
    fuse.yield %r : tensor<f64>
  }
  return %s : tensor<f64>
}

// -----

// Row-wise with static rows of 4096 f32: one block per row, 4096 / 4 = 1024
// threads, 16 KiB of shared memory per row: min(2048/1024, 232448/16384) = 2
// blocks per SM, grid capped at the 64 rows.
// CHECK-LABEL: func @rows
// CHECK: fuse.tiling = {block_threads = 1024 : i64, grid = 64 : i64, index_bitwidth = 32 : i64, items_per_thread = 4 : i64, vector_width = 4 : i64}
func.func @rows(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %s = fuse.group "row_reduce" (%x) : (tensor<64x4096xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64x4096xf32>):
    %r = fuse.reduce max %a dims [1] : tensor<64x4096xf32> -> tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %s : tensor<64xf32>
}

// -----

// Elementwise, dynamic: one 16-byte vector per thread and as many blocks as
// that takes, sized on the host (grid 0).
// CHECK-LABEL: func @ew_dyn
// CHECK: fuse.tiling = {block_threads = 256 : i64, grid = 0 : i64, index_bitwidth = 64 : i64, items_per_thread = 4 : i64, vector_width = 4 : i64}
// OVR-LABEL: func @ew_dyn
// OVR: fuse.tiling = {block_threads = 128 : i64, grid = 7 : i64, index_bitwidth = 64 : i64, items_per_thread = 8 : i64, vector_width = 2 : i64}
func.func @ew_dyn(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = fuse.group "elementwise" (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%u: f32):
      %v = arith.negf %u : f32
      fuse.yield %v : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %s : tensor<?xf32>
}

// -----

// Elementwise, static 10^6 f32: one vector per thread, ceil(10^6 / (256 *
// 4)) = 977 blocks.
// CHECK-LABEL: func @ew_static
// CHECK: fuse.tiling = {block_threads = 256 : i64, grid = 977 : i64, index_bitwidth = 32 : i64, items_per_thread = 4 : i64, vector_width = 4 : i64}
func.func @ew_static(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %s = fuse.group "elementwise" (%x) : (tensor<1000000xf32>) -> tensor<1000000xf32> {
  ^bb0(%a: tensor<1000000xf32>):
    %m = fuse.map %a : tensor<1000000xf32> -> tensor<1000000xf32> {
    ^bb0(%u: f32):
      %v = arith.negf %u : f32
      fuse.yield %v : f32
    }
    fuse.yield %m : tensor<1000000xf32>
  }
  return %s : tensor<1000000xf32>
}
