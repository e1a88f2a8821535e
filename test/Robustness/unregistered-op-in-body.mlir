// An unregistered op in a fuse body (or beside fuse ops,
// Inputs/unregistered-op-outside.mlir), allowed by
// --allow-unregistered-dialect: every fuse pass leaves it alone (the
// lowerings copy it into their loops like any scalar op) and the full
// pipelines reject it with a diagnostic, never a crash (RELIABILITY.md rows
// 3 and 4). Found by fuse-fuzz's author: `isa<FuseDialect>(op->getDialect())`
// asserted `isa<> used on a null pointer` (the dialect of an unregistered
// op is null) in fuse-fusion, fuse-explain, convert-fuse-to-loops (fused
// and unfused), the element emitter and convert-fuse-to-gpu.
// RUN: not fuse-opt --allow-unregistered-dialect %s --fuse-to-cpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not fuse-opt --allow-unregistered-dialect %s --pass-pipeline="builtin.module(fuse-to-cpu{fusion=false})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: fuse-opt --allow-unregistered-dialect %s --convert-fuse-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: fuse-opt --allow-unregistered-dialect %s --fuse-fusion --convert-fuse-to-loops | FileCheck %s --check-prefix=LOOPS
// RUN: fuse-opt --allow-unregistered-dialect %s --fuse-fusion | FileCheck %s --check-prefix=FUSED
// RUN: fuse-opt --allow-unregistered-dialect %s --fuse-fusion --fuse-tile --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCRASH
// RUN: fuse-opt --allow-unregistered-dialect %s --fuse-fusion --convert-fuse-to-gpu -o /dev/null
// RUN: fuse-opt --allow-unregistered-dialect %S/Inputs/unregistered-op-outside.mlir --fuse-fusion --fuse-tile --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCRASH
// RUN: fuse-opt --allow-unregistered-dialect %S/Inputs/unregistered-op-outside.mlir --fuse-fusion --convert-fuse-to-loops | FileCheck %s --check-prefix=OUTSIDE
// RUN: fuse-opt --allow-unregistered-dialect %S/Inputs/unregistered-op-outside.mlir --convert-fuse-to-loops | FileCheck %s --check-prefix=OUTSIDE
// RUN: not fuse-opt --allow-unregistered-dialect %S/Inputs/unregistered-op-outside.mlir --fuse-to-cpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR-OUTSIDE
// RUN: not fuse-opt --allow-unregistered-dialect %S/Inputs/unregistered-op-outside.mlir --fuse-fusion --convert-fuse-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR-GPU

// ERR: error: ops with unknown memory side effects are not supported
// ERR-NOT: Assertion

// LOOPS-LABEL: func.func @f
// LOOPS: scf.for
// LOOPS: tensor.extract
// LOOPS-NEXT: "test.unknown"
// LOOPS-NOT: fuse.

// FUSED: fuse.group elementwise
// FUSED: "test.unknown"

// NOCRASH-NOT: Assertion
// NOCRASH-NOT: error

// OUTSIDE: scf.for
// OUTSIDE: "test.opaque"
// OUTSIDE-NOT: fuse.

// ERR-OUTSIDE: error: op was not bufferized
// ERR-GPU: error: 'test.opaque' op GPU code generation: unsupported op

func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %b = "test.unknown"(%a) : (f32) -> f32
    fuse.yield %b : f32
  }
  return %m : tensor<?xf32>
}
