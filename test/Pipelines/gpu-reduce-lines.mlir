// REQUIRES: cuda-toolkit
// Lone partial reductions that the row kernels do not take (a reduced
// dimension other than the last of a rank-2 tensor, or a combiner region)
// compile for the GPU (were rejected: "a row_reduce group takes reductions
// over dimension 1 of rank-2 tensors only", "custom combiner regions are
// not supported in row_reduce groups yet"): a line-reduce kernel, one
// thread folding each line of the outer x len x inner view in order and
// writing the result at the line's flat index in the reduced shape. The
// host launches it whenever there are lines, also over an empty reduced
// dimension (every result is the init). Too few lines to fill the GPU
// (columns sums of few columns) are split: the host picks chunks of at
// least 64 elements until lines * chunks reaches the threads the target
// keeps resident (sm_90: 132 SMs x 2048 = 270336), the line-reduce
// kernel folds each chunk into partials and the line-combine kernel folds
// each line's partials in order from the init (built-in kinds: a warp a
// line, lanes over the chunks, then butterflies). Built-in kinds also get
// the tile kernel, which the host picks instead where inner <= 256 and
// an outer slice holds at least 16 x 256 elements: a block a run of rows,
// 256 / inner whole rows a step, 270336 / 256 = 1056 runs in all
// (test/Integration/GPU/extra/reduce_lines_tile.mlir).
// test/Integration/GPU/extra/reduce_lines.mlir compares GPU and CPU values
// (scripts/gpu). A full reduction of a rank-2 tensor through a combiner
// region takes the ordered reduce kernels, which read the flat index (was
// rejected: "custom-combiner reductions take rank-1 inputs only").
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --entry col_sums --arg rand:9x5 --print > %t.cpu.txt
// RUN: fuse-run %s --entry col_sums --arg rand:9x5 --print --no-fusion > %t.cpu-unfused.txt
// RUN: diff %t.cpu.txt %t.cpu-unfused.txt
// RUN: fuse-run %s --entry row_custom --arg rand:4x6 --print | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: .entry col_sums_g0_linereduce(
// CHECK: .maxntid 256, 1, 1
// CHECK-DAG: div.u64
// CHECK-DAG: add.rn.f32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry col_sums_g0_linecombine(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: shfl.sync.bfly
// CHECK-DAG: add.rn.f32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry col_sums_g0_linetile(
// CHECK: .minnctapersm 4
// CHECK-DAG: bar.sync
// CHECK-DAG: st.shared.b32
// CHECK-DAG: ld.shared.b32
// CHECK-LABEL: .entry row_custom_g0_linereduce(
// CHECK: abs.f32
// CHECK: setp.ge.f32
// CHECK: selp.f32

// HOST-LABEL: func.func @col_sums(
// HOST: arith.cmpi sgt
// HOST: arith.divsi %arg1, %c64_i64
// HOST: arith.ceildivsi %c270336_i64
// HOST: arith.cmpi sge, %{{.*}}, %c4096_i64
// HOST: arith.cmpi sle, %{{.*}}, %c256_i64
// HOST: arith.ceildivsi %c1056_i64
// HOST: arith.select %{{.*}} : !llvm.ptr
// HOST: arith.cmpi sgt
// HOST: call @fuse_malloc
// HOST: call @fuse_launch
// HOST: arith.muli %{{.*}}, %c32_i64
// HOST: call @fuse_launch
// HOST-LABEL: func.func @row_custom(

// CHECK-LABEL: .entry full_custom_g0_opartial(
// CHECK: setp.ge.f32
// CHECK-LABEL: .entry full_custom_g0_ofinish(
// RUN: fuse-run %s --entry full_custom --arg rand:4x6 --print | FileCheck %s --check-prefix=FULL
// A custom-combiner reduction that also returns the values it reduces
// (was rejected: "cannot also return elementwise results yet"): the
// ordered partial kernel stores them at each element it folds. (maxnumf:
// a region of one built-in kind's op, maximumf, would become that kind.)
// CHECK-LABEL: .entry side_custom_g0_opartial(
// CHECK: mul.rn.f32
// CHECK: st.global
// RUN: fuse-run %s --entry side_custom --arg rand:1000 --print > %t.side.txt
// RUN: fuse-run %s --entry side_custom --arg rand:1000 --print --no-fusion > %t.side-unfused.txt
// RUN: diff %t.side.txt %t.side-unfused.txt
// FULL: result #0: float32 array of shape ()
// FULL-NEXT: -0.94713247

// The combiner keeps the value of largest magnitude (the first of ties):
// per row of the 4x6 input (fuse-run's generator, seed 0).
// CPU: result #0: float32 array of shape (4,)
// CPU-NEXT: [-0.94713247, 0.90406138, 0.52975738, 0.85906816]

func.func @col_sums(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @row_custom(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %s = fuse.reduce %x init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%acc: f32, %v: f32):
    %a = math.absf %acc : f32
    %b = math.absf %v : f32
    %ge = arith.cmpf oge, %a, %b : f32
    %r = arith.select %ge, %acc, %v : f32
    fuse.yield %r : f32
  }
  return %s : tensor<?xf32>
}

func.func @full_custom(%x: tensor<?x?xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %s = fuse.reduce %x init(%z : f32) : tensor<?x?xf32> -> tensor<f32> {
  ^bb0(%acc: f32, %v: f32):
    %a = math.absf %acc : f32
    %b = math.absf %v : f32
    %ge = arith.cmpf oge, %a, %b : f32
    %r = arith.select %ge, %acc, %v : f32
    fuse.yield %r : f32
  }
  return %s : tensor<f32>
}

func.func @side_custom(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %z = arith.constant 0.0 : f32
  %r = fuse.reduce %sq init(%z : f32) : tensor<?xf32> -> tensor<f32> {
  ^bb0(%acc: f32, %e: f32):
    %p = arith.maxnumf %acc, %e : f32
    fuse.yield %p : f32
  }
  return %r, %sq : tensor<f32>, tensor<?xf32>
}
