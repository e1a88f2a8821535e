// REQUIRES: cuda-toolkit
// Function declarations with tensor types next to fuse entries: an unused
// private one is dropped by convert-fuse-to-gpu (before, fuse-compile
// --emit=obj failed in the LLVM translation: "missing
// LLVMTranslationDialectInterface registration ... func.func"); any other
// is reported at the declaration (fuse entries cannot call it).
// RUN: fuse-compile %s --emit=obj -o %t.o
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-NOT: func.func private @unused_ext
// CHECK: func.func @entry(
func.func private @unused_ext(tensor<?xf32>) -> tensor<?xf32>
func.func @entry(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %m : tensor<?xf32>
}
