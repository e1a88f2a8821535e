//===- Passes.h - fuse fusion and tiling passes -----------------*- C++ -*-===//
#ifndef FUSE_DIALECT_FUSE_TRANSFORMS_PASSES_H
#define FUSE_DIALECT_FUSE_TRANSFORMS_PASSES_H

#include "fuse/Dialect/Fuse/IR/FuseDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace fuse {

#define GEN_PASS_DECL
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"

/// Adds the fast-math flags `flags` ("arcp,afn", "fast"; MLIR's spelling)
/// to every op under `root` that takes them (fuse-fastmath). Unknown flag
/// names: failure, with the message in `error`.
mlir::LogicalResult addFastMathFlags(mlir::Operation *root,
                                     llvm::StringRef flags,
                                     std::string &error);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_TRANSFORMS_PASSES_H
