//===- Passes.h - fuse conversion passes ------------------------*- C++ -*-===//
#ifndef FUSE_CONVERSION_PASSES_H
#define FUSE_CONVERSION_PASSES_H

#include "fuse/Conversion/FuseToGPU/Defaults.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace fuse {

#define GEN_PASS_DECL
#include "fuse/Conversion/Passes.h.inc"

/// Adds the patterns that lower each fuse op to scf loops over tensors.
void populateFuseToLoopsPatterns(mlir::RewritePatternSet &patterns);

/// Adds the pattern that lowers each fuse.group to one fused loop nest
/// (GroupToLoops.cpp). populateFuseToLoopsPatterns includes it; a driver
/// that visits nested ops first should apply it alone, before the others.
void populateFuseGroupToLoopsPatterns(mlir::RewritePatternSet &patterns);

/// Adds the pattern that lowers fuse.sort to a merge sort over tensors
/// (SortToLoops.cpp). populateFuseToLoopsPatterns includes it.
void populateSortToLoopsPatterns(mlir::RewritePatternSet &patterns);

/// Adds the patterns that lower fuse.shard_rank and fuse.all_gather to
/// calls of the sharded run's hooks (ShardToCalls.cpp).
/// populateFuseToLoopsPatterns includes them.
void populateShardToCallsPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "fuse/Conversion/Passes.h.inc"

} // namespace fuse

#endif // FUSE_CONVERSION_PASSES_H
