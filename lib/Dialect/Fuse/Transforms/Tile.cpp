//===- Tile.cpp - choose the GPU tiling of each fused group ---------------===//
//
// See FuseTilePass in Passes.td for the attribute and the cost model.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <limits>
#include <optional>

namespace fuse {
#define GEN_PASS_DEF_FUSETILEPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t eltBytes(Type t) {
  auto rt = cast<RankedTensorType>(t);
  return std::max<int64_t>(1, rt.getElementTypeBitWidth() / 8);
}

struct FuseTilePass : fuse::impl::FuseTilePassBase<FuseTilePass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockThreads < 0 || itemsPerThread < 0 || vectorWidth < 0 ||
        grid < 0 || blocksPerSM < 0) {
      getOperation()->emitError()
          << "fuse-tile: overrides must not be negative";
      return signalPassFailure();
    }
    if (finishPrefetch < 0 || finishPrefetch > 8) {
      getOperation()->emitError()
          << "fuse-tile: finish-prefetch must be 0-8, not "
          << static_cast<int64_t>(finishPrefetch);
      return signalPassFailure();
    }
    if (longRowItems < 0 || longRowItems > 32) {
      getOperation()->emitError()
          << "fuse-tile: long-row-items must be 0-32, not "
          << static_cast<int64_t>(longRowItems);
      return signalPassFailure();
    }
    if (longRowStageItems < 1 || longRowStageItems > 32) {
      getOperation()->emitError()
          << "fuse-tile: long-row-stage-items must be 1-32, not "
          << static_cast<int64_t>(longRowStageItems);
      return signalPassFailure();
    }
    if (narrowRows < 0 || narrowRows > 32 ||
        (narrowRows && !llvm::isPowerOf2_64(narrowRows))) {
      getOperation()->emitError()
          << "fuse-tile: narrow-rows must be 0 or a power of two up to 32, "
             "not "
          << static_cast<int64_t>(narrowRows);
      return signalPassFailure();
    }
    if (segmentPiece < 0) {
      getOperation()->emitError()
          << "fuse-tile: segment-piece must not be negative, not "
          << static_cast<int64_t>(segmentPiece);
      return signalPassFailure();
    }
    if (pollDelay < 0 || pollDelay > 1000000 || lookbackDelay < 0 ||
        lookbackDelay > 1000000) {
      getOperation()->emitError()
          << "fuse-tile: poll-delay and lookback-delay must be 0 to 1000000 "
             "ns, not "
          << static_cast<int64_t>(pollDelay) << " and "
          << static_cast<int64_t>(lookbackDelay);
      return signalPassFailure();
    }
    if (stagedRows < -1) {
      getOperation()->emitError()
          << "fuse-tile: staged-rows must be -1 (the target's), 0 (off) or "
             "a byte count, not "
          << static_cast<int64_t>(stagedRows);
      return signalPassFailure();
    }
    TargetAttr target = TargetAttr::lookup(getOperation());
    // A block size option: 0 (off) or whole warps the target allows.
    auto badThreads = [&](StringRef name, int64_t n) {
      if (n == 0 ||
          (n >= 32 && n % 32 == 0 && n <= target.getMaxThreadsPerBlock()))
        return false;
      getOperation()->emitError()
          << "fuse-tile: " << name
          << " must be 0 or a multiple of 32 up to the target's threads per "
             "block ("
          << target.getMaxThreadsPerBlock() << "), not " << n;
      return true;
    };
    if (badThreads("staged-threads", stagedThreads) ||
        badThreads("wide-row-threads", wideRowThreads))
      return signalPassFailure();
    WalkResult w = getOperation()->walk([&](GroupOp g) {
      return failed(tile(g, target)) ? WalkResult::interrupt()
                                     : WalkResult::advance();
    });
    if (w.wasInterrupted())
      signalPassFailure();
  }

  /// What the cost model reads of a group: element widths and bytes of
  /// its boundary tensors, its iteration space and whether every size is
  /// static.
  struct Footprint {
    int64_t widest = 1, inputBytes = 0;
    /// inputBytes of the operands of the iteration space's rank only: a
    /// row group's rows, not the vectors broadcast along them (a scale
    /// and a bias a column), which the cache serves and which hold no
    /// register per item.
    int64_t streamBytes = 0;
    /// Bytes a scan or filter tile holds per item (the most of its
    /// loaded operands, scanned or filtered values and results).
    int64_t heldBytes = 0;
    bool allStatic = true;
    /// The largest tensor at the boundary (null: none).
    RankedTensorType domain;
    /// Some result is rank 2 (a row group's per-element outputs).
    bool rowWideResults = false;
  };

  static Footprint measure(GroupOp group) {
    Footprint fp;
    Block &body = group.getBody().front();
    // Every tensor the group touches, inside and at its boundary.
    SmallVector<Value> tensors;
    for (Value v : body.getArguments())
      if (isa<RankedTensorType>(v.getType()))
        tensors.push_back(v);
    body.walk([&](Operation *op) {
      for (Value r : op->getResults())
        if (isa<RankedTensorType>(r.getType()))
          tensors.push_back(r);
    });
    for (Value v : tensors)
      if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
        fp.allStatic = false;
    // Loads, stores and byte offsets concern the boundary tensors only:
    // values computed in the body live in registers, one per lane (e.g.
    // the i64 counts of the Welford rewrite, never materialised).
    // A histogram's counts are written by atomics, a bin at a time: they
    // take no part in the vector accesses, nor in the iteration space.
    auto isCounts = [&](Value v) {
      auto r = dyn_cast<OpResult>(v);
      return r && r.getOwner() == group &&
             isa_and_nonnull<HistogramOp>(group.getYield()
                                              .getValues()[r.getResultNumber()]
                                              .getDefiningOp());
    };
    // An operand whose sizes alone the body reads (a map's unread input,
    // kept for the run-time size check) is never loaded.
    auto unread = [](Value v) {
      return isa<BlockArgument>(v) && onlySizesRead(v);
    };
    // Rank-0 tensors (a reduction's results, scalar operands) are read or
    // written once, not in vectors: an i64 argmax index does not halve
    // the vectors of its f32 input.
    for (Value v : llvm::concat<Value>(body.getArguments(), group.getResults()))
      if (auto t = dyn_cast<RankedTensorType>(v.getType());
          t && t.getRank() > 0 && !isCounts(v) && !unread(v))
        fp.widest = std::max(fp.widest, eltBytes(t));
    for (Value v : body.getArguments())
      if (auto t = dyn_cast<RankedTensorType>(v.getType()))
        if (t.getRank() > 0 && !unread(v))
          fp.inputBytes += eltBytes(t);
    // The iteration space: the largest tensor at the boundary.
    for (Value v : llvm::concat<Value>(body.getArguments(),
                                       group.getResults())) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (t && !isCounts(v) &&
          (!fp.domain || t.getRank() > fp.domain.getRank()))
        fp.domain = t;
    }
    for (Value v : body.getArguments())
      if (auto t = dyn_cast<RankedTensorType>(v.getType());
          t && fp.domain && t.getRank() == fp.domain.getRank() && !unread(v))
        fp.streamBytes += eltBytes(t);
    // Scan and filter tiles hold every item of the thread in registers
    // (the loaded operands, the scanned or filtered values, the results
    // until they are stored): an item costs the most of the three (an i64
    // scan of i32 inputs: 8 bytes, not 4; a scan with an f64 side output
    // of f32 inputs: 12; such tiles spilled up to 724 bytes).
    fp.heldBytes = fp.inputBytes;
    GroupKind kind = group.getKind();
    if (kind == GroupKind::Scan || kind == GroupKind::Filter) {
      int64_t computed = 0, results = 0;
      for (Value r : group.getResults())
        if (auto t = dyn_cast<RankedTensorType>(r.getType()))
          if (t.getRank() > 0)
            results += eltBytes(t);
      auto add = [&](ValueRange vs) {
        for (Value v : vs)
          if (auto t = dyn_cast<RankedTensorType>(v.getType()))
            computed += eltBytes(t);
      };
      body.walk([&](Operation *op) {
        if (auto scan = dyn_cast<ScanOp>(op))
          add(scan.getInputs());
        else if (auto filter = dyn_cast<FilterOp>(op))
          add(filter.getInputs());
      });
      fp.heldBytes = std::max({fp.heldBytes, computed, results});
    }
    fp.rowWideResults = llvm::any_of(group.getResults(), [](Value v) {
      return cast<RankedTensorType>(v.getType()).getRank() == 2;
    });
    return fp;
  }

  /// The block shape: threads, vector width and items per thread, from the
  /// cost model and the overrides.
  void chooseShape(GroupKind kind, const Footprint &fp, TargetAttr target,
                   int64_t &bt, int64_t &vw, int64_t &items) {
    const bool tileGroup =
        kind == GroupKind::Scan || kind == GroupKind::Filter;
    vw = std::max<int64_t>(1, target.getVectorBytes() / fp.widest);
    // Items per thread keeping `bytes` of loads in flight per thread over
    // all input streams, a multiple of vw.
    auto itemsFor = [&](int64_t bytes, int64_t perItem) {
      return std::max<int64_t>(
          vw, ceilDiv(std::max<int64_t>(
                          1, bytes / std::max<int64_t>(1, perItem)),
                      vw) *
                  vw);
    };
    // Row groups count their rows' bytes only: layer norm's scale and
    // bias vectors would otherwise halve the f32 items (8, 2048 columns
    // in registers) and send 4096-column rows to the staged path.
    const int64_t loadBytes =
        kind == GroupKind::RowReduce ? fp.streamBytes : fp.inputBytes;
    items = itemsFor(64, loadBytes);
    // Scans: tiles of 512 threads x 128 bytes of loads a thread (32 f32),
    // held in registers (one block per SM, 128 registers a thread): a
    // quarter of the look-backs of 256-thread tiles; measured faster than
    // 1024 x 16 and 256 x 16 staged (docs/performance.md). Filters keep
    // 256 threads, staged: larger blocks measured slower.
    // Filter tiles hold 80 bytes of loads a thread (20 f32): a fifth fewer
    // look-backs, and the staged tile, its shared-scatter buffer and 64
    // registers a thread still fit four blocks per SM (more items spill or
    // lose occupancy, and measured slower).
    bt = std::min<int64_t>(kind == GroupKind::Scan ? 512 : 256,
                           target.getMaxThreadsPerBlock());
    if (kind == GroupKind::Scan)
      items = itemsFor(128, fp.heldBytes);
    else if (kind == GroupKind::Filter)
      items = itemsFor(80, fp.heldBytes);
    // Row groups whose results are all per row (logsumexp, row sums):
    // 128 bytes of loads a thread, at most 32 elements (32 f32, 16 f64;
    // 16-bit elements stay at 32, whose registers hold one each). Fewer
    // threads a row, so fewer butterfly steps and barriers per element,
    // and rows up to 8192 f32 stay in registers (no second walk); the
    // thread holds 32 words, as f32 measured; faster than 64 bytes at
    // every width of logsumexp_rows measured (docs/performance.md). Groups
    // with rank-2 results keep 64 bytes: their mapped values stay live to
    // the stores, and more items a thread spilled.
    if (kind == GroupKind::RowReduce && !fp.rowWideResults) {
      int64_t rowItems = std::min<int64_t>(itemsFor(128, loadBytes), 32);
      items = std::max(items, rowItems / vw * vw);
    }
    // With rank-2 results the mapped values take a register each whatever
    // their type, so 16-bit rows keep f32's 16 elements, not 64 bytes' 32
    // (bf16 softmax at 65536 x 4096 on the H200: 16 items 2977 GiB/s, 32
    // items 2102, 8 items 1621).
    if (kind == GroupKind::RowReduce && fp.rowWideResults)
      items = std::min<int64_t>(items, std::max<int64_t>(vw, 16 / vw * vw));
    // Rows of a static width take the dynamic widths' tiles (256 threads x
    // 64 bytes; narrow widths go to groups of fewer threads, narrow-rows).
    // One vector a thread (cols / vw threads) measured less than half as
    // fast.
    if (blockThreads)
      bt = blockThreads;
    if (vectorWidth)
      vw = vectorWidth;
    if (itemsPerThread)
      items = itemsPerThread;
    // Scan and filter tiles hold at most 32 items a thread (GPU code
    // generation's limit): narrow elements reach it before 80 or 128
    // bytes (i8: 32, not 128).
    if (tileGroup && items > 32)
      items = std::max<int64_t>(vw, 32 / vw * vw);
    // Elementwise groups: one 16-byte vector per thread and as many blocks
    // as that takes (grid 0 when a size is dynamic: the host sizes it).
    // Measured faster than any persistent grid-stride shape
    // (docs/performance.md, bench/probes/stream.cu).
    if (kind == GroupKind::Elementwise && !itemsPerThread)
      items = vw;
    // Segmented reductions read a segment's elements one at a time at
    // computed positions (no vectors): eight loads in flight a thread and
    // step (32 bytes of f32; four measured half the copy bandwidth on long
    // segments) unless items-per-thread says otherwise.
    if (kind == GroupKind::SegmentedReduce) {
      vw = 1;
      if (!itemsPerThread)
        items = 8;
    }
  }

  /// The grid: the persistent grid of resident blocks, or (static sizes)
  /// no more blocks than tiles or rows; 0 for dynamic elementwise groups
  /// (the host sizes it).
  int64_t chooseGrid(GroupKind kind, const Footprint &fp, TargetAttr target,
                     int64_t bt, int64_t items) {
    bool perVector = kind == GroupKind::Elementwise;
    int64_t bps = blocksPerSM;
    if (!bps)
      bps = std::max<int64_t>(1, target.getMaxThreadsPerSM() / bt);
    int64_t g = target.getSmCount() * bps;
    if (perVector)
      g = 0;
    RankedTensorType dt = fp.domain;
    if (fp.allStatic && dt) {
      int64_t tiles;
      if (kind == GroupKind::RowReduce && dt.getRank() == 2)
        tiles = dt.getDimSize(0);
      else
        tiles = ceilDiv(dt.getNumElements(), bt * items);
      g = std::clamp<int64_t>(perVector ? tiles : std::min(g, tiles), 1,
                              std::numeric_limits<int32_t>::max());
    }
    return grid ? static_cast<int64_t>(grid) : g;
  }

  LogicalResult tile(GroupOp group, TargetAttr target) {
    Footprint fp = measure(group);
    GroupKind kind = group.getKind();
    // Scan and filter groups: look-back tiles held per thread.
    bool tileGroup = kind == GroupKind::Scan || kind == GroupKind::Filter;
    int64_t bt, vw, items;
    chooseShape(kind, fp, target, bt, vw, items);
    int64_t g = chooseGrid(kind, fp, target, bt, items);
    RankedTensorType dt = fp.domain;
    // Rows of a static width (rank-2 domain): their width (may be 0).
    std::optional<int64_t> staticCols;
    if (dt && dt.getRank() == 2 && !dt.isDynamicDim(1))
      staticCols = dt.getDimSize(1);

    // The kernel family's fields; each keeps the attribute's default
    // (printed nowhere) unless this group's family reads it.
    bool stageTile = false, sharedScatterTile = false;
    int64_t poll = kDefaultPollDelay, lookback = kDefaultLookbackDelay;
    if (tileGroup) {
      lookback = lookbackDelay;
      poll = pollDelay;
      // The cost model's 512-thread scan tiles are held in registers (one
      // block per SM, 128 registers a thread): staged, a tile of narrow
      // elements (16-32 KiB) would run two blocks per SM at 64 registers
      // and spill (i8, i16, f16); f32 and wider tiles are too large to
      // stage anyway. With block-threads set, stage-tiles decides.
      stageTile = stageTiles &&
                  !(kind == GroupKind::Scan && !blockThreads && bt >= 512);
    }
    if (kind == GroupKind::Filter)
      sharedScatterTile = sharedScatter;
    // The finish kernel's prefetch depth (0: none).
    int64_t prefetch = kind == GroupKind::Reduce ? finishPrefetch : 0;
    // Rows longer than the register path holds (bt * items): elements
    // loaded per step of the walk that writes the rank-2 results; none
    // when a static width fits (and so for online-max-sum).
    bool mayBeLong = kind == GroupKind::RowReduce &&
                     !(staticCols && *staticCols <= bt * items);
    int64_t rowItems = mayBeLong ? longRowItems : 0;
    // ... and per step of a reduction's walk (one: left out).
    int64_t stageItems =
        mayBeLong && longRowStageItems > 1 ? longRowStageItems : 0;
    // Rows longer than the register path: a max and the following sum of
    // exp(x - max) in one walk (docs/performance.md).
    bool online = mayBeLong && onlineMaxSum;
    // ... and a row sum with the following sum of squared deviations from
    // a centre computed from it.
    bool oneWalkVar = mayBeLong && oneWalkVariance;
    // Long rows staged in shared memory (only groups with rank-2 results
    // walk their rows more than once with online-max-sum).
    int64_t stagedLimit =
        stagedRows < 0 ? target.getSharedMemoryPerBlock()
                       : std::min<int64_t>(stagedRows,
                                           target.getSharedMemoryPerBlock());
    int64_t staged = 0, stagedBt = 0;
    if (mayBeLong && stagedLimit > 0 && fp.rowWideResults) {
      staged = stagedLimit;
      stagedBt = stagedThreads ? stagedThreads : bt;
    }
    // Rows past the block's registers from half to all of what
    // wideRowThreads threads hold (the wide kernel's range; none when a
    // static width is outside it).
    int64_t wideBt = 0;
    if (mayBeLong && wideRowThreads > bt &&
        !(staticCols && (*staticCols > wideRowThreads * items ||
                         2 * *staticCols <= wideRowThreads * items)))
      wideBt = wideRowThreads;
    // Rows that need at most half the block's threads: several rows per
    // block (none when a static width needs more).
    int64_t narrow = 0;
    if (kind == GroupKind::RowReduce && narrowRows && bt >= 64 &&
        !(staticCols && ceilDiv(*staticCols, items) > bt / 2))
      narrow = narrowRows;
    // Long segments split into pieces (built-in kinds only: a combiner
    // region runs a warp a segment).
    int64_t piece = kDefaultSegmentPiece;
    if (kind == GroupKind::SegmentedReduce &&
        llvm::any_of(group.getBody().front(), [](Operation &op) {
          auto s = dyn_cast<SegmentedReduceOp>(op);
          return s && s.hasBuiltinKinds();
        }))
      piece = segmentPiece;
    // Overrides (block-threads, items-per-thread, ...) can ask for what no
    // kernel builds: the attribute's verifier says what.
    TilingAttr tiling = TilingAttr::getChecked(
        [&] { return group.emitOpError("fuse-tile: "); }, group.getContext(),
        bt, g, items, vw, stageTile, sharedScatterTile, poll, lookback,
        prefetch, rowItems, stageItems, online, oneWalkVar, narrow, staged,
        stagedBt, wideBt, piece);
    if (!tiling)
      return failure();
    group->setAttr(TilingAttr::getAttrName(), tiling);
    return success();
  }
};

} // namespace
