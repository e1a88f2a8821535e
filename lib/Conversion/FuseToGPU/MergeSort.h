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
//  * `partition` + `merge`: one pass over the whole array merges runs of `w`
//    into runs of 2w (w = tile, 2 tile, ...). Each block of the merge
//    kernel writes `mergeTile()` consecutive outputs; the partition kernel
//    first finds, for every block, how many of the outputs before its first
//    come from the left run (a group of lanes a block, a ballot of their
//    tests a step; the host picks the lanes from the number of blocks), or,
//    a pass of at most `selfSearchBlocks` blocks, each merge block finds
//    its own two bounds (a warp each, no partition launch), so
//    a block loads exactly its inputs, coalesced, into shared memory,
//    merges them there (`mergeItems` outputs a thread) and stores its
//    outputs coalesced.
//  * a `positions` sort has no values to read: the kernels write each
//    key's input position, as i64 in the result (CarryMode::WidePositions);
//  * values wider than 4 bytes are not moved by every pass: the tile kernel
//    writes each key's source position (i32), the merge passes move those,
//    and the last pass gathers the values from the input by position
//    (CarryMode). Each pass then moves 8 bytes an element instead of 12 or
//    16, for one gather at the end. Arrays of 2^31 or more elements carry
//    the values (the positions would not fit), chosen on the host.
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

/// What the merge passes move beside the keys (a kernel parameter, i64).
enum class CarryMode : int64_t {
  /// The values, read and written at every pass.
  Values = 0,
  /// Each key's position in the input (i32).
  Positions = 1,
  /// Positions read, the values at those positions of the input written:
  /// the last pass of a sort that carries positions.
  GatherValues = 2,
  /// Positions written as i64 (a `positions` sort's result): the tile
  /// kernel's own, or a merge pass's i32 positions widened (its last pass).
  WidePositions = 3,
};

struct MergeSortPlan {
  SortOp op;
  Type keyType;
  /// Null without values; i64 for a `positions` sort.
  Type valueType;
  /// A `positions` sort: no values operand, the kernels make the i64
  /// positions (WidePositions where GatherValues or Values would read one).
  bool positions = false;
  /// The kernels' names.
  std::string tileKernel, partitionKernel, mergeKernel;
  int64_t blockThreads = 256;
  /// Keys a thread sorts in registers; the tile is blockThreads * items.
  int64_t items = 4;
  /// Outputs a thread of the merge pass writes.
  int64_t mergeItems = 8;
  /// Lanes of the partition kernel that search a merge block's start
  /// together: the host takes the most, 32 down to 4 (powers of two),
  /// whose searches of a pass fill at most this many threads (the search is
  /// latency-bound; with many searches, more lanes are more loads).
  int64_t searchThreads = 0;
  /// Passes of up to this many merge blocks skip the partition kernel: each
  /// merge block searches its own start and end, a warp each (0: never).
  int64_t selfSearchBlocks = 0;

  int64_t tile() const { return blockThreads * items; }
  /// Outputs a block of the merge pass writes. A power of two no larger
  /// than 2 tile(), so it divides every merged run (2w) and a block's
  /// outputs lie in one pair of runs.
  int64_t mergeTile() const { return blockThreads * mergeItems; }
  /// Shared memory of a merge block: its inputs and outputs (keys), the
  /// outputs' sources (i32) and its two bounds (i64).
  int64_t mergeSharedBytes() const {
    int64_t keyBytes = (keyType.getIntOrFloatBitWidth() + 7) / 8;
    return mergeTile() * (2 * keyBytes + 4) + 2 * 8;
  }
  bool hasValues() const { return static_cast<bool>(valueType); }
  /// Whether the kernels can carry positions instead of the values (values
  /// wider than a position); they then take a CarryMode parameter.
  bool carriesPositions() const {
    return hasValues() && valueType.getIntOrFloatBitWidth() > 32;
  }
};

/// The plan of comparator sort `op` (the `index`-th sort of entry `entry`),
/// or a diagnostic where its types cannot be sorted on the GPU.
FailureOr<MergeSortPlan> planMergeSort(SortOp op, StringRef entry,
                                       unsigned index);

/// The sorts of entry `fn` with a comparator region, in order (the index
/// planMergeSort takes).
SmallVector<SortOp> comparatorSorts(func::FuncOp fn);

/// Adds the plan's three kernels to `m`.
void buildMergeSortKernels(gpu::GPUModuleOp m, const MergeSortPlan &plan);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_MERGESORT_H
