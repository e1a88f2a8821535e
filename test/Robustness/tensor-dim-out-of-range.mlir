// A constant tensor.dim index past the tensor's rank (found by fuse-fuzz in
// the CI run of 2026-11-30: a mutation of examples/variance.mlir turned the
// index 0 into 1). convert-fuse-to-gpu indexed its list of dimensions with
// it and asserted (`idx < size()`); the CPU pipeline folded it away
// silently. Both pipelines, fused and unfused, now reject it with a
// diagnostic at the op.
// RUN: not fuse-opt %s --fuse-to-cpu -o /dev/null 2>&1 | FileCheck %s
// RUN: not fuse-opt %s --pass-pipeline="builtin.module(fuse-to-cpu{fusion=false})" -o /dev/null 2>&1 | FileCheck %s
// RUN: not fuse-opt %s --fuse-to-ptx -o /dev/null 2>&1 | FileCheck %s
// RUN: not fuse-compile %s --emit=obj -o %t.o 2>&1 | FileCheck %s
// CHECK: tensor-dim-out-of-range.mlir:[[@LINE+6]]:{{[0-9]+}}: error: 'tensor.dim' op index 1 is out of range for a tensor of rank 1
// CHECK-NOT: Assertion
// CHECK-NOT: PLEASE submit a bug report

func.func @variance(%x: tensor<?xf32>) -> tensor<f32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.uitofp %ni : i64 to f32
  %sum = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %sumb = fuse.broadcast %sum dims [0] (%n) : tensor<f32> -> tensor<?xf32>
  %dev = fuse.map %x, %sumb : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %s: f32):
    %mean = arith.divf %s, %nf : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    fuse.yield %d2 : f32
  }
  %ss = fuse.reduce add %dev : tensor<?xf32> -> tensor<f32>
  %var = fuse.map %ss : tensor<f32> -> tensor<f32> {
  ^bb0(%a: f32):
    %v = arith.divf %a, %nf : f32
    fuse.yield %v : f32
  }
  return %var : tensor<f32>
}
