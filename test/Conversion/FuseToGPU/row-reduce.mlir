// RUN: fuse-opt %s --convert-fuse-to-gpu -split-input-file -verify-diagnostics | FileCheck %s
// row_reduce groups and reduce groups with custom combiner regions.

// softmax over rows: a kernel per path; cols <= 4096 picks the rows loop
// with the row in registers (vector loads when the host's `vec` flag says
// rows are 16-byte aligned; 32-bit column offsets from the thread id read
// per phase), xor butterflies for each stage through one shared buffer
// (reused by both stages), vector stores; longer rows take the
// block-stride loops of the _long kernel. Each kernel holds its path's
// code only. An occupancy hint (6 blocks of 256). The host picks the
// kernel by cols, launches one block per row and nothing for rows = 0.
// CHECK-LABEL: module attributes
// CHECK-SAME: #fuse.entry<name = "softmax", groups = 1, inputs = [tensor<?x?xf32>], outputs = [#fuse.entry_output<type = tensor<?x?xf32>, sizes = [#fuse.size<source = arg_dim>, #fuse.size<source = arg_dim, dim = 1>], count = none>], workspace = available>
// CHECK: func.func @softmax(
// CHECK: arith.cmpi sgt
// CHECK: arith.remsi %{{.*}}, %c4_i64
// CHECK: %[[HOSTFITS:.*]] = arith.cmpi sle, %{{.*}}, %c4096_i64 : i64
// CHECK: %[[K:.*]] = arith.select %[[HOSTFITS]], %{{.*}}, %{{.*}} : !llvm.ptr
// CHECK: call @fuse_launch(%[[K]],
// CHECK: gpu.func @softmax_g0_rows(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: index, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: !llvm.ptr<1>) workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-SAME: nvvm.minctasm = 6 : i32
// CHECK-NOT: scf.for
// CHECK: scf.while
// CHECK: "mov.u32 $0, %tid.x;"
// CHECK: arith.muli %{{.*}}, %c4_i32 overflow<nsw, nuw> : i32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: math.exp
// CHECK: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: arith.divf
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: "mov.u32 $0, %nctaid.x;"
// CHECK-NOT: scf.for
// CHECK: gpu.return
// CHECK: gpu.func @softmax_g0_rows_long(
// CHECK-NOT: "mov.u32 $0, %tid.x;"
// CHECK: scf.while
// CHECK: scf.for
// CHECK: gpu.return
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %y = fuse.group row_reduce (%x, %cols) : (tensor<?x?xf32>, index) -> tensor<?x?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %n: index):
    %m = fuse.reduce max %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %mb = fuse.broadcast %m dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
    %e = fuse.map %a, %mb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%p: f32, %q: f32):
      %d = arith.subf %p, %q : f32
      %ex = math.exp %d : f32
      fuse.yield %ex : f32
    }
    %s = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    %sb = fuse.broadcast %s dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
    %r = fuse.map %e, %sb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%p: f32, %q: f32):
      %o = arith.divf %p, %q : f32
      fuse.yield %o : f32
    }
    fuse.yield %r : tensor<?x?xf32>
  }
  return %y : tensor<?x?xf32>
}

// -----

// A per-row result (rank 1): stored once per row by thread 0.
// CHECK-LABEL: module attributes
// CHECK-SAME: #fuse.entry<name = "rowsum", groups = 1, inputs = [tensor<?x?xf32>], outputs = [#fuse.entry_output<type = tensor<?xf32>, sizes = [#fuse.size<source = arg_dim>], count = none>], workspace = available>
// CHECK: gpu.func @rowsum_g0_rows(
// CHECK: gpu.shuffle  xor
// CHECK: arith.cmpi eq
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @rowsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %y = fuse.group row_reduce (%x) : (tensor<?x?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>):
    %s = fuse.reduce add %a dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}

// -----

// A custom combiner: ordered partial/finish kernels with shuffle-down
// trees and a "has value" flag partial (the i32 pointer after the f32 one).
// CHECK-LABEL: module attributes
// CHECK: gpu.func @custom_g0_opartial(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<32xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// The partial kernel's tiles: coalesced copies into the warp's region of
// the dynamic shared memory, a warp barrier, the lanes' blocked folds.
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.bar.warp.sync
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: gpu.shuffle  down
// CHECK: gpu.func @custom_g0_ofinish(
// CHECK: gpu.shuffle  down
func.func @custom(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %z = arith.constant 0.0 : f32
    %r = fuse.reduce %a init(%z : f32) : tensor<?xf32> -> tensor<f32> {
    ^bb0(%acc: f32, %e: f32):
      %p = arith.subf %acc, %e : f32
      fuse.yield %p : f32
    }
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// A custom-combiner row reduction takes the line kernel
// (gpu-reduce-lines.mlir), with a prologue map evaluated at each element
// it folds.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @custom_rows_g0_linereduce(
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @custom_rows(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %y = fuse.group row_reduce (%x) : (tensor<?x?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?x?xf32>):
    %z = arith.constant 0.0 : f32
    %m = fuse.map %a : tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%v: f32):
      %w = arith.mulf %v, %v : f32
      fuse.yield %w : f32
    }
    %s = fuse.reduce %m init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
    ^bb0(%acc: f32, %e: f32):
      %p = arith.addf %acc, %e : f32
      fuse.yield %p : f32
    }
    fuse.yield %s : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}

// -----

// A custom-combiner row reduction returned beside an elementwise value of
// its input: the line kernel stores that value at each element it folds
// (a split line's first element, then four elements an iteration, their
// stores after all four are read and folded, then the rest), and the
// reduction at the line's index or, for a split line, its chunk's partial.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @rows_and_squares_g0_linereduce(
// CHECK: scf.for
// CHECK: scf.if
// CHECK: } else {
// CHECK: %[[FIRST:.*]] = arith.mulf
// CHECK: llvm.store %[[FIRST]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: scf.for {{.*}} step %c4_i64
// CHECK: %[[SQ:.*]] = arith.mulf
// CHECK: arith.subf %{{.*}}, %[[SQ]]
// CHECK: llvm.store %[[SQ]], %{{.*}} : f32, !llvm.ptr<1>
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: scf.if
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
func.func @rows_and_squares(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %y:2 = fuse.group row_reduce (%x) : (tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  ^bb0(%a: tensor<?x?xf32>):
    %z = arith.constant 0.0 : f32
    %m = fuse.map %a : tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%v: f32):
      %w = arith.mulf %v, %v : f32
      fuse.yield %w : f32
    }
    %s = fuse.reduce %m init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
    ^bb0(%acc: f32, %e: f32):
      %p = arith.subf %acc, %e : f32
      fuse.yield %p : f32
    }
    fuse.yield %s, %m : tensor<?xf32>, tensor<?x?xf32>
  }
  return %y#0, %y#1 : tensor<?xf32>, tensor<?x?xf32>
}
