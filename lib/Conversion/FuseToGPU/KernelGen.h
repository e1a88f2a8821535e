//===- KernelGen.h - private helpers of convert-fuse-to-gpu -----*- C++ -*-===//
//
// Shared between the kernel generator (Kernels.cpp) and the host code
// generator (FuseToGPU.cpp). Not installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_KERNELGEN_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_KERNELGEN_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Support/LLVM.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace fuse {
namespace gpugen {

/// Tiling parameters of one group (pass options overridden by the group's
/// `fuse.tiling` dictionary).
struct Tiling {
  int64_t blockThreads = 256;
  int64_t unroll = 4;
  int64_t blocksPerSM = 8;
  int64_t smallReduce = 32768;
  int64_t vectorWidth = 0; // 0: 16 bytes' worth of the element type
  int64_t grid = 0;        // 0: from the SM count
};

/// What the host must do to run one group.
enum class GroupPlan {
  /// One kernel: params = common, n, nchunks, out ptrs.
  Elementwise,
  /// Kernel `partial` (common, n, nchunks, partial ptrs, out ptrs, i32
  /// single) and kernel `finish` (common, count, partial ptrs, out ptrs).
  Reduce,
  /// One kernel: common, rows, cols, out ptrs; one block per row.
  RowReduce,
};

struct GroupKernels {
  GroupPlan plan;
  std::string kernel;       // the (first) kernel's name
  std::string finishKernel; // Reduce only
  /// Vector width (elements) of the flat kernels; 1 means scalar only.
  int64_t vectorWidth = 1;
  /// Reduce: element type of each partial (one per full-reduction result).
  SmallVector<Type> partialTypes;
  Tiling tiling;
};

/// Builds the kernels of `group` (named with `prefix`) into `gpuModule`.
/// The kernel parameters start with the "common" parameters: for each group
/// operand in order, a tensor gives `!llvm.ptr<1>` then one i64 per
/// dimension, a scalar gives itself (index as i64). Emits a diagnostic and
/// fails on unsupported bodies.
FailureOr<GroupKernels> buildGroupKernels(gpu::GPUModuleOp gpuModule,
                                          GroupOp group, StringRef prefix,
                                          const Tiling &tiling);

/// The flat iteration domain of an elementwise/reduce group: every rank>=1
/// tensor of the body has this rank, and the kernel walks elements in
/// row-major order of the first one. Fails if shapes differ in rank or
/// broadcasts to rank > 1 are present.
bool isFlatGroup(GroupOp group);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_KERNELGEN_H
