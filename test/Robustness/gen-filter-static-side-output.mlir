// Found by scripts/gen-pipelines.py (seeds 138, 201, 245, 335): a fused
// "filter" group that also yields its statically shaped prologue map is
// lowered by convert-fuse-to-loops with a dynamically shaped result, and
// verify-each rejects the function:
//   error: type of return operand 0 ('tensor<?xi64>') doesn't match
//   function result type ('tensor<8xi64>')
// Fixed: prologue outputs of a filter group keep their own (static) type.
// RUN: fuse-opt %s --fuse-to-cpu -o /dev/null
// RUN: fuse-opt %s --fuse-fusion --convert-fuse-to-loops | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: return {{.*}} : tensor<8xi64>, tensor<?xi64>

func.func @f(%x: tensor<8xi64>) -> (tensor<8xi64>, tensor<?xi64>) {
  %m = fuse.map %x : tensor<8xi64> -> tensor<8xi64> {
  ^bb0(%a: i64):
    fuse.yield %a : i64
  }
  %f = fuse.filter %m : tensor<8xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %c = arith.constant 0 : i64
    %p = arith.cmpi sgt, %a, %c : i64
    fuse.yield %p : i1
  }
  return %m, %f : tensor<8xi64>, tensor<?xi64>
}
