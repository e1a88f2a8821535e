// An unregistered op in a fuse body (or beside fuse ops,
// Inputs/unregistered-op-outside.mlir) (allowed by --allow-unregistered-dialect)
// must give a diagnostic from the lowering, never a crash (RELIABILITY.md
// rows 3 and 4).
// XFAIL: *
// Known bug (found by fuse-fuzz's author while writing crash-reproducer.mlir):
// `isa<FuseDialect>(op->getDialect())` asserts `isa<> used on a null
// pointer` for unregistered ops: FuseToLoops.cpp:434 (convert-fuse-to-loops),
// Fusion.cpp:651 (fuse-fusion, op outside a body),
// and the same pattern in Fusion.cpp, Explain.cpp, GroupToLoops.cpp,
// ElementEmitter.cpp, FuseToGPU.cpp. Fix: isa_and_nonnull<FuseDialect>.
// Remove the XFAIL line once fixed.
// RUN: not fuse-opt --allow-unregistered-dialect %s --fuse-to-cpu -o /dev/null 2>&1 | FileCheck %s
// RUN: not fuse-opt --allow-unregistered-dialect %s --convert-fuse-to-loops -o /dev/null 2>&1 | FileCheck %s
// RUN: fuse-opt --allow-unregistered-dialect %s --fuse-fusion -o /dev/null
// RUN: fuse-opt --allow-unregistered-dialect %S/Inputs/unregistered-op-outside.mlir --fuse-fusion -o /dev/null

// CHECK: error:
// CHECK-NOT: Assertion

func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %b = "test.unknown"(%a) : (f32) -> f32
    fuse.yield %b : f32
  }
  return %m : tensor<?xf32>
}
