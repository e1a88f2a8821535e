//===- KernelGen.h - private helpers of convert-fuse-to-gpu -----*- C++ -*-===//
//
// Shared between the kernel generators (Kernels.cpp, ScanKernels.cpp and
// FilterKernels.cpp on the tile machinery of TileKernels.h,
// LineKernels.cpp, RowReduce.cpp, OrderedReduce.cpp, with the common
// kernel set-up in KernelGen.cpp) and the host code generator
// (FuseToGPU.cpp). Not installed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_KERNELGEN_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_KERNELGEN_H

#include "fuse/Conversion/FuseToGPU/Defaults.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/ElementEmitter.h"
#include "fuse/Support/LLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

#include <memory>
#include <string>

namespace fuse {
namespace gpugen {

//===----------------------------------------------------------------------===//
// Small IR helpers shared by the kernel generators and the host code.
//===----------------------------------------------------------------------===//

inline Value cI64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}
inline Value cI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
inline Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
inline Value cBool(OpBuilder &b, Location loc, bool v) {
  return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
}

/// Warp shuffle of `v` (any int or float type up to 64 bits) in `mode`
/// with `arg` (offset or source lane, i32): f32/i32 directly, narrower
/// types widened to i32, 64-bit types as two 32-bit halves. `valid`, when
/// given, receives the shuffle's validity (the source lane exists).
Value shuffleValue(OpBuilder &b, Location loc, Value v, Value arg,
                   gpu::ShuffleMode mode, Value *valid = nullptr);

/// `v` (i32 or i64) through a side-effecting PTX `mov`: the same value, but
/// opaque to LLVM, so the loop-invariant parts of what is computed from it
/// are not hoisted (and kept live) across a loop, not strength-reduced into
/// extra induction pointers, and not shared (CSE) between phases of a
/// kernel that are separated by barriers. ptxas sees a plain mov.
Value opaqueCopy(OpBuilder &b, Location loc, Value v);

/// Combines two lists of accumulators (a (+) x).
using CombineFn =
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange a, ValueRange x)>;

/// Warp-wide fold of `accs` with xor butterflies of offsets 16 down to 1:
/// every lane ends with the combination of the 32 lanes' values (one fixed
/// tree). With `keepStep`, a step's combination is kept only where
/// keepStep(offset) (an i1) holds, else the lane's value stays.
SmallVector<Value> warpFold(
    OpBuilder &b, Location loc, SmallVector<Value> accs, CombineFn combine,
    function_ref<Value(OpBuilder &, int64_t offset)> keepStep = {});

/// Folds column `col` of row-major shared-memory buffers (`bufs`, one per
/// accumulator, rows of `width` elements) over the rows [lo, hi), in row
/// order, into `init`: init (+) row lo (+) ... (+) row hi - 1. The tile
/// kernel's fold of a block's row offsets and the look-back's fold of
/// stashed windows are this loop. lo, hi, width and col are i64.
SmallVector<Value> foldSmemColumn(OpBuilder &b, Location loc, ValueRange bufs,
                                  Value lo, Value hi, Value width, Value col,
                                  ValueRange init, CombineFn combine);

/// Narrow rows (RowReduce): the group size R that the kernel and the host
/// both choose from `cols` and need = ceil(cols / C): the smallest power of
/// two p from `minThreads` up to blockThreads / 2 with need <= p and, for
/// p < 4 when `smallCols` is set, cols <= smallCols * p. Builds the chain
/// of selects over `valueOf(p)` (larger p first), `otherwise` when no p
/// fits; `le` is the comparison (the kernel's unsigned, the host's signed:
/// both operands are sizes). One rule over one plan, evaluated on both
/// sides: the kernel keeps its own chain of selects because a shift passed
/// as a parameter loses the range ptxas knows (0..log2 blockThreads) and
/// made logsumexp_rows' narrow scalar kernel spill (test/Pipelines/
/// no-spills.test).
Value selectNarrowGroup(OpBuilder &b, Location loc, arith::CmpIPredicate le,
                        Value cols, Value need, int64_t blockThreads,
                        int64_t minThreads, int64_t smallCols,
                        function_ref<Value(int64_t p)> valueOf,
                        Value otherwise);

/// Narrow rows (RowReduce): whether a row needing `need` threads takes the
/// narrow path: need <= blockThreads / 2 on the vector path (`vec`), need
/// <= scalarMaxThreads off it. Built by the kernel and the host alike; `le`
/// as for selectNarrowGroup.
Value narrowRowsFit(OpBuilder &b, Location loc, arith::CmpIPredicate le,
                    Value need, Value vec, int64_t blockThreads,
                    int64_t scalarMaxThreads);

/// Lane 0 of each warp stores `values` to `smem[warp]` (one buffer per
/// value; `warp` an index or unsigned integer), between a leading barrier
/// that protects a previous use of `smem` and one that publishes the
/// stores to the block.
void publishWarpValues(OpBuilder &b, Location loc, ValueRange values,
                       ValueRange smem, Value lane, Value warp);

/// A 32-element workgroup buffer of `et` (one slot per warp), as
/// blockFold's `smem` takes.
MemRefType smemType(MLIRContext *ctx, Type et);

/// Block-wide fold of `accs` (valid in every lane): xor butterflies within
/// each warp (every lane ends with the warp's value), then, for blocks of
/// several warps, lane 0 of each warp writes to `smem[warp]` (one buffer per
/// accumulator; a leading barrier protects a previous use) and every thread
/// folds smem[0 .. warps) in warp order. Deterministic. `laneAndWarp`
/// gives the thread's lane (any integer type) and warp (index), and is
/// only called when the block has several warps.
SmallVector<Value>
blockFold(OpBuilder &b, Location loc, SmallVector<Value> accs, ValueRange smem,
          int64_t warps,
          function_ref<std::pair<Value, Value>(OpBuilder &)> laneAndWarp,
          CombineFn combine);

/// The i32 mask of the lanes of the warp whose `pred` holds (all 32 lanes
/// must execute it).
Value warpBallot(OpBuilder &b, Location loc, Value pred);

/// index -> i64 (indices are non-negative here).
inline Value toI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
}
inline Value toIndex(OpBuilder &b, Location loc, Value i64) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), i64);
}
/// A pointer into global memory (address space 1).
inline LLVM::LLVMPointerType globalPtr(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, 1);
}
inline RankedTensorType tensorTy(Value v) {
  return dyn_cast<RankedTensorType>(v.getType());
}
/// Bytes of one element of an integer, index (64-bit on the GPU) or float
/// type.
inline int64_t byteWidth(Type t) {
  if (t.isIndex())
    return 8;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}
/// The 32-bit pieces of the look-back values `types` (a scan's or filter's
/// statusTypes): the work space holds an aggregate and an inclusive slot
/// array of 8-byte words a tile for each (TileKernels.h, Packing::Pieces).
inline int64_t statusPieces(ArrayRef<Type> types) {
  int64_t n = 0;
  for (Type t : types)
    n += (byteWidth(t) + 3) / 4;
  return n;
}
inline Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value x,
                  Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}
inline Value sel(OpBuilder &b, Location loc, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}
/// Element-wise `c ? x[i] : y[i]`.
inline SmallVector<Value> selAll(OpBuilder &b, Location loc, Value c,
                                 ValueRange x, ValueRange y) {
  SmallVector<Value> out;
  for (auto [p, q] : llvm::zip(x, y))
    out.push_back(sel(b, loc, c, p, q));
  return out;
}

/// Inclusive scan of `vals` over the lanes of a warp (Kogge-Stone over
/// shfl.up, lane order kept): lane `lane` (i64) gets `combine(lanes 0 ..
/// lane)`. Every lane of the warp must take part.
SmallVector<Value> warpInclusiveScan(
    OpBuilder &b, Location loc, Value lane, ValueRange vals,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange, ValueRange)>
        combine);

/// Accumulators with "has value" flags, combined in order: (a, ha) (+)
/// (x, hx) is `both` (= a (+) x) where both sides have a value, a where
/// only ha, else x (hx only, or neither).
inline SmallVector<Value> pickFlagged(OpBuilder &b, Location loc, Value ha,
                                      ValueRange a, Value hx, ValueRange x,
                                      ValueRange both) {
  SmallVector<Value> onlyOne = selAll(b, loc, ha, a, x);
  return selAll(b, loc, arith::AndIOp::create(b, loc, ha, hx), both, onlyOne);
}

/// The start of kernel `f`'s dynamic shared memory (the launch passes its
/// size): an external, 16-byte aligned workgroup global `<f>_stage`,
/// created on first use. Dynamic because more than 48 KiB does not fit in
/// static shared memory.
Value dynamicSharedBase(gpu::GPUFuncOp f, OpBuilder &b, Location loc);

/// One cp.async of `bytes` (4, 8 or 16) from global `src` to shared `dst`,
/// both aligned to `bytes`: .cg (L2 only) for 16 bytes, .ca below, the only
/// one PTX takes there.
void emitCpAsync(OpBuilder &b, Location loc, Value dst, Value src,
                 int64_t bytes);

/// Staged long rows (RowReduce): the shared-memory region of one operand
/// of `cols` (i64) elements of `bytes` each, alignTo(cols * bytes, 16), and
/// a row's whole staging buffer (the regions of `elementBytes` summed).
/// The kernel lays out its regions and the host sizes the launch and picks
/// the staged kernel with these, so the two agree.
Value stagedRegionBytes(OpBuilder &b, Location loc, Value cols,
                        int64_t bytes);
Value stagedRowBytes(OpBuilder &b, Location loc, Value cols,
                     ArrayRef<int64_t> elementBytes);

/// A kernel `name` in `m` with `blockThreads` threads per block and one
/// workgroup (shared-memory) buffer per `workgroup` type. Every buffer is
/// 16-byte aligned: LLVM's load/store vectorizer merges neighbouring
/// shared-memory accesses into 16-byte ld/st.shared.v4 on the assumption
/// that the buffer start allows it, and a buffer placed after an 8-byte one
/// would otherwise fault with a misaligned address.
gpu::GPUFuncOp createKernel(gpu::GPUModuleOp m, Location loc, StringRef name,
                            TypeRange params, TypeRange workgroup,
                            int64_t blockThreads);

/// Tiling parameters of one group (pass options overridden by the group's
/// `fuse.tiling` dictionary).
struct Tiling {
  int64_t blockThreads = kDefaultBlockThreads;
  int64_t unroll = kDefaultUnroll;
  /// fuse.tiling's items_per_thread as given (0: absent). Scan and filter
  /// tiles take it as is; the other kernels read `unroll` (items / vector
  /// width).
  int64_t items = 0;
  int64_t blocksPerSM = kDefaultBlocksPerSM;
  int64_t smallReduce = kDefaultSmallReduce;
  int64_t vectorWidth = 0; // 0: 16 bytes' worth of the element type
  int64_t grid = 0;        // 0: from the SM count
  /// Scan/filter kernels: stage the next tile's loads in shared memory with
  /// cp.async instead of registers (fuse-tile's stage-tiles).
  bool stageTiles = true;
  /// Scan/filter look-back: nanoseconds slept between reads of a window
  /// that is not ready, and after publishing the tile aggregate before the
  /// first read (fuse-tile's poll-delay and lookback-delay, defaults in
  /// FuseDialect.h; docs/performance.md).
  int64_t pollDelay = kDefaultPollDelay;
  int64_t lookbackDelay = kDefaultLookbackDelay;
  /// Filter kernels: kept elements go through a tile buffer in shared
  /// memory and leave with coalesced stores (fuse-tile's shared-scatter).
  bool sharedScatter = false;
  /// Reduce groups' finish kernel: partials each thread has loading ahead
  /// of the one it folds (fuse-tile's finish-prefetch; 0: none).
  int64_t finishPrefetch = 0;
  /// row_reduce groups, rows past the register path: elements each thread
  /// loads per step of the walk that writes the rank-2 results
  /// (fuse-tile's long-row-items; 0: one).
  int64_t longRowItems = 0;
  /// row_reduce groups, rows past the register path: elements each thread
  /// loads per step of a reduction's walk (fuse-tile's
  /// long-row-stage-items; 0: one).
  int64_t longRowStageItems = 0;
  /// row_reduce groups, rows past the register path: a max stage and the
  /// sum of exp(x - max) after it in one walk (fuse-tile's online-max-sum).
  bool onlineMaxSum = false;
  /// row_reduce groups, rows past the register path: a row sum and the
  /// sum of squared deviations from a centre computed from it in one walk
  /// (fuse-tile's one-walk-variance).
  bool oneWalkVariance = false;
  /// row_reduce groups: rows of at most blockThreads / 2 threads' elements
  /// go to groups of R threads (a power of two, at least this many, 1-32;
  /// 0: no narrow rows), several rows per block (fuse-tile's narrow-rows).
  int64_t narrowRows = 0;
  /// row_reduce groups with rank-2 results, rows past the register path:
  /// rows whose directly read operands take at most this many bytes are
  /// staged in shared memory once (fuse-tile's staged-rows; 0: off).
  int64_t stagedRows = 0;
  /// Threads per block of staged rows over stagedWideRows bytes (one block
  /// an SM; fuse-tile's staged-threads; 0: blockThreads); smaller staged
  /// rows run with blockThreads (a kernel each).
  int64_t stagedThreads = 0;
  int64_t stagedWideRows = 0;
  /// row_reduce groups: threads of the wide register-path kernel, for
  /// rows past blockThreads' registers that this many threads hold
  /// (fuse-tile's wide-row-threads; 0: none).
  int64_t wideRowThreads = 0;
  /// segmented_reduce groups: elements of a piece of a long segment
  /// (fuse-tile's segment-piece; 0: a block a segment).
  int64_t segmentPiece = kDefaultSegmentPiece;
};

/// The common kernel parameter types of a group: for each group operand in
/// order, a tensor gives `!llvm.ptr<1>` then one i64 per dimension, a
/// scalar gives its own type.
SmallVector<Type> commonParams(GroupOp group);

/// The group body's tensor arguments of rank >= 1 read at the kernel's own
/// index (KernelBase::directOperands).
SmallVector<unsigned> directOperandsOf(Block &body);

/// The fuse.reduce ops of `body`, in order.
SmallVector<ReduceOp> reductionsOf(Block &body);

/// How vectorWidthOf treats tensors of different element widths.
enum class Widths {
  /// One width for all, or scalar accesses (width 1) when they differ.
  Common,
  /// 16 bytes of the widest element: each narrower tensor moves the same
  /// number of elements in a smaller vector (an i32 input of an f64 map:
  /// 8 bytes a thread and step), still aligned, since the host takes the
  /// vector path only when every pointer is 16-byte aligned.
  Widest,
};

/// Vector width (elements) of a kernel's loads and stores: 16 bytes of the
/// element width of the tensors among `values` that `counts` selects
/// (capped by `tiling.vectorWidth`, a power of two), by `widths` where
/// they differ; 1 when none is selected. Every family's plan takes its
/// width from here.
int64_t vectorWidthOf(ValueRange values, const Tiling &tiling,
                      function_ref<bool(RankedTensorType)> counts,
                      Widths widths = Widths::Common);

/// The group's results and the operands whose elements its body reads
/// (not those whose sizes alone it reads: a map's unread input, kept for
/// the run-time size check, sets no vector width).
SmallVector<Value> widthBoundary(GroupOp group);

/// Flat and scan/filter kernels: vectorWidthOf every rank>=1 tensor of
/// widthBoundary.
int64_t flatVectorWidth(GroupOp group, const Tiling &tiling,
                        Widths widths = Widths::Common);

/// How a kernel generator addresses operands beyond KernelBase's shared
/// scheme.
struct KernelOptions {
  /// Flat kernels over rank-2+ tensors of one shape (Kernels.cpp): a
  /// tensor of rank > 1 is addressed at (0, ..., 0, laneIndex), whose
  /// row-major offset is the flat index itself (see atLane, element).
  bool flatLanes = false;
  /// Rank-0 operands are loaded through a GEP at offset 0 rather than
  /// straight from the parameter pointer.
  bool rank0ViaGep = false;
};

/// A store of an element's result that a step emits after it has read all
/// its elements: the store may alias a later load, which then could not be
/// issued before it, and a thread would keep one load in flight (a column
/// sum returning its input's map moved one element a memory round trip).
struct DeferredStore {
  Value value, base, idx;
};
using DeferredStores = SmallVectorImpl<DeferredStore>;

/// One kernel of a group under construction, the part every generator
/// shares: the common parameters bound to the group operands, the rank-0
/// operands loaded once, and an ElementEmitter on the group body whose
/// loads read, in this order, leaves produced by the kernel, the rank-0
/// preloads, elements the generator holds (heldElement), the lane values
/// at the current lane, and else global memory (row-major). The generators
/// derive from it and add their own state; `failedLeaf` records any value
/// the emitter could not produce (the kernel then reports an unsupported
/// body).
struct KernelBase {
  GroupOp group;
  Block &body;
  Location loc;
  Tiling tiling;
  KernelOptions options;
  gpu::GPUFuncOp func;                  // set before setUp
  SmallVector<Value> ptr;               // per group operand, null for scalars
  SmallVector<SmallVector<Value>> dims; // i64 sizes per tensor operand
  SmallVector<Value> rank0;             // preloaded rank-0 operands
  SmallVector<Value> extra;             // params after the common ones
  std::unique_ptr<ElementEmitter> em;
  /// Leaves produced by the kernel itself (reduce or scan results).
  DenseMap<Value, Value> leaves;
  /// Lane mode: the current flat index (as `index`) and preloaded elements
  /// of operands (by argument number) at it.
  Value laneIndex;
  DenseMap<unsigned, Value> laneValue;
  /// Flat kernels' lanes (enterLane): lane `laneNumber` of chunk
  /// `laneChunk`, whose flat index is `laneEntered` (one past the previous
  /// lane's). Null where a generator sets laneIndex itself.
  Value laneChunk, laneEntered;
  int64_t laneNumber = 0;
  /// A coordinate of the previous lane, per (tensor, dimension), that the
  /// next lane of the same chunk steps from with adds, compares and
  /// selects instead of a division and a remainder: `rem` is the flat index
  /// modulo `stride` (the product of the later sizes; null for the last
  /// dimension), `coord` the coordinate, `size` the dimension's size.
  /// Usable where `block` encloses the point of use.
  struct CoordChain {
    Value chunk;
    int64_t lane;
    Block *block;
    Value stride, size, rem, coord;
  };
  DenseMap<std::pair<Value, int64_t>, CoordChain> coordChains;
  /// The index constant 0 of flatLanes addressing; null otherwise.
  Value zeroIndex;
  /// Body-level `tensor.dim`s of the group's tensor operands (constant
  /// index), as the kernel's size parameters at the kernel's entry: scalar()
  /// returns these, which dominate every use (a combiner is emitted in
  /// several nested regions without the emitter's cache being cleared).
  DenseMap<Value, Value> pinnedDims;
  bool failedLeaf = false;

  KernelBase(GroupOp group, Location loc, const Tiling &tiling,
             KernelOptions options = KernelOptions());
  KernelBase(const KernelBase &) = delete;
  KernelBase &operator=(const KernelBase &) = delete;
  virtual ~KernelBase();

  Value threadId(OpBuilder &b);
  Value blockId(OpBuilder &b);
  Value gridDim(OpBuilder &b);
  /// The thread's global index (i64) and the grid's thread count, the
  /// start and step of a grid-stride loop.
  std::pair<Value, Value> gridStride(OpBuilder &b);

  /// Address of element `idx` (i64) of `base` with element type `t`.
  Value gep(OpBuilder &b, Value base, Type t, Value idx);
  /// Loads a `t` (a scalar, or a vector of elements aligned to its size)
  /// at element `idx` of `base` counted in `t`s.
  Value load(OpBuilder &b, Type t, Value base, Value idx);
  /// Stores `v` like `load` reads it.
  void store(OpBuilder &b, Value v, Value base, Value idx);
  /// Emits `stores` in order.
  void store(OpBuilder &b, ArrayRef<DeferredStore> stores);
  /// Row-major linear offset (i64) of `idx` (index values) into operand
  /// `arg`.
  Value linearize(OpBuilder &b, unsigned arg, ValueRange idx);
  /// Whether `idx` addresses the current lane: (laneIndex), or with
  /// flatLanes also (0, ..., 0, laneIndex).
  bool atLane(ValueRange idx) const;
  /// Argument numbers of the rank>=1 operands read elementwise; operands
  /// read only as gather sources are read at gathered indices instead.
  SmallVector<unsigned> directOperands();

  /// Binds the common parameters of `func` (the rest go to `extra`), loads
  /// the rank-0 operands and prepares the element emitter. Builds at `b`.
  void setUp(OpBuilder &b);

  /// `tensor`'s element at `idx` (poison and failedLeaf on failure). With
  /// flatLanes, a rank-1 index (laneIndex) into a tensor of rank > 1 means
  /// (0, ..., 0, laneIndex).
  Value element(OpBuilder &b, Value tensor, ValueRange idx);
  /// The scalar `v` (poison and failedLeaf on failure).
  Value scalar(OpBuilder &b, Value v);

protected:
  /// Hook: an element of operand `arg` at `idx` that the generator holds
  /// in registers, or null to read it from lane values or memory.
  virtual Value heldElement(unsigned arg, ValueRange idx) { return Value(); }
  /// Hook: the current lane's coordinate along `d` of `tensor` where the
  /// generator knows it without arithmetic on the flat index, or null.
  virtual Value laneCoordHint(OpBuilder &b, Value tensor, int64_t d) {
    return Value();
  }

private:
  Value loadOperand(OpBuilder &b, Location l, Value tensor, ValueRange idx);
  Value operandDim(OpBuilder &b, Location l, Value tensor, int64_t d);
  /// The flatLanes coordinate hook: `tensor`'s coordinate along `d` at the
  /// current lane, or null when `idx` is not the lane's.
  Value laneCoord(OpBuilder &b, Location l, Value tensor, ValueRange idx,
                  int64_t d);
};

/// What the host must do to run one group.
enum class GroupPlan {
  /// One kernel: params = common, n, nchunks, out ptrs.
  Elementwise,
  /// Kernel `partial` (common, n, nchunks, partial ptrs, out ptrs, i32
  /// single) and kernel `finish` (common, count, partial ptrs, out ptrs).
  Reduce,
  /// One kernel: common, rows, cols, i32 vec, out ptrs; one block per
  /// row.
  RowReduce,
  /// scan groups (ScanKernels.cpp, on TileKernels.h): one kernel, params
  /// common, n, ntiles, i32 aligned, ws ptr, out ptrs; ntiles = ceil(n /
  /// tileItems), grid = min(ntiles, SMs * threads an SM holds /
  /// block_threads) blocks
  /// looping over tiles (runTiles, TileMachinery.cpp).
  /// `ws` holds an i32 tile counter (16 bytes), ntiles 8-byte status
  /// words (rounded up to 16 bytes), both zeroed by the host, then for each
  /// status type an aggregate array and then an inclusive array of ntiles
  /// 8-byte slots (unused when the value is packed into the status word).
  Scan,
  /// filter groups (FilterKernels.cpp): as Scan plus an i64* count param
  /// (device) before the out ptrs; compacted results hold `count` elements.
  Filter,
  /// scan groups over rank > 1 tensors (LineKernels.cpp, buildLineScan):
  /// one kernel, params common, lines, len, inner, [chunkLen, chunks,
  /// partial ptrs], out ptrs. The scanned dimension splits the shape into
  /// outer x len x inner; each of the lines = outer * inner independent
  /// scans is one thread's sequential loop (grid-stride over lines), or a
  /// warp's (rows), or with linePartialKernel a chunk's thread a line.
  LineScan,
  /// histogram groups (HistogramKernels.cpp): kernel `count` (counts in
  /// shared memory first; dynamic shared memory alignTo(4 * nbins, 16)
  /// bytes, when that is at most sharedCountLimit) or `count_global`
  /// (global atomics), both with params common, n, nchunks, nbins, out
  /// ptrs; the host zeroes the counts (result countsResult) first.
  Histogram,
  /// A lone partial reduction the row kernels do not take (a reduced
  /// dimension other than the last of a rank-2 tensor, or a custom
  /// combiner; LineKernels.cpp, buildLineReduce): kernel `kernel`, params
  /// common, lines, len, inner, [chunkLen, chunks, partial ptrs], out
  /// ptrs; one thread folds each of the outer * inner lines along the
  /// reduced dimension in order. With `lineCombineKernel` (accumulators
  /// that can be stored), the host may split each line into `chunks`
  /// chunks of chunkLen (the last shorter): a thread folds a chunk into
  /// partials (of partialTypes, lines * chunks each), and
  /// `lineCombineKernel` (params common, lines, len, inner, chunks,
  /// partial ptrs, out ptrs) folds each line's partials in order.
  LineReduce,
  /// segmented_reduce groups (SegmentKernels.cpp): kernel `kernel` (a warp
  /// per segment) or, for built-in kinds, `segmentBlockKernel` (a block
  /// per segment) where the mean segment holds at least
  /// segmentBlockMinMean elements and `segmentSmallKernel` (groups of
  /// segmentSmallThreads lanes) where it holds fewer than
  /// segmentSmallMaxMean; all with params common, nseg, n, out ptrs,
  /// looping over the segments grid-stride.
  SegmentedReduce,
};

struct GroupKernels {
  GroupPlan plan;
  std::string kernel;       // the (first) kernel's name
  std::string finishKernel; // Reduce only
  std::string lineCombineKernel; // LineReduce with split lines only
  /// LineReduce with lineCombineKernel: the host splits lines into chunks
  /// until lines * chunks reaches lineSplitThreads, no chunk shorter than
  /// lineMinChunk elements (sizes alone decide, so a result's rounding
  /// does not depend on the GPU).
  int64_t lineSplitThreads = 0, lineMinChunk = 0;
  /// LineReduce with built-in kinds and split lines: the tile kernel (same
  /// params and block size as the split kernel), which the host launches
  /// instead where inner <= the block's threads and a line's elements
  /// over the outer slices fill lineTileMinItems a thread of a block: a
  /// block per (outer slice, chunk), lineSplitThreads / block threads
  /// blocks in all, no chunk below lineTileMinItems a thread.
  std::string lineTileKernel;
  int64_t lineTileMinItems = 0;
  /// LineReduce with lineCombineKernel: threads folding one line's
  /// partials (1, or a warp for built-in kinds); the host launches lines
  /// x lineCombineLanes threads.
  int64_t lineCombineLanes = 1;
  /// LineScan along a dimension but the last, with accumulators that can
  /// be stored: the kernel of a split scan's partials (the scan kernel's
  /// params). The host splits lines into chunks as for LineReduce, at most
  /// lineMaxChunks; where there is more than one it launches this kernel
  /// (a thread a (line, chunk) but the last, storing the chunk's fold as
  /// partials of partialTypes at c * lines + line), then `kernel`, whose
  /// thread a (line, chunk) scans its chunk from the init folded with the
  /// line's partials before it.
  std::string linePartialKernel;
  int64_t lineMaxChunks = 0;
  /// LineScan: threads a line (1, or a warp for rows: scans along the last
  /// dimension); the host launches lines x lineScanLanes threads.
  int64_t lineScanLanes = 1;
  /// Vector width (elements) of the flat kernels; 1 means scalar only.
  int64_t vectorWidth = 1;
  /// Reduce: element type of each partial (one per full-reduction result);
  /// LineReduce with lineCombineKernel: of each accumulator.
  SmallVector<Type> partialTypes;
  /// Scan/Filter: elements per tile and the look-back value types.
  int64_t tileItems = 0;
  SmallVector<Type> statusTypes;
  /// Dynamic shared memory (bytes) every launch of `kernel` passes: the
  /// staged tiles of scans, filters and ordered reductions and the
  /// filters' shared-scatter buffers, else 0.
  int64_t dynamicSharedBytes = 0;
  /// LineScan/LineReduce: the fuse.scan or fuse.reduce whose input the
  /// lines run through, and the dimension they run along (the host sizes
  /// the launch from them).
  Operation *lineOp = nullptr;
  int64_t lineDim = 0;
  /// RowReduce with a narrow-rows path: elements one thread holds (C).
  /// Rows of need = ceil(cols / C) <= blockThreads / 2 threads run in
  /// groups of R = max(tiling.narrowRows, bit_ceil(need)) threads (and
  /// narrowSmallCols below), blockThreads / R rows per block; the host
  /// sizes the grid by that. 0: no narrow path.
  int64_t narrowRowItems = 0;
  /// Narrow rows: groups of R < 4 threads only for rows of at most
  /// narrowSmallCols * R columns (0: no such bound; groups with rank-2
  /// results, two vectors a thread).
  int64_t narrowSmallCols = 0;
  /// Narrow rows off the vector path (the scalar kernel): the smallest
  /// group, when larger than tiling.narrowRows (0: that one); set for
  /// groups with rank-2 results (32 bytes of a row a store instruction).
  int64_t narrowScalarMinThreads = 0;
  /// Narrow rows off the vector path: the largest group (narrow when need
  /// <= this). blockThreads / 2 like the vector path, or blockThreads for
  /// groups with rank-2 results: every such row that fits the registers
  /// is narrow (striped stores), and the register path serves the vector
  /// path only.
  int64_t narrowScalarMaxThreads = 0;
  /// RowReduce split by path (all take the same parameters): `kernel`
  /// the register path (cols <= rowCapacity), `narrowKernel` the narrow
  /// rows on the vector path and `narrowScalarKernel` those off it (empty:
  /// none), `longKernel` the rows past the register path (empty: one
  /// kernel chooses in itself).
  std::string narrowKernel, narrowScalarKernel, longKernel;
  int64_t rowCapacity = 0;
  /// RowReduce with staged long rows: the kernel, and per staged operand
  /// its element bytes (the dynamic shared memory of a row is the sum of
  /// alignTo(cols * bytes, 16); the kernel is taken when that is at most
  /// tiling.stagedRows).
  std::string stagedKernel;
  SmallVector<int64_t> stagedElementBytes;
  /// Rows over tiling.stagedWideRows bytes: the staged kernel built with
  /// stagedThreads threads (empty: the staged kernel takes them too).
  std::string stagedWideKernel;
  int64_t stagedThreads = 0;
  /// RowReduce: the register path built with wideThreads threads, for
  /// wideMinCols < cols <= wideCapacity (empty: none; the host then takes
  /// the staged or long kernel for those rows).
  std::string wideKernel;
  int64_t wideThreads = 0, wideCapacity = 0, wideMinCols = 0;
  /// Histogram: the kernel counting with global atomics, the most bytes
  /// of shared memory `kernel` may take (the target's block limit), and
  /// the group result that holds the counts (-1: the counts are not
  /// returned, and the kernels only store the other results).
  std::string globalCountKernel;
  int64_t sharedCountLimit = 0;
  int countsResult = 0;
  /// SegmentedReduce: the block-per-segment kernel (empty: none, for
  /// combiner regions) and the mean segment length from which it runs;
  /// the kernel of segmentSmallThreads lanes a segment (empty likewise)
  /// and the mean length below which it runs.
  std::string segmentBlockKernel, segmentSmallKernel;
  int64_t segmentBlockMinMean = 0, segmentSmallMaxMean = 0;
  int64_t segmentSmallThreads = 0;
  /// SegmentedReduce, long segments split into pieces (tiling.segmentPiece
  /// elements; empty: never): the kernel folding a piece a block into the
  /// partials (params as segmentBlockKernel's, then the pieces a segment
  /// and a partials pointer per input) and the one combining each
  /// segment's partials in order (a warp a segment; params common, nseg,
  /// n, out ptrs, pieces, partials).
  std::string segmentPieceKernel, segmentJoinKernel;
  /// The group reads a filter's kept elements whose count stays on the
  /// device (DeviceSize.cpp): each of its kernels takes one more parameter
  /// last, the `!llvm.ptr<1>` to that count, and reads its length there;
  /// the host sizes the launch by the capacity (the filtered input's size).
  bool sizeOnDevice = false;
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

/// Whether `group`, planned as `gk`, can read its length from a filter's
/// count on the device (DeviceSize.cpp): a flat, scan or filter group whose
/// every rank>=1 operand is rank 1 and sized by one fuse.filter's count,
/// with no op in its body that sizes a tensor otherwise (iota, broadcast,
/// gather).
bool canTakeSizeOnDevice(GroupOp group, const GroupKernels &gk);

/// Makes `gk`'s kernels read their length from the count on the device:
/// appends the count pointer parameter to each, loads it first, and uses it
/// for the operands' sizes and the plan's own length parameters (n and
/// nchunks, or n and ntiles). Sets gk.sizeOnDevice.
void readSizeOnDevice(gpu::GPUModuleOp gpuModule, GroupOp group,
                      GroupKernels &gk);

/// row_reduce groups (RowReduce.cpp): kernel `rows` with params common,
/// rows, cols, i32 vec (1: every rank-2 row start is 16-byte aligned and
/// cols % vectorWidth == 0), out ptrs; grid = rows (a rows loop covers more).
FailureOr<GroupKernels> buildRowReduceKernels(gpu::GPUModuleOp gpuModule,
                                              GroupOp group, StringRef prefix,
                                              const Tiling &tiling);

/// reduce groups with a custom combiner region (OrderedReduce.cpp): the
/// GroupPlan::Reduce parameters; the last partial is an i32 "has value"
/// flag per block. Operand order is kept (combiners may be
/// non-commutative).
FailureOr<GroupKernels> buildOrderedReduceKernels(gpu::GPUModuleOp gpuModule,
                                                  GroupOp group,
                                                  StringRef prefix,
                                                  const Tiling &tiling);

/// scan groups (ScanKernels.cpp): single-pass decoupled look-back scan.
FailureOr<GroupKernels> buildScanGroup(gpu::GPUModuleOp gpuModule,
                                       GroupOp group, StringRef prefix,
                                       const Tiling &tiling);

/// The line-scan kernel of a scan group over rank > 1 tensors
/// (LineKernels.cpp): a thread scans one line sequentially.
FailureOr<GroupKernels> buildLineScan(gpu::GPUModuleOp gpuModule,
                                      GroupOp group, ScanOp scan,
                                      StringRef prefix, Tiling tiling);

/// The line-reduce kernels of a group that holds one partial reduction
/// over one dimension, the other ops elementwise over its input's shape
/// (a line_reduce group, or a row_reduce group whose reduction the row
/// kernels cannot take: a combiner region; LineKernels.cpp); failure()
/// with no diagnostic (`handled` false) when the group is not of that
/// form.
FailureOr<GroupKernels> buildLineReduce(gpu::GPUModuleOp gpuModule,
                                        GroupOp group, StringRef prefix,
                                        const Tiling &tiling, bool &handled);

/// filter groups (FilterKernels.cpp): single-pass compaction (flags, tile
/// counts with decoupled look-back, in-order scatter).
FailureOr<GroupKernels> buildFilterGroup(gpu::GPUModuleOp gpuModule,
                                         GroupOp group, StringRef prefix,
                                         const Tiling &tiling);

/// histogram groups (HistogramKernels.cpp): one pass counting the bin
/// indices in shared memory, or in global memory for many bins.
FailureOr<GroupKernels> buildHistogramGroup(gpu::GPUModuleOp gpuModule,
                                            GroupOp group, StringRef prefix,
                                            const Tiling &tiling);

/// segmented_reduce groups (GroupPlan::SegmentedReduce, SegmentKernels.cpp).
FailureOr<GroupKernels> buildSegmentedReduceGroup(gpu::GPUModuleOp gpuModule,
                                                  GroupOp group,
                                                  StringRef prefix,
                                                  const Tiling &tiling);

/// The flat iteration domain of an elementwise/reduce group: every rank>=1
/// tensor of the body has this rank, and the kernel walks elements in
/// row-major order of the first one. Fails if shapes differ in rank or
/// broadcasts of rank > 0 inputs are present, except of operands read only
/// by broadcasts (the flat kernels read them at the coordinates of the
/// flat index).
/// With `computedReads`, operands read only at positions computed from data
/// (a gather's source, a searchsorted's sorted tensor) may have a lower
/// rank too (the flat kernels read them at those positions; the line
/// kernels do not take them).
bool isFlatGroup(GroupOp group, bool computedReads = false);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_KERNELGEN_H
