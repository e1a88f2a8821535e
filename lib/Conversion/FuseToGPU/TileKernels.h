//===- TileKernels.h - single-pass look-back tile kernels -------*- C++ -*-===//
//
// Internal to convert-fuse-to-gpu. The machinery shared by the scan
// (ScanKernels.cpp) and filter (FilterKernels.cpp) kernel builders: the
// tile layout, item loads and tile loop (TileMachinery.cpp) and the tile
// prefix by row scans, block scan, publication and decoupled look-back
// (TileLookBack.cpp).
//
// `scan` and `filter` groups become one kernel each: a single-pass prefix
// computation with decoupled look-back (Merrill & Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), written for
// determinism:
//
//  * Tiles of `block_threads * items` elements. Tile ids come from an
//    atomic counter (not blockIdx), so every tile with a smaller id is held
//    by a running block when a tile looks back. The host launches at most
//    as many blocks as fit on the GPU; each loops over tiles, claiming its
//    next tile once the current tile's prefix is known and loading it while
//    the current tile stores its results (runTiles).
//  * Warp-striped rows: warp w of the block owns 32 * items consecutive
//    elements as items / vw rows of 32 lanes x vw elements, so every 16-byte
//    vector load and store of a warp is one coalesced 512-byte row (the
//    inputs are loaded once, for both passes). Each row is scanned across
//    the lanes (shfl.up; for filters one ballot per column and popc), rows
//    are folded into the warp aggregate, and the block scans the warp
//    aggregates through shared memory. The tile aggregate is published
//    (flag 1), warp 0 looks back, then the inclusive prefix is published
//    (flag 2). One 8-byte status word per tile holds the flag and, for one
//    value of at most 32 bits or a filter count (< 2^62), the value too;
//    other values are published as 32-bit pieces, each in a word of its
//    own beside a ready bit (Packing). Every word is written and read with
//    relaxed gpu-scope atomics, so a look-back window costs one round trip.
//  * Determinism: the exclusive prefix of tile t is always the left fold
//    init (+) A(0) (+) ... (+) A(t-1) of the tile aggregates, whatever the
//    timing: look-back walks back in windows of 32 tiles (one per lane),
//    stashing windows of aggregates in shared memory until it meets an
//    inclusive prefix P(j) = init (+) A(0) (+) ... (+) A(j), then folds
//    P(j) (+) A(j+1) (+) ... (+) A(t-1) in tile order. Inclusive prefixes
//    are themselves such folds, so every path gives the same bits. After
//    kMaxWindows windows without an inclusive prefix the warp waits on the
//    oldest window (the earliest unfinished tile always finishes).
//
// Work space (one buffer from the host, zeroed, see KernelGen.h): an i32
// tile counter, one 8-byte status word per tile, then per 32-bit piece of
// the look-back values (statusPieces) an aggregate and an inclusive array
// of 8-byte slots (used by Packing::Pieces).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_TILEKERNELS_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_TILEKERNELS_H

#include "KernelGen.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <tuple>
#include <utility>

namespace fuse {
namespace gpugen {

/// Look-back windows stashed in shared memory before waiting.
constexpr int64_t kMaxWindows = 8;

/// True when `v` is a constant true (or non-zero) integer.
bool isConstTrue(Value v);

/// One scan/filter kernel under construction: KernelBase plus the current
/// element (enter) whose preloaded operand elements are the lane values;
/// `leaves` hold the scan results at it.
struct TileKernel : KernelBase {
  using KernelBase::KernelBase;
  using KernelBase::element;

  /// Enters element `idx` (i64); `vals` are preloaded operand elements.
  void enter(OpBuilder &b, Value idx, const DenseMap<unsigned, Value> &vals) {
    em->clearCache();
    laneIndex = toIndex(b, loc, idx);
    laneValue = vals;
  }
  /// `tensor`'s element at the current element.
  Value element(OpBuilder &b, Value tensor) {
    return element(b, tensor, laneIndex);
  }
};

/// Items per thread, a multiple of `vw`, at most 32: fuse.tiling's
/// items_per_thread, or without it about `unroll` 16-byte chunks. (Before,
/// the tiling's items were read back through `unroll` as chunks of at least
/// 4 elements, which doubled them for 8-byte elements: an f64 filter asked
/// for 10 items got 20, too many to stage, and spilled 468 bytes.)
int64_t itemsPerThread(const Tiling &t, int64_t vw);

/// The pieces shared by scan and filter kernels.
struct TileMachinery {
  TileMachinery(TileKernel &k, int64_t items, int64_t vw)
      : k(k), items(items), vw(vw) {}
  TileKernel &k;
  int64_t items, vw;
  SmallVector<Type> valTypes; // look-back value types
  SmallVector<Value> identity;
  /// a (+) x on the look-back values (held: KernelGen.h's CombineFn is a
  /// function_ref).
  std::function<SmallVector<Value>(OpBuilder &, ValueRange, ValueRange)>
      combine;
  // Workgroup buffers.
  Value smTile;                  // memref<2xi64>: claimed tile ids
  SmallVector<Value> smWarp;     // memref<warps x T>
  SmallVector<Value> smPrefix;   // memref<1 x T>
  SmallVector<Value> smStash;    // memref<kMaxWindows*32 x T>
  /// How a tile publishes its values (every word zeroed by the host):
  /// Low32 (one value of at most 32 bits in the low half of the tile's
  /// status word, the flag in the high half), Top2 (one non-negative i64
  /// below 2^62, e.g. a filter's count, with the flag in bits 62-63) or
  /// Pieces (anything else: every value split into 32-bit pieces, each in
  /// the low half of its own word with a ready bit above it, the
  /// aggregate's pieces and the inclusive prefix's in separate slot arrays,
  /// so that a reader that finds all pieces of one ready cannot mix the
  /// two; the status word is unused). Each word carries what it says, so
  /// words are written and read with relaxed gpu-scope atomics
  /// (st/ld.relaxed.gpu): no fence waits for the thread's earlier stores
  /// (a release store would, behind the previous tile's result stores),
  /// and a look-back window costs one round trip of independent loads.
  enum class Packing { Pieces, Low32, Top2 } packing = Packing::Pieces;
  /// The combine is exactly associative and commutative (integer kinds,
  /// filter counts): the look-back folds its window with a warp tree
  /// instead of the tile-ordered left fold that float sums need.
  bool orderFree = false;
  // Params.
  Value n, aligned, ws;
  // Derived.
  Value tile, tileStart, threadStart, full, flags;
  SmallVector<Value> aggArr, inclArr;
  /// Set by runTiles for scanBlock: the smTile slot of the next tile's
  /// claim and the hook that starts its loads.
  Value nextSlot;
  std::function<void(OpBuilder &, Value)> onNextTile;

  int64_t warps() const { return k.tiling.blockThreads / 32; }

  //===--------------------------------------------------------------------===//
  // Tile layout and claims (TileMachinery.cpp)
  //===--------------------------------------------------------------------===//

  /// The index, counted in vw-element vectors, of this thread's vector `c`
  /// (row c) of the current tile: what a full tile loads and stages.
  Value vectorIndex(OpBuilder &b, int64_t c);

  /// The tile element of item `j` of this thread (row j / vw, element
  /// j % vw of the lane's vector in that row).
  Value itemIndex(OpBuilder &b, int64_t j);

  /// Thread 0 claims the next tile id from the work space's counter into
  /// smTile[slot]; the caller's barrier publishes it to the block.
  void claim(OpBuilder &b, Value slot);
  Value claimed(OpBuilder &b, Value slot);

  /// The work-space arrays (see the file comment).
  void setUpWorkspace(OpBuilder &b, Value ntiles);

  /// Makes `t` the current tile: its start, the thread's first element
  /// and whether it is full (every item valid and, with vectors, every
  /// pointer 16-byte aligned).
  void setTile(OpBuilder &b, Value t);

  //===--------------------------------------------------------------------===//
  // Tile prefix: row and block scans, publication, look-back
  // (TileLookBack.cpp)
  //===--------------------------------------------------------------------===//

  Value slotPtr(OpBuilder &b, Value arr, Value idx);
  /// The status word of a value `v` with `flag` (packed modes).
  Value pack(OpBuilder &b, Value v, int64_t flag);
  /// (flag as i32, value) of a packed status word.
  std::pair<Value, Value> unpack(OpBuilder &b, Value w);
  /// Publishes `vals` of tile `t` with `flag` (1: aggregate, to aggArr; 2:
  /// inclusive prefix, to inclArr).
  void publish(OpBuilder &b, ArrayRef<Value> arrs, ValueRange vals, Value t,
               int64_t flag);

  /// Warp 0 (all lanes, tile >= 1): the exclusive prefix of the tile as a
  /// left fold of the predecessors' aggregates (see the file comment).
  SmallVector<Value> lookBack(OpBuilder &b, Value lane, ValueRange excl0);

  /// Per-row scans of the items `xs` (items x values; `valid` per item)
  /// within the warp, then the block and the look-back: returns, per row,
  /// the prefix of everything before the lane's first item of that row
  /// (tile prefix, earlier warps, earlier rows, lower lanes), and the tile's
  /// exclusive prefix and aggregate. The fold order is fixed, so the results
  /// do not depend on timing.
  struct RowScan {
    SmallVector<SmallVector<Value>> rowStart;
    SmallVector<Value> tilePrefix, total;
  };
  /// Per row: (the fold of the lower lanes' items, the row's fold).
  using RowFn = function_ref<std::pair<SmallVector<Value>, SmallVector<Value>>(
      OpBuilder &, int64_t row, Value lane)>;

  /// scanRows with a generic in-warp scan of the items' values.
  RowScan scanRows(OpBuilder &b, ArrayRef<SmallVector<Value>> xs,
                   ArrayRef<Value> valid, ValueRange excl0);

  /// The lane exclusive fold and the row fold of row `r` by a warp scan
  /// (Kogge-Stone over shfl.up) of the lanes' folds of their vw items.
  std::pair<SmallVector<Value>, SmallVector<Value>>
  warpRowScan(OpBuilder &b, ArrayRef<SmallVector<Value>> xs,
              ArrayRef<Value> valid, int64_t r, Value lane);

  RowScan scanRows(OpBuilder &b, RowFn rowFn, ValueRange excl0);

  /// Block-wide exclusive scan of the warp aggregates `warpAgg` (the same
  /// in every lane of a warp), the tile's exclusive prefix from look-back,
  /// and the tile aggregate. Returns (warp prefix = tilePrefix (+) earlier
  /// warps, tilePrefix, total).
  std::tuple<SmallVector<Value>, SmallVector<Value>, SmallVector<Value>>
  scanBlock(OpBuilder &b, ValueRange warpAgg, ValueRange excl0);

private:
  // The steps of lookBack (TileLookBack.cpp).
  /// A lane's read of the status word of tile `j`: (flag, values); where
  /// not `real` (j < 0), an inclusive prefix `excl0` (flag 2).
  std::pair<Value, SmallVector<Value>>
  readStatus(OpBuilder &b, Location l, Value j, Value real, ValueRange excl0);
  /// The look-back loop's condition region on `args` (the window's newest
  /// tile, the windows stashed): reads one window of 32 tiles, finds the
  /// nearest inclusive prefix, stashes the window or polls again.
  void lookBackWindow(OpBuilder &b, Location l, ValueRange args, Value lane,
                      ValueRange excl0);
  /// The fold of the last window's lanes up to the inclusive prefix at
  /// lane `nearest` and of the `nw` stashed windows.
  SmallVector<Value> foldLookBack(OpBuilder &b, Value lane, Value nw,
                                  Value nearest, ArrayRef<Value> vals);
};

/// Workgroup buffers of a tile kernel with look-back values `valTypes`.
SmallVector<Type> workgroupTypes(MLIRContext *ctx, int64_t warps,
                                 ArrayRef<Type> valTypes);

/// Binds tm's workgroup buffers to `f`'s attributions (workgroupTypes).
void bindWorkgroup(TileMachinery &tm, gpu::GPUFuncOp f);

/// The elements of the direct operands at every item of the thread, loaded
/// once for both passes: 16-byte vector loads of whole rows when the tile
/// is `full` (and aligned), else guarded scalar loads (zero where the item
/// is past the end). Result: per item, operand number -> element.
using ItemVals = SmallVector<DenseMap<unsigned, Value>>;
ItemVals loadItems(TileKernel &k, TileMachinery &tm, OpBuilder &b,
                   Value full);

/// The per-thread element loop in two flavours: `full` (whole tile,
/// aligned: every item valid, results stored as vectors) or guarded
/// elements. `perItem(b, j, idx, valid, vals, carried)` is called for item
/// j with its preloaded operand elements and returns the values carried to
/// the next item.
using ItemFn = function_ref<SmallVector<Value>(
    OpBuilder &, int64_t j, Value idx, Value valid,
    const DenseMap<unsigned, Value> &vals, ValueRange carried)>;

SmallVector<Value> forItems(TileKernel &k, TileMachinery &tm, OpBuilder &b,
                            Value full, const ItemVals &vals,
                            ValueRange init, ItemFn perItem);

/// Bytes of dynamic shared memory a block needs to stage one tile of its
/// direct operands (runTiles' staged mode), or 0 when tiles are not staged:
/// the tiling does not ask for it (stage_tiles), scalar elements (cp.async
/// copies 16-byte vectors), or more than 32 KiB a block. Larger tiles are
/// held in registers: staged 1024-thread tiles (64 KiB, one block per SM)
/// measured slower than in registers and than 256-thread staged tiles
/// (docs/performance.md).
int64_t stagedTileBytes(TileKernel &k, const TileMachinery &tm);

/// The tile loop. Each block claims tiles from the work-space counter
/// until they run out (the host launches no more blocks than fit on the
/// GPU at once, so a block handles many tiles). The loads of the block's
/// next tile are issued right after the current tile's first barrier
/// (scanBlock's hook): they are in flight during the look-back and the
/// current tile's stores, which is what keeps DRAM busy while warp 0
/// waits on its predecessors. `body` builds one tile from its preloaded
/// items (tm's current tile set) and must call scanRows once.
void runTiles(TileKernel &k, TileMachinery &tm, OpBuilder &b, Value ntiles,
              function_ref<void(OpBuilder &, const ItemVals &)> body);

/// Computes `fn` under `valid` (scalar flavour) or directly; `dflt` gives
/// the values when not valid.
SmallVector<Value> guarded(OpBuilder &b, Location loc, Value valid,
                           bool alwaysValid, ValueRange dflt,
                           function_ref<SmallVector<Value>(OpBuilder &)> fn);

/// Checks that a scan or filter group (`what`) is over rank-1 tensors,
/// holds no reduction and broadcasts only rank-0 values.
LogicalResult checkRank1(GroupOp group, StringRef what);

/// Resident blocks per SM a tile kernel is built for. Staged tiles hold no
/// prefetched items in registers: 1024 threads (64 registers a thread);
/// else 768 (85 registers a thread). 0 when one block has more threads.
int64_t tileBlocksPerSM(const Tiling &tiling, bool staged);

/// Resident blocks (tileBlocksPerSM) as the kernel's minimum: ptxas
/// otherwise aims at 4 blocks of 256 threads (64 registers) and spills the
/// loaded items; fewer blocks leave DRAM idle during the look-back.
void setTileOccupancy(gpu::GPUFuncOp f, const Tiling &tiling, bool staged);

/// The one `OpT` (fuse.scan or fuse.filter, named `what`) of a scan or
/// filter group, after checking the group's shapes (checkRank1).
template <typename OpT>
FailureOr<OpT> theOneOp(GroupOp group, StringRef what) {
  OpT found;
  for (Operation &op : group.getBody().front())
    if (auto o = dyn_cast<OpT>(op)) {
      if (found)
        return group.emitOpError("GPU code generation: a ")
               << what << " group takes one fuse." << what;
      found = o;
    }
  if (!found)
    return group.emitOpError("GPU code generation: a ")
           << what << " group needs a fuse." << what;
  if (failed(checkRank1(group, what)))
    return failure();
  return found;
}

/// The parameter types of a tile kernel: common, n, ntiles, i32 aligned,
/// ws, then `numOuts` output pointers (GroupPlan::Scan).
SmallVector<Type> tileParams(GroupOp group, unsigned numOuts);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_TILEKERNELS_H
