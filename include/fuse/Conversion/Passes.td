//===- Passes.td - fuse conversion passes ------------------*- tablegen -*-===//
#ifndef FUSE_CONVERSION_PASSES_TD
#define FUSE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFuseToLoopsPass : Pass<"convert-fuse-to-loops"> {
  let summary = "Lower fuse ops to scf loops over tensors (the CPU path)";
  let description = [{
    Rewrites every fuse op into `scf.for` loop nests that read elements with
    `tensor.extract` and build results with `tensor.insert` (fuse.filter
    also uses `scf.if` and `tensor.extract_slice`). The result is ready for
    one-shot bufferization and the standard lowering to LLVM. This is the
    reference semantics of the dialect: the CPU backend and the oracle the
    tests compare against.

    Before:
    ```mlir
    %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%a: f32):
      %m = arith.mulf %a, %a : f32
      fuse.yield %m : f32
    }
    ```
    After:
    ```mlir
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %y = scf.for %i = %c0 to %n step %c1 iter_args(%t = %e) -> (tensor<?xf32>) {
      %a = tensor.extract %x[%i] : tensor<?xf32>
      %m = arith.mulf %a, %a : f32
      %t2 = tensor.insert %m into %t[%i] : tensor<?xf32>
      scf.yield %t2 : tensor<?xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // FUSE_CONVERSION_PASSES_TD
