// REQUIRES: cuda-toolkit
// `tensor.dim` of an outer tensor written inside a body ("divide by n" in a
// map, a filter predicate, a scan's prologue map, a map over row results):
// on the GPU the size is the kernel's dimension parameter (before: the
// element emitter looked for a scalar value of the tensor and failed with
// "no value for scalar block argument #0", an internal error; the CPU path
// ran these). Each kernel divides by / compares with a dimension. Also
// tensor.extract of a 0-d result inside a body (x - sum(x)): the kernel's
// preloaded 0-d operand. And tensor.dim inside a custom reduce combiner:
// convert-fuse-to-gpu moves such dims to the group body (hoistRegionDims)
// and the kernels read them as size parameters.
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: fuse-run %s --entry dim_in_body --arg rand:1000 --print > %t.cpu.txt
// RUN: fuse-run %s --entry dim_in_body --arg rand:1000 --print --no-fusion > %t.cpu-unfused.txt
// RUN: diff %t.cpu.txt %t.cpu-unfused.txt
// RUN: fuse-run %s --entry p1_extract_in_body --arg rand:1000 --print > %t.p1.txt
// RUN: fuse-run %s --entry p1_extract_in_body --arg rand:1000 --print --no-fusion > %t.p1-unfused.txt
// RUN: diff %t.p1.txt %t.p1-unfused.txt
// RUN: fuse-run %s --entry reduce_combiner_dim --arg rand:1000 --print > %t.c.txt
// RUN: fuse-run %s --entry reduce_combiner_dim --arg rand:1000 --print --no-fusion > %t.c-unfused.txt
// RUN: diff %t.c.txt %t.c-unfused.txt

// CHECK-DAG: .entry dim_in_body_g0_ew(
// CHECK-DAG: .entry filter_dim_in_pred_g0_filter(
// CHECK-DAG: .entry scan_prologue_dim_g0_scan(
// CHECK-DAG: .entry rowmean_dim_in_body_g0_rows(
// CHECK-DAG: .entry p1_extract_in_body_g1_ew(
// CHECK-DAG: .entry reduce_combiner_dim_g0_opartial(
// CHECK-DAG: div.rn.f32
func.func @dim_in_body(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %r = arith.divf %a, %nf : f32
    fuse.yield %r : f32
  }
  return %m : tensor<?xf32>
}

func.func @filter_dim_in_pred(%x: tensor<?xi64>) -> tensor<?xi64> {
  %f = fuse.filter %x : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xi64>
    %ni = arith.index_cast %n : index to i64
    %p = arith.cmpi slt, %a, %ni : i64
    fuse.yield %p : i1
  }
  return %f : tensor<?xi64>
}

func.func @scan_prologue_dim(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %r = arith.divf %a, %nf : f32
    fuse.yield %r : f32
  }
  %s = fuse.scan inclusive add %m : tensor<?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

func.func @rowmean_dim_in_body(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce add %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %m = fuse.map %s : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c1 = arith.constant 1 : index
    %n = tensor.dim %x, %c1 : tensor<?x?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %r = arith.divf %a, %nf : f32
    fuse.yield %r : f32
  }
  return %m : tensor<?xf32>
}

func.func @p1_extract_in_body(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %e = tensor.extract %s[] : tensor<f32>
    %r = arith.subf %a, %e : f32
    fuse.yield %r : f32
  }
  return %m : tensor<?xf32>
}

func.func @reduce_combiner_dim(%x: tensor<?xi64>) -> tensor<i64> {
  %z = arith.constant 0 : i64
  %s = fuse.reduce %x init(%z : i64) : tensor<?xi64> -> tensor<i64> {
  ^bb0(%acc: i64, %e: i64):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xi64>
    %ni = arith.index_cast %n : index to i64
    %p = arith.addi %acc, %e : i64
    %q = arith.maxsi %p, %ni : i64
    fuse.yield %q : i64
  }
  return %s : tensor<i64>
}
