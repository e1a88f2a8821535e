// Tensor arguments of every element type reach the GPU lowering without a
// crash: index tensors are 8-byte elements (an unused one made the
// overlap checks' byte sizes assert), other element types are rejected
// with a diagnostic (complex crashed the same way). The CPU path runs both.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not fuse-compile %s --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: error: 'func.func' op GPU code generation: unsupported element type 'complex<f32>' of tensor argument #1
// FULL-NOT: Stack dump

// CHECK-LABEL: func.func @index_arg
func.func @index_arg(%x: tensor<?xf32>, %unused: tensor<?xindex>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %m : tensor<?xf32>
}

// -----

// expected-error @+1 {{GPU code generation: unsupported element type 'complex<f32>' of tensor argument #1}}
func.func @complex_arg(%x: tensor<?xf32>, %unused: tensor<?xcomplex<f32>>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %m : tensor<?xf32>
}
