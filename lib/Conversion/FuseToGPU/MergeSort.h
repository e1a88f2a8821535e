//===- MergeSort.h - comparator sorts on the GPU ------------*- C++ -*-===//
//
// A fuse.sort with a comparator region cannot go through the runtime's
// radix sort (which orders keys by their bits), so it runs as a stable
// merge sort of generated kernels:
//  * `tile`: each block sorts a tile of `tile()` keys: every thread sorts
//    its `items` consecutive keys in registers (adjacent compare-exchanges
//    that swap only strictly ordered pairs, so equal keys keep their
//    order), then the block merges runs of items, 2 items, ... in shared
//    memory, carrying each key's position in the tile; it writes the keys
//    and the values gathered from those positions;
//  * `merge`: one pass over the whole array merges runs of `w` into runs
//    of 2w (w = tile, 2 tile, ...), `mergeItems` consecutive outputs a
//    thread.
// Every merge finds a thread's first output by a binary search along its
// merge path (how many of the first outputs come from the left run), then
// merges sequentially, the left run's key first unless the right run's is
// strictly before it: stable, and each output is read from a valid input
// position whatever the comparator does.
//
// The plan below is read by the kernel builder (MergeSortKernels.cpp) and
// the host launch (HostSort.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_MERGESORT_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_MERGESORT_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Support/LLVM.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace fuse {
namespace gpugen {

struct MergeSortPlan {
  SortOp op;
  Type keyType;
  /// Null without values.
  Type valueType;
  /// The kernels' names.
  std::string tileKernel, mergeKernel;
  int64_t blockThreads = 256;
  /// Keys a thread sorts in registers; the tile is blockThreads * items.
  int64_t items = 4;
  /// Outputs a thread of the merge pass writes.
  int64_t mergeItems = 8;

  int64_t tile() const { return blockThreads * items; }
  bool hasValues() const { return static_cast<bool>(valueType); }
};

/// The plan of comparator sort `op` (the `index`-th sort of entry `entry`),
/// or a diagnostic where its types cannot be sorted on the GPU.
FailureOr<MergeSortPlan> planMergeSort(SortOp op, StringRef entry,
                                       unsigned index);

/// The sorts of entry `fn` with a comparator region, in order (the index
/// planMergeSort takes).
SmallVector<SortOp> comparatorSorts(func::FuncOp fn);

/// Adds the plan's two kernels to `m`.
void buildMergeSortKernels(gpu::GPUModuleOp m, const MergeSortPlan &plan);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_MERGESORT_H
