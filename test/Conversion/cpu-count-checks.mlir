// fuse-cpu-count-checks (the first pass of fuse-to-cpu): a size the caller
// passes that the pipeline combines with a filter's kept count or a
// prefix's count is compared with the count right after the filter or
// prefix; on a mismatch the entry calls fuse_cpu_size_error with the
// message's printf format and both sizes, and returns empty results
// without running the rest (which would read past the argument).
// RUN: fuse-opt %s --fuse-cpu-count-checks --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: module
// CHECK-DAG: llvm.mlir.global internal constant @__fuse_size_error_0("keptzip: size mismatch: in1 dimension 0 is %lld but the filter keeps %lld elements; the pipeline combines them, so they must be equal")
// CHECK-DAG: func.func private @fuse_cpu_size_error(!llvm.ptr, i64, i64)
// CHECK-LABEL: func.func @keptzip
// CHECK: %[[K:.*]] = fuse.filter
// CHECK: %[[N:.*]] = tensor.dim %[[K]], %{{.*}}
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[S:.*]] = tensor.dim %arg1, %{{.*}}
// CHECK: %[[S64:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[S64]], %[[N64]] : i64
// CHECK: %[[R:.*]]:2 = scf.if %[[BAD]] -> (tensor<?xf32>, tensor<f32>) {
// CHECK:   %[[MSG:.*]] = llvm.mlir.addressof @__fuse_size_error_0
// CHECK:   func.call @fuse_cpu_size_error(%{{.*}}, %[[S64]], %[[N64]])
// CHECK:   %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK:   %[[Z:.*]] = tensor.empty() : tensor<f32>
// CHECK:   scf.yield %[[E]], %[[Z]]
// CHECK: } else {
// CHECK:   %[[M:.*]] = fuse.map %[[K]], %arg1
// CHECK:   %[[T:.*]] = fuse.reduce add %[[M]]
// CHECK:   scf.yield %[[M]], %[[T]]
// CHECK: }
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @keptzip(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %z = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %m = fuse.map %k, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  %t = fuse.reduce add %m : tensor<?xf32> -> tensor<f32>
  return %m, %t : tensor<?xf32>, tensor<f32>
}

// -----

// Two sizes tied to one prefix (an argument and an iota's `index` size):
// two checks, the second nested in the first's `else` region. No check
// where nothing combines a count with an argument (@plain).
// CHECK-LABEL: module
// CHECK-DAG: @__fuse_size_error_0("twice: size mismatch: in2 dimension 0 is %lld but the prefix takes %lld elements;
// CHECK-DAG: @__fuse_size_error_1("twice: size mismatch: in3 is %lld but the prefix takes %lld elements;
// CHECK-LABEL: func.func @twice
// CHECK: fuse.prefix
// CHECK: scf.if
// CHECK: call @fuse_cpu_size_error
// CHECK: } else {
// CHECK: scf.if
// CHECK: call @fuse_cpu_size_error
// CHECK: } else {
// CHECK: fuse.iota %arg3
// CHECK-LABEL: func.func @plain
// CHECK-NOT: scf.if
// CHECK: return
func.func @twice(%x: tensor<?xf32>, %n: tensor<i64>, %y: tensor<?xf32>, %s: index) -> tensor<?xf32> {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %i = fuse.iota %s : tensor<?xf32>
  %m = fuse.map %p, %y, %i : tensor<?xf32>, tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %u = arith.addf %a, %b : f32
    %v = arith.addf %u, %c : f32
    fuse.yield %v : f32
  }
  return %m : tensor<?xf32>
}

func.func @plain(%x: tensor<?xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %t = fuse.reduce add %k : tensor<?xf32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// The hook's name is taken by something else: an error, not a call of the
// wrong function.
// expected-error @below {{'fuse_cpu_size_error' is the CPU entries' size-error hook, declared as (!llvm.ptr, i64, i64) -> () and defined by the code that links them}}
func.func @fuse_cpu_size_error(%a: i32) -> i32 {
  return %a : i32
}

func.func @clash(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %m = fuse.map %k, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}
