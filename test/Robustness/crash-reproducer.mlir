// fuse-opt writes a pass-pipeline reproducer when a pass of a fuse pipeline
// fails (or crashes), with verify-each recorded on, and the reproducer
// replays the same failure (RELIABILITY.md row 5). The input is fine for
// fusion and convert-fuse-to-loops but holds an op bufferization cannot
// handle, so one-shot-bufferize fails cleanly.
// RUN: rm -f %t.repro.mlir
// RUN: not fuse-opt %s --fuse-to-cpu \
// RUN:   --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR
// RUN: FileCheck %s --input-file=%t.repro.mlir
// RUN: not fuse-opt %t.repro.mlir --run-reproducer -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPLAY

// ERR: error: op was not bufferized
// ERR: reproducer generated at

// CHECK: func.func @f
// CHECK: shape.shape_of
// CHECK: mlir_reproducer
// CHECK: pipeline: "builtin.module(
// CHECK-SAME: convert-fuse-to-loops
// CHECK-SAME: one-shot-bufferize
// CHECK: verify_each: true

// REPLAY: error: op was not bufferized

func.func @f(%x: tensor<?xf32>) -> tensor<1xindex> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  %s = shape.shape_of %m : tensor<?xf32> -> tensor<1xindex>
  return %s : tensor<1xindex>
}
